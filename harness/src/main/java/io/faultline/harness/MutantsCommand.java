package io.faultline.harness;

import io.faultline.docker.sut.BrokerImpl;
import io.faultline.harness.mutants.Mutant;
import io.faultline.harness.mutants.MutantCatalog;
import io.faultline.harness.mutants.MutantJar;
import io.faultline.harness.mutants.MutationOperator;
import io.faultline.harness.mutants.UnitTests;
import io.faultline.results.MutantsPage;
import io.faultline.results.RunStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * `faultline mutants`: a mutation score for the harness. Mutants of broker-impl's replication, partition, storage,
 * controller and group code (standard operators, PIT as the generator), each checked live, given to broker-impl's
 * unit tests (cheap kills, recorded apart), then run under the nightly mix; the unmutated broker under the same mix
 * is the false-alarm control. Writes a page like `bugs`; exit 0 unless the unmutated broker was judged invalid.
 */
@Command(name = "mutants", mixinStandardHelpOptions = true,
        description = "Mutate broker-impl (negated conditionals, boundaries, removed calls, return values, increments,"
                + " math), run each mutant under the nightly mix (until the first invalid verdict, at most --runs runs),"
                + " then the unmutated broker, and write the mutation score page.")
final class MutantsCommand implements Callable<Integer> {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--seed", description = "Seed of the selection and of every run (default: random, printed first)")
    Long seed;

    @Option(names = "--count", description = "Mutants drawn from the catalog (default: ${DEFAULT-VALUE})")
    int count = 5;

    @Option(names = "--mutant", split = ",", paramLabel = "ID", description = "Run these mutants (ids from --list) instead of a drawn selection")
    List<String> ids;

    @Option(names = "--packages", split = ",", description = "Packages to mutate, full or short names (default: replication,"
            + " partition, storage, controller, group of io.faultline.broker)")
    List<String> packages;

    @Option(names = "--operators", split = ",", description = "Operators (default: all): negate-conditionals,"
            + " conditionals-boundary, remove-void-call, return-true, return-false, return-zero, increments, math")
    List<String> operators;

    @Option(names = "--list", description = "Print the selected mutants (id, class:line, operator, what changed) and run nothing")
    boolean list;

    @Option(names = "--list-all", description = "Print every mutant of the catalog and run nothing")
    boolean listAll;

    @Option(names = "--runs", description = "Runs at most per mutant; 0: only broker-impl's unit tests, no runs (default: ${DEFAULT-VALUE})")
    int runs = 2;

    @Option(names = "--clean-runs", description = "Runs of the unmutated broker (default: --runs; 0: none)")
    Integer cleanRuns;

    @Option(names = "--time-limit", description = "Seconds of workload and faults per run (default: ${DEFAULT-VALUE})")
    int timeLimit = 60;

    @Option(names = "--unit-tests", description = "package: run broker-impl's unit tests of the mutated package against"
            + " each mutant first (needs broker-impl's test classes built); none: skip (default: ${DEFAULT-VALUE})")
    String unitTests = "package";

    @Option(names = "--unit-test-timeout", description = "Seconds the unit tests of one mutant may take; longer counts"
            + " as killed (default: ${DEFAULT-VALUE})")
    int unitTestTimeout = 300;

    @Option(names = "--jar", description = "The broker-impl jar to mutate (default: the built one, docker/target/broker-impl-libs)")
    Path jar;

    @Option(names = "--guided", description = "Plan each run's compositions from the coverage map of the hunt's runs"
            + " before it (kept beside its page as coverage.json), preferring transitions not yet seen; without it"
            + " they are drawn at random and the map is only recorded")
    boolean guided;

    @Option(names = "--mix", description = "nightly: the nightly mix; random: what `test --sut broker-impl --nodes 3"
            + " --time-limit T` runs with every other flag at its default (the plain queue under partition and kill),"
            + " the score of the command a user types first (default: ${DEFAULT-VALUE})")
    String mix = "nightly";

    @Option(names = "--store", description = "Run store folder (default: ${DEFAULT-VALUE})")
    Path store = Path.of("store");

    /** The packages named, short names completed (replication: io.faultline.broker.replication). */
    List<String> packageNames() {
        if (packages == null || packages.isEmpty()) return MutantCatalog.DEFAULT_PACKAGES;
        return packages.stream().map(String::strip).map(p -> p.contains(".") ? p : "io.faultline.broker." + p).distinct().toList();
    }

    List<MutationOperator> operatorList() {
        if (operators == null || operators.isEmpty()) return MutationOperator.all();
        return operators.stream().map(String::strip).distinct().map(MutationOperator::of).toList();
    }

    /** The libs folder the node image is built from, and the broker-impl jar in it (or --jar). */
    record Jars(Path brokerJar, List<Path> dependencies) {}

    Jars jars() throws IOException {
        Path libs = BrokerImpl.libsDirectory();
        List<Path> deps = new ArrayList<>();
        Path built = null;
        try (var files = Files.list(libs)) {
            for (Path f : files.sorted().toList()) {
                if (BrokerImpl.isBrokerJar(f)) built = f;
                else deps.add(f);
            }
        }
        Path chosen = jar != null ? jar : built;
        if (chosen == null || !Files.isRegularFile(chosen)) {
            throw new IllegalArgumentException("no broker-impl jar " + (jar != null ? jar : "in " + libs) + ": build the project first");
        }
        return new Jars(chosen, deps);
    }

    /** The mutants a run with these flags does, in order. */
    List<Mutant> selection(MutantCatalog catalog, long huntSeed) {
        if (ids != null && !ids.isEmpty()) return ids.stream().map(String::strip).distinct().map(catalog::named).toList();
        return catalog.select(huntSeed, count);
    }

    @Override
    public Integer call() throws Exception {
        long huntSeed = seed != null ? seed : new java.security.SecureRandom().nextLong() & Long.MAX_VALUE;
        PrintStream err = System.err;
        err.println("faultline: mutants seed " + huntSeed + "  (replay the selection and the runs: --seed " + huntSeed + ")");
        if (!List.of("package", "none").contains(unitTests)) {
            throw new IllegalArgumentException("--unit-tests must be package or none, got " + unitTests);
        }
        if (unitTestTimeout < 1) throw new IllegalArgumentException("--unit-test-timeout must be at least 1 second");
        if (!List.of("nightly", "random").contains(mix)) throw new IllegalArgumentException("--mix must be nightly or random, got " + mix);
        boolean nightly = "nightly".equals(mix);
        if (runs == 0 && "none".equals(unitTests)) throw new IllegalArgumentException("--runs 0 runs only the unit tests: drop --unit-tests none");
        if (guided && !nightly) throw new IllegalArgumentException("--guided plans the nightly mix's compositions: drop --mix random");
        Jars jars = jars();
        MutantCatalog catalog = MutantCatalog.of(jars.brokerJar(), jars.dependencies(), packageNames(), operatorList());
        List<Mutant> chosen = selection(catalog, huntSeed);
        err.println("faultline: mutants: " + catalog.all().size() + " mutants of " + jars.brokerJar().getFileName() + " in "
                + String.join(", ", catalog.packages()) + "; " + chosen.size() + " selected");
        if (list || listAll) {
            var out = spec.commandLine().getOut();
            (listAll ? catalog.all() : chosen).forEach(m -> out.println(m.listing()));
            out.flush();
            return FaultlineCli.EXIT_VALID;
        }
        MutantHunt.Plan plan = MutantHunt.plan(chosen, runs, cleanRuns != null ? cleanRuns : runs,
                MutantHunt.Shape.defaults(timeLimit), huntSeed, nightly);
        plan.seedLines().forEach(l -> err.println("faultline: " + l));
        UnitTests tests = "none".equals(unitTests) ? null : UnitTests.find(projectRoot(), Duration.ofSeconds(unitTestTimeout));

        var runStore = new RunStore(store);
        Instant started = Instant.now();
        Path dir = runStore.root().resolve("mutants").resolve(CompareCommand.RunStoreTime.stamp(started));
        Path jarsDir = dir.resolve("jars");
        err.println("faultline: mutants page (rewritten after every run) " + dir.resolve(MutantsPage.PAGE));
        String setup = "broker-impl " + jars.brokerJar().getFileName() + ", packages " + String.join(", ", catalog.packages())
                + "; each run: 3 nodes, rf 3, acks=all, idempotent, min ISR 2, " + (!nightly
                ? "the standard test (plain queue, partition and kill), "
                : "the nightly mix (" + (guided ? "guided compositions" : "random compositions") + "), ")
                + timeLimit + " s; at most " + runs + " runs per mutant; unit tests: " + unitTests + ".";

        var stopping = new java.util.concurrent.atomic.AtomicBoolean();
        Thread flag = new Thread(() -> stopping.set(true), "faultline-mutants-stop");
        Runtime.getRuntime().addShutdownHook(flag);
        MutantHunt.Prepare prepare = m -> {
            String why = MutantJar.whyNotLive(catalog, m, jars.dependencies());
            if (why != null) return new MutantHunt.Prepared(null, "not run", "not live: " + why);
            Path mutantJar = MutantJar.write(catalog, m, jarsDir.resolve(m.id() + ".jar"));
            if (tests == null) return new MutantHunt.Prepared(mutantJar, null, null);
            err.println("faultline: mutants: " + m.id() + ": broker-impl's unit tests of " + m.packageName() + " ...");
            UnitTests.Outcome o = tests.run(m, mutantJar, jars.brokerJar(), jarsDir);
            return new MutantHunt.Prepared(mutantJar, o.status().label(), o.detail() + " (" + Math.round(o.seconds()) + " s)");
        };
        // every run, mutated or not, adds what its observer saw to the hunt's map; only a guided hunt plans from it
        Files.createDirectories(dir);
        CoverageBook coverage = new CoverageBook(dir.resolve(CoverageBook.FILE));
        NightlyMix.Spec nightlySpec = MutantHunt.spec(guided);
        MutantHunt.Runner runner = nightly ? (c, mutantJar) -> coverage.run(c, nightlySpec, runStore, err, mutantJar).result()
                : (c, mutantJar) -> {
                    var run = new TestRunner(c, runStore, err, NemesisSchedule::create);
                    return (mutantJar == null ? run : run.withBrokerJar(mutantJar)).run();
                };
        MutantsPage.Input input = MutantHunt.run(plan, prepare, runner, err, started.toString(), setup, partial -> {
            try {
                MutantsPage.write(partial, dir);
            } catch (IOException e) {
                err.println("faultline: could not write the mutants page: " + e);
            }
        }, stopping::get);
        try {
            Runtime.getRuntime().removeShutdownHook(flag);
        } catch (IllegalStateException shuttingDown) {
            // the flag is set: the page below is the partial one
        }
        Path page = MutantsPage.write(input, dir);
        for (MutantsPage.Mutant m : input.mutants()) {
            err.printf("faultline: %s %-40s unit tests %-9s %s%n", m.id(), m.className().substring(m.className().lastIndexOf('.') + 1)
                    + ":" + m.line() + " " + m.operator(), m.unitTests(), m.detected()
                    ? "DETECTED in run " + m.detectingRun() + " (" + String.join(", ", m.categories()) + ")"
                    : "not detected in " + m.attempts().size() + " runs");
        }
        err.println("faultline: " + input.detected() + " of " + input.mutants().size() + " mutants detected; "
                + input.detectedOfUnitSurvivors() + " of " + input.unitSurvivors() + " unit-test survivors; "
                + input.killedByUnitTests() + " killed by unit tests (" + input.detectedOfUnitKilled() + " of them detected); "
                + input.detected() + " of " + input.shownLive() + " shown to change behaviour; " + input.falseAlarms() + " false alarms in "
                + input.clean().size() + " runs of the unmutated broker");
        err.println("faultline: mutants page " + page);
        return input.falseAlarms() == 0 ? FaultlineCli.EXIT_VALID : FaultlineCli.EXIT_INVALID;
    }

    private static Path projectRoot() {
        String root = System.getProperty("faultline.projectRoot");
        return root != null ? Path.of(root) : Path.of("").toAbsolutePath();
    }
}
