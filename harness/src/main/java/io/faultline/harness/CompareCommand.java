package io.faultline.harness;

import io.faultline.results.ComparePage;
import io.faultline.results.RunStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * `faultline compare --sut apache-kafka,broker-impl`: the same test (same seed, so the same workload and fault
 * schedule) against each system one after the other, then one page side by side. `--scenario NAME` compares a
 * scenario instead; `--runs DIR,DIR` only builds the page from stored runs.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = "Run the same seed and fault schedule against several systems (--sut a,b) and write one page side by side.")
final class CompareCommand implements Callable<Integer> {
    @Mixin
    TestOptions options;

    @Option(names = "--scenario", description = "Compare a named scenario (its settings and script) instead of --nemesis faults")
    String scenario;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--runs", split = ",", paramLabel = "DIR", description = "Build the page from these stored runs only (no cluster)")
    List<Path> runs;

    @Option(names = "--store", description = "Run store folder (default: ${DEFAULT-VALUE})")
    Path store = Path.of("store");

    /** What compare will do, validated before any cluster starts. */
    record Plan(List<TestConfig> configs, Scenario scenario) {}

    Plan plan() {
        List<String> suts = options.shape.suts();
        if (suts.size() < 2) {
            throw new IllegalArgumentException("compare needs at least two systems, e.g. --sut apache-kafka,broker-impl");
        }
        if (scenario != null) {
            Scenario s = Scenarios.forRun(scenario);
            long seed = options.shape.seedOrRandom();
            Integer limit = options.shape.timeLimit == 60 ? null : options.shape.timeLimit;
            List<TestConfig> configs = new ArrayList<>();
            for (String sut : suts) configs.add(ScenarioCommand.config(s, sut, null, limit, seed));
            return new Plan(configs, s);
        }
        TestConfig first = options.toConfigFor(suts.get(0));
        List<TestConfig> configs = new ArrayList<>();
        for (String sut : suts) configs.add(first.withSut(sut));
        return new Plan(configs, null);
    }

    @Override
    public Integer call() throws Exception {
        var runStore = new RunStore(store);
        Instant started = Instant.now();
        List<ComparePage.Side> sides = new ArrayList<>();
        String title;
        int worst = FaultlineCli.EXIT_VALID;
        if (runs != null) {
            for (Path r : runs) {
                if (!Files.isRegularFile(r.resolve("test.json"))) throw new IllegalArgumentException(r + " is not a run folder (no test.json)");
                Map<String, Object> params = StoredRun.readTestJson(r.toRealPath());
                sides.add(new ComparePage.Side(String.valueOf(StoredRun.configOf(r.toRealPath().resolve("test.json"), params).sut()), r.toRealPath()));
            }
            title = "Comparison of " + sides.size() + " stored runs";
        } else {
            Plan plan = plan();
            long seed = plan.configs().get(0).seed();
            System.err.println("faultline: compare seed " + seed + " on " + plan.configs().stream().map(TestConfig::sut).toList());
            for (TestConfig c : plan.configs()) {
                System.err.println("faultline: compare: " + c.sut());
                TestRunner.Result result = plan.scenario() == null
                        ? new TestRunner(c, runStore, System.err, NemesisSchedule::create).run()
                        : ScenarioCommand.run(plan.scenario(), c, runStore, System.err).result();
                sides.add(new ComparePage.Side(c.sut(), result.runDir()));
                worst = CampaignCommand.worse(worst, result.exitCode());
                if (Thread.currentThread().isInterrupted()) break;
            }
            title = (plan.scenario() == null ? "Seed " + seed + ", faults " + plan.configs().get(0).nemesis()
                    : "Scenario " + plan.scenario().name() + ", seed " + seed) + ": " + String.join(" vs ",
                    plan.configs().stream().map(TestConfig::sut).toList());
        }
        Path dir = runStore.root().resolve("compare").resolve(RunStoreTime.stamp(started));
        var cols = ComparePage.write(title, sides, dir);
        // the command line's own stream (System.err when run from the launcher), so a test can read the summary
        java.io.PrintWriter err = spec.commandLine().getErr();
        cols.forEach(c -> err.println(summaryLine(c)));
        err.println("faultline: comparison page " + dir.resolve("compare.html"));
        err.flush();
        return runs != null ? FaultlineCli.EXIT_VALID : worst;
    }

    /** One line per compared run, never merged with another run's: its label, verdict, anomalies and folder. */
    static String summaryLine(ComparePage.Column c) {
        StringBuilder anomalies = new StringBuilder();
        c.anomalyCounts().forEach((k, v) -> {
            if (v > 0) anomalies.append(anomalies.length() == 0 ? " (" : ", ").append(k).append(' ').append(v);
        });
        if (anomalies.length() > 0) anomalies.append(')');
        return "faultline: " + c.label() + ": " + c.verdict().toUpperCase(java.util.Locale.ROOT) + anomalies
                + (c.complete() ? "" : " [incomplete]") + " — " + c.runDir();
    }

    /** A folder name from a time, sortable, as run folders are named. */
    static final class RunStoreTime {
        static String stamp(Instant t) {
            return java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS").withZone(java.time.ZoneOffset.UTC).format(t);
        }
    }
}
