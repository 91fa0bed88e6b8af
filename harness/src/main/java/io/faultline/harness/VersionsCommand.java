package io.faultline.harness;

import io.faultline.checker.Verdict;
import io.faultline.docker.sut.KafkaVersion;
import io.faultline.results.RunStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * `faultline versions --scenario NAME | --nemesis … --versions a,b,c --seeds N`: the same scenario or fault mix on
 * several Apache Kafka releases, seeds base..base+N-1 on each (the same seeds on every release), then one page of
 * release × verdict with anomaly counts, links to every run, and the first release from which no run fails.
 */
@Command(name = "versions", mixinStandardHelpOptions = true,
        description = "Run one scenario or fault mix on several Apache Kafka releases (--versions 0.10.2.1,0.11.0.3) and "
                + "write one page: release x verdict, and the first release where it stops failing.")
final class VersionsCommand implements Callable<Integer> {
    @Mixin
    TestOptions options;

    @Option(names = "--scenario", description = "A named scenario (its settings and script) instead of --nemesis faults")
    String scenario;

    @Option(names = "--versions", split = ",", required = true, description = "Apache Kafka releases, e.g. 0.10.2.1,0.11.0.3,2.1.1")
    List<String> versions;

    @Option(names = "--seeds", description = "Runs per release, seeds base..base+N-1 (default: ${DEFAULT-VALUE})")
    int seeds = 1;

    @Option(names = "--store", description = "Run store folder (default: ${DEFAULT-VALUE})")
    Path store = Path.of("store");

    /**
     * One run of the matrix.
     *
     * @param systemDefaults broker settings the run left to the release's own defaults, with their values there
     */
    record Cell(String version, long seed, Verdict verdict, List<String> anomalies, Path runDir,
                java.util.Map<String, String> systemDefaults) {}

    /** Each release once, oldest first; validated before any cluster. */
    List<KafkaVersion> releases() {
        if (seeds < 1) throw new IllegalArgumentException("--seeds must be at least 1, got " + seeds);
        List<KafkaVersion> out = new ArrayList<>();
        for (String v : versions) {
            KafkaVersion k = KafkaVersion.parse(v);
            if (out.contains(k)) throw new IllegalArgumentException("--versions names " + v + " twice");
            Suts.named(Suts.withMetadata(Suts.APACHE_KAFKA + ":" + k.text(), options.shape.metadata));
            out.add(k);
        }
        out.sort(Comparator.naturalOrder());
        return out;
    }

    private TestConfig config(KafkaVersion v, long seed) {
        String sut = Suts.withMetadata(Suts.APACHE_KAFKA + ":" + v.text(), options.shape.metadata);
        if (scenario != null) {
            Integer limit = options.shape.timeLimit == 60 ? null : options.shape.timeLimit;
            return ScenarioCommand.config(Scenarios.forRun(scenario), sut, null, limit, seed);
        }
        return options.toConfigFor(sut).withSeed(seed);
    }

    @Override
    public Integer call() throws Exception {
        List<KafkaVersion> releases = releases();
        long base = options.shape.seedOrRandom();
        for (KafkaVersion v : releases) config(v, base); // every refusal before the first cluster
        var runStore = new RunStore(store);
        Instant started = Instant.now();
        List<Cell> cells = new ArrayList<>();
        int worst = FaultlineCli.EXIT_VALID;
        outer:
        for (KafkaVersion v : releases) {
            for (int i = 0; i < seeds; i++) {
                TestConfig c = config(v, base + i);
                System.err.println("faultline: versions: " + c.sut() + " seed " + c.seed());
                TestRunner.Result r = scenario == null
                        ? new TestRunner(c, runStore, System.err, NemesisSchedule::create).run()
                        : ScenarioCommand.run(Scenarios.forRun(scenario), c, runStore, System.err).result();
                cells.add(new Cell(v.text(), c.seed(), r.verdict(), r.anomalies(), r.runDir(), c.systemDefaults()));
                worst = CampaignCommand.worse(worst, r.exitCode());
                if (Thread.currentThread().isInterrupted()) break outer;
            }
        }
        String what = scenario != null ? "scenario " + scenario : "faults " + options.toConfigFor(Suts.APACHE_KAFKA).nemesis();
        Path dir = runStore.root().resolve("versions").resolve(CompareCommand.RunStoreTime.stamp(started));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("index.html"), VersionsPage.html(what, releases, cells, dir));
        Optional<String> fixed = firstPassing(releases, cells);
        boolean anyFailed = cells.stream().anyMatch(c -> c.verdict() == Verdict.INVALID);
        System.err.println("faultline: " + fixed.map(f -> "stops failing at " + f)
                .orElse(anyFailed ? "still fails on the newest release tried" : "no run failed"));
        System.err.println("faultline: versions page " + dir.resolve("index.html"));
        return worst;
    }

    /**
     * The oldest release from which on no run of any listed release was invalid, provided some older one was: where
     * the behaviour stops failing. Empty when nothing failed, or when the newest release still fails.
     */
    static Optional<String> firstPassing(List<KafkaVersion> oldestFirst, List<Cell> cells) {
        String candidate = null;
        boolean anyFailed = false;
        for (KafkaVersion v : oldestFirst) {
            boolean failed = cells.stream().anyMatch(c -> c.version().equals(v.text()) && c.verdict() == Verdict.INVALID);
            boolean ran = cells.stream().anyMatch(c -> c.version().equals(v.text()));
            if (failed) {
                anyFailed = true;
                candidate = null;
            } else if (ran && candidate == null) {
                candidate = v.text();
            }
        }
        return anyFailed ? Optional.ofNullable(candidate) : Optional.empty();
    }
}
