package io.faultline.harness;

import io.faultline.results.CampaignInput;
import io.faultline.results.CampaignPage;
import io.faultline.results.CoveragePage;
import io.faultline.results.HtmlReport;
import io.faultline.results.JunitXml;
import io.faultline.results.RunStore;
import io.faultline.results.TrendPage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;

/**
 * `faultline campaign`: one test per point of a matrix of settings, then a comparison page answering which
 * acks / min.insync.replicas / unclean-election settings lose data under which faults.
 */
@Command(name = "campaign", mixinStandardHelpOptions = true,
        description = "Run a matrix of tests (acks x min-isr x unclean x nemesis) and write a comparison page.")
final class CampaignCommand implements Callable<Integer> {
    @Mixin
    RunShapeOptions shape = new RunShapeOptions();

    @Option(names = "--name", description = "Campaign name (default: nightly, or acks-matrix with the random mix)")
    String name;

    @Mixin
    MixOptions mix = new MixOptions();

    @Option(names = "--acks", split = ",", description = "Values of acks to try (default: 1,all; all with the nightly mix)")
    List<String> acks;

    @Option(names = "--min-isr", split = ",", description = "Values of min.insync.replicas (default: ${DEFAULT-VALUE})")
    List<Integer> minIsr = List.of(2);

    @Option(names = "--unclean", split = ",", arity = "1", description = "Values of unclean.leader.election.enable (default: ${DEFAULT-VALUE})")
    List<Boolean> unclean = List.of(false);

    @Option(names = "--nemesis", split = ",", description = "Fault configurations; join packages of one configuration"
            + " with + (e.g. partition,kill,partition+kill; default: partition,kill); naming it means --mix random unless"
            + " --mix says otherwise")
    List<String> nemesis;

    @Option(names = "--runs", description = "Runs of each configuration, each with its own seed (default: ${DEFAULT-VALUE});"
            + " a guided campaign plans each run from the coverage of the runs before it")
    int runs = 1;

    @Option(names = "--junit-xml", paramLabel = "FILE", description = "Also write the results as JUnit XML (one testcase per run)")
    Path junitXml;

    @Option(names = "--store", description = "Run store folder (default: ${DEFAULT-VALUE})")
    Path store = Path.of("store");

    @Option(names = "--docker-hosts", split = ",", paramLabel = "URL",
            description = "Spread the runs over these Docker engines (unix:///path.sock or tcp://host:port): engine e"
                    + " of N runs the points of shard e/N, one run at a time, each run's whole cluster on one engine;"
                    + " the page names each run's engine")
    List<String> dockerHosts;

    @Option(names = "--shard", paramLabel = "I/N", converter = Shard.Converter.class,
            description = "Run only shard I of N, 0-based (0/N .. N-1/N): the points k of the matrix with k mod N = I."
                    + " Needs --seed, so every shard derives the same matrix; each shard writes an ordinary store,"
                    + " and `faultline merge` joins them into the campaign's page")
    Shard shard;

    /** The matrix, validated before anything runs so a bad value fails in one line, not after an hour. */
    List<TestConfig> configurations() {
        return configurations(shape.seedOrRandom());
    }

    /** Whether this campaign runs the nightly mix: its default, unless --nemesis names packages. */
    boolean nightly() {
        return mix.nightly(nemesis == null);
    }

    List<TestConfig> configurations(long campaignSeed) {
        if (runs < 1) throw new IllegalArgumentException("--runs must be at least 1");
        boolean nightly = nightly();
        if (nightly && nemesis != null) {
            throw new IllegalArgumentException("--mix nightly chooses its own faults: drop --nemesis, or use --mix random");
        }
        // Each run's seed derives from the campaign's, so the whole campaign replays from one number.
        var seeds = new SplittableRandom(campaignSeed);
        List<TestConfig> out = new ArrayList<>();
        List<String> configurations = nightly ? List.of(NightlyMix.NAME) : nemesis != null ? nemesis : List.of("partition", "kill");
        List<String> acksValues = acks != null ? acks : nightly ? List.of("all") : List.of("1", "all");
        for (String n : configurations) {
            List<String> packages = nightly ? List.of() : RunShapeOptions.faultPackages(Arrays.asList(n.split("\\+")));
            for (String a : acksValues) {
                for (int isr : minIsr) {
                    for (boolean u : unclean) {
                        boolean idempotent = "all".equals(a);
                        for (int i = 0; i < runs; i++) {
                            out.add(mix.apply(shape.config(packages, a, idempotent, isr, u, seeds.nextLong() & Long.MAX_VALUE), nightly));
                        }
                    }
                }
            }
        }
        // Several systems are one more axis: each gets every configuration with the same seed, so runs pair up.
        List<TestConfig> everySut = new ArrayList<>();
        for (String sutName : shape.suts()) out.forEach(c -> everySut.add(c.withSut(sutName)));
        return everySut;
    }

    @Override
    public Integer call() throws Exception {
        if (name == null) name = nightly() ? NightlyMix.NAME : "acks-matrix";
        Shard part = shard == null ? Shard.WHOLE : shard;
        if (!part.isWhole() && shape.seed == null) {
            throw new IllegalArgumentException("--shard needs --seed: every shard must derive the same matrix from the"
                    + " same campaign seed");
        }
        long campaignSeed = shape.seedOrRandom();
        // The campaign's seed first: every run's seed derives from it, so the whole campaign replays.
        System.err.println("faultline: campaign seed " + campaignSeed + "  (replay: --seed " + campaignSeed + ")");
        List<TestConfig> configs = configurations(campaignSeed);
        String identity = CampaignShards.identity(name, campaignSeed, configs);
        List<Integer> points = part.points(configs.size());
        var runStore = new RunStore(store);
        Instant started = Instant.now();
        System.err.println("faultline: campaign " + name + ": " + configs.size() + " runs"
                + (part.isWhole() ? "" : "; shard " + part + " runs " + points.size() + " of them (points " + points
                + "), campaign identity " + identity));
        DockerHosts engines = dockerHosts == null ? null : new DockerHosts(dockerHosts);
        if (engines != null && nightly()) {
            throw new IllegalArgumentException("--docker-hosts runs the random mix only: add --mix random --nemesis ...");
        }
        CoverageBook coverage = nightly() ? CoverageBook.ofCampaign(store, name) : null;
        if (coverage != null) {
            System.err.println("faultline: nightly mix" + (mix.guided ? ", guided by " : ", coverage in ") + coverage.file()
                    + " (" + coverage.map().size() + " transition sequences seen so far)");
        }
        Outcome[] outcomes = engines == null ? runHere(configs, points, runStore, coverage)
                : runOn(engines, configs, points, runStore);
        List<CampaignInput.Run> runs = new ArrayList<>();
        Map<Integer, JunitXml.Case> done = new LinkedHashMap<>();
        int worst = FaultlineCli.EXIT_VALID;
        for (int i = 0; i < outcomes.length; i++) {
            Outcome o = outcomes[i];
            if (o == null) continue; // another shard's point, or not started: interrupted before its turn
            if (o.run() != null) runs.add(o.run().atPoint(i));
            done.put(i, o.junit());
            worst = worse(worst, o.exitCode());
        }
        List<CampaignShards.Point> matrix = new ArrayList<>();
        for (int i = 0; i < configs.size(); i++) matrix.add(new CampaignShards.Point(i, caseName(i, configs.get(i)),
                describe(configs.get(i))));
        // A shard's page is a campaign of its own name, so the trend of NAME holds whole campaigns only (merged or not).
        String folder = part.isWhole() ? name : shardName(name, part);
        Path dir = runStore.newCampaign(folder, started);
        if (coverage != null) {
            // before the campaign page, which links to it
            CoveragePage.write(dir, name, mix.guided, coverage.file(), growth);
            System.err.println("faultline: coverage growth " + String.join(", ", growth.stream()
                    .map(g -> g.total() + " (+" + g.added() + ")").toList()) + "; " + dir.resolve(CoveragePage.FILE));
        }
        CampaignPage.write(new CampaignInput(name, started, runs)
                .withDetails(CampaignShards.section(identity, campaignSeed, part, matrix, done)), dir);
        System.err.println("faultline: campaign page " + dir.resolve("index.html"));
        if (!part.isWhole()) {
            System.err.println("faultline: shard " + part + " of campaign " + identity + " done; join the shards with:"
                    + " faultline merge STORE_OR_ARCHIVE...");
        }
        try {
            // every stored campaign of this name, e.g. one per night
            System.err.println("faultline: trend page " + TrendPage.write(dir.getParent()));
        } catch (Exception e) {
            System.err.println("faultline: could not write the trend page: " + e);
        }
        return worst;
    }

    /** Each nightly run's coverage, in run order (filled by runHere). */
    private final List<CoveragePage.Row> growth = new ArrayList<>();

    /** The campaign folder name of one shard's page: NAME.shard-I-of-N. */
    static String shardName(String name, Shard part) {
        return name + ".shard-" + part.index() + "-of-" + part.count();
    }

    /** One finished (or broken) run: its page row (null if broken), exit code and JUnit case. */
    record Outcome(CampaignInput.Run run, int exitCode, JunitXml.Case junit) {
    }

    /** This shard's runs in this JVM, one after another, on the engine Testcontainers finds (DOCKER_HOST or the default). */
    private Outcome[] runHere(List<TestConfig> configs, List<Integer> points, RunStore runStore, CoverageBook coverage) {
        Outcome[] out = new Outcome[configs.size()];
        for (int i : points) {
            TestConfig c = configs.get(i);
            System.err.printf("faultline: campaign run %d of %d: %s%n", i + 1, configs.size(), describe(c));
            try {
                if (coverage != null) {
                    var run = coverage.run(c, mix.spec(), runStore, System.err);
                    Map<String, String> row = describe(c);
                    row.put("mix", NightlyMix.NAME + (mix.guided ? " guided" : ""));
                    out[i] = finished(i, c, row, run.result());
                    growth.add(new CoveragePage.Row(run.result().runDir(), run.compositions(),
                            run.growth() == null ? -1 : run.growth().total(), run.growth() == null ? 0 : run.growth().added(),
                            run.growth() == null ? List.of() : run.growth().examples()));
                } else {
                    out[i] = finished(i, c, describe(c), new TestRunner(c, runStore, System.err, NemesisSchedule::create).run());
                }
            } catch (Exception e) {
                out[i] = broken(i, c, e); // one broken run must not cost the comparison of the others
            }
            writeJunit(out);
            if (Thread.currentThread().isInterrupted()) break;
        }
        return out;
    }

    /**
     * Each engine runs its share of this shard's points ({@link DockerHosts#shares}: engine e of N takes shard e/N of
     * them) one run after another, the engines in parallel; every run is a child JVM talking to its engine only.
     */
    private Outcome[] runOn(DockerHosts engines, List<TestConfig> configs, List<Integer> points, RunStore runStore)
            throws InterruptedException, java.io.IOException {
        Outcome[] out = new Outcome[configs.size()];
        // The children's config and result files: not in the store, whose folders are runs and campaigns only.
        Path work = java.nio.file.Files.createTempDirectory("faultline-campaign-");
        List<Thread> workers = new ArrayList<>();
        List<List<Integer>> shares = engines.shares(points.size());
        for (int e = 0; e < shares.size(); e++) {
            String url = engines.urls().get(e);
            List<Integer> share = shares.get(e).stream().map(points::get).toList();
            Thread w = new Thread(() -> {
                for (int i : share) {
                    if (Thread.currentThread().isInterrupted()) return;
                    TestConfig c = configs.get(i);
                    Map<String, String> row = describe(c);
                    row.put("engine", url);
                    System.err.printf("faultline: campaign run %d of %d on %s: %s%n", i + 1, configs.size(), url, row);
                    Outcome o;
                    try {
                        var child = CampaignChild.run(c, url, DockerHosts.label(url), store, work, System.err);
                        o = child.error() != null ? broken(i, c, new IllegalStateException(child.error()))
                                : finished(i, c, row, child.toResult());
                    } catch (InterruptedException ie) {
                        return;
                    } catch (Exception ex) {
                        o = broken(i, c, ex);
                    }
                    synchronized (out) {
                        out[i] = o;
                        writeJunit(out);
                    }
                }
            }, "campaign-engine-" + e);
            workers.add(w);
            w.start();
        }
        try {
            for (Thread w : workers) w.join();
        } catch (InterruptedException e) {
            workers.forEach(Thread::interrupt); // each stops its child JVM, whose cleanup removes its cluster
            for (Thread w : workers) w.join(90_000);
            Thread.currentThread().interrupt();
        }
        deleteQuietly(work);
        synchronized (out) {
            return out.clone();
        }
    }

    private static void deleteQuietly(Path dir) {
        try (var files = java.nio.file.Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException | RuntimeException e) {
            // a few small JSON files in the temp folder: not worth failing the campaign for
        }
    }

    private Outcome finished(int i, TestConfig c, Map<String, String> row, TestRunner.Result result) throws Exception {
        var stored = StoredRun.JSON.readValue(result.runDir().resolve("results.json").toFile(), Map.class);
        var run = CampaignInput.Run.of(row, result.runDir(),
                StoredRun.JSON.convertValue(stored.get("summary"), HtmlReport.Summary.class));
        return new Outcome(run, result.exitCode(), JunitCases.of(caseName(i, c), "faultline.campaign." + name, result));
    }

    private Outcome broken(int i, TestConfig c, Exception e) {
        System.err.println("faultline: campaign run " + (i + 1) + " failed: " + e);
        return new Outcome(null, FaultlineCli.EXIT_UNKNOWN_OR_ERROR,
                JunitCases.broken(caseName(i, c), "faultline.campaign." + name, e));
    }

    /** Rewritten after every run, so a CI server sees partial results of a campaign that is cut short. */
    private void writeJunit(Outcome[] outcomes) {
        if (junitXml == null) return;
        List<JunitXml.Case> cases = new ArrayList<>();
        for (Outcome o : outcomes) if (o != null) cases.add(o.junit());
        JunitCases.write(junitXml, "faultline campaign " + name, cases);
    }

    static String caseName(int index, TestConfig c) {
        StringBuilder b = new StringBuilder("run " + (index + 1));
        describe(c).forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
        return b.toString();
    }

    /** Invalid outranks unknown/error, which outranks valid. */
    static int worse(int a, int b) {
        if (a == FaultlineCli.EXIT_INVALID || b == FaultlineCli.EXIT_INVALID) return FaultlineCli.EXIT_INVALID;
        return Math.max(a, b);
    }

    static Map<String, String> describe(TestConfig c) {
        var m = new LinkedHashMap<String, String>();
        m.put("sut", c.sut());
        m.put("acks", c.acks());
        m.put("min-isr", Integer.toString(c.minIsr()));
        m.put("unclean", Boolean.toString(c.unclean()));
        m.put("nemesis", c.nemesis().isEmpty() ? "none" : String.join("+", c.nemesis()));
        return m;
    }
}
