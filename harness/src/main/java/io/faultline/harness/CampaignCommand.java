package io.faultline.harness;

import io.faultline.results.CampaignInput;
import io.faultline.results.CampaignPage;
import io.faultline.results.HtmlReport;
import io.faultline.results.RunStore;
import picocli.CommandLine.Command;
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
    @Option(names = "--name", description = "Campaign name (default: ${DEFAULT-VALUE})")
    String name = "acks-matrix";

    @Option(names = "--acks", split = ",", description = "Values of acks to try (default: ${DEFAULT-VALUE})")
    List<String> acks = List.of("1", "all");

    @Option(names = "--min-isr", split = ",", description = "Values of min.insync.replicas (default: ${DEFAULT-VALUE})")
    List<Integer> minIsr = List.of(2);

    @Option(names = "--unclean", split = ",", arity = "1", description = "Values of unclean.leader.election.enable (default: ${DEFAULT-VALUE})")
    List<Boolean> unclean = List.of(false);

    @Option(names = "--nemesis", split = ",", description = "Fault configurations; join packages of one configuration"
            + " with + (e.g. partition,kill,partition+kill; default: ${DEFAULT-VALUE})")
    List<String> nemesis = List.of("partition", "kill");

    @Option(names = "--sut", description = "apache-kafka or broker-impl (default: ${DEFAULT-VALUE})")
    String sut = "apache-kafka";

    @Option(names = "--nodes", description = "Cluster size (default: ${DEFAULT-VALUE})")
    int nodes = 5;

    @Option(names = "--rf", description = "Replication factor (default: 3, at most --nodes)")
    Integer rf;

    @Option(names = "--time-limit", description = "Seconds of workload per run (default: ${DEFAULT-VALUE})")
    int timeLimit = 60;

    @Option(names = "--rate", description = "Client ops per second (default: ${DEFAULT-VALUE})")
    double rate = 50;

    @Option(names = "--concurrency", description = "Client threads (default: ${DEFAULT-VALUE})")
    int concurrency = 6;

    @Option(names = "--keys", description = "Keys in play (default: ${DEFAULT-VALUE})")
    int keys = 4;

    @Option(names = "--sub-via", description = "assign or subscribe (default: ${DEFAULT-VALUE})")
    String subVia = "assign";

    @Option(names = "--nemesis-interval", description = "Mean seconds between faults (default: ${DEFAULT-VALUE})")
    int nemesisInterval = 10;

    @Option(names = "--recovery", description = "Seconds after the final heal (default: ${DEFAULT-VALUE})")
    int recovery = 10;

    @Option(names = "--drain", description = "Bound of the final drain in seconds (default: ${DEFAULT-VALUE})")
    int drain = 30;

    @Option(names = "--seed", description = "Campaign seed; each run's seed derives from it (default: random)")
    Long seed;

    @Option(names = "--store", description = "Run store folder (default: ${DEFAULT-VALUE})")
    Path store = Path.of("store");

    /** The matrix, validated before anything runs so a bad value fails in one line, not after an hour. */
    List<TestConfig> configurations() {
        long campaignSeed = seed != null ? seed : new java.security.SecureRandom().nextLong() & Long.MAX_VALUE;
        int effectiveRf = rf != null ? rf : Math.min(3, nodes);
        var seeds = new SplittableRandom(campaignSeed);
        List<TestConfig> out = new ArrayList<>();
        for (String n : nemesis) {
            List<String> packages = "none".equals(n) ? List.of() : Arrays.asList(n.split("\\+"));
            for (String p : packages) {
                if (!io.faultline.nemesis.FaultPackages.NAMES.contains(p)) {
                    throw new IllegalArgumentException("unknown --nemesis package '" + p + "'; known: none, " + String.join(", ", io.faultline.nemesis.FaultPackages.NAMES));
                }
            }
            for (String a : acks) {
                for (int isr : minIsr) {
                    for (boolean u : unclean) {
                        boolean idempotent = "all".equals(a);
                        out.add(new TestConfig(sut, nodes, "queue", packages, timeLimit, rate, concurrency, keys, a,
                                idempotent, isr, effectiveRf, u, subVia, nemesisInterval,
                                seeds.nextLong() & Long.MAX_VALUE, recovery, drain));
                    }
                }
            }
        }
        return out;
    }

    @Override
    public Integer call() throws Exception {
        List<TestConfig> configs = configurations();
        var runStore = new RunStore(store);
        Instant started = Instant.now();
        System.err.println("faultline: campaign " + name + ": " + configs.size() + " runs");
        List<CampaignInput.Run> runs = new ArrayList<>();
        int worst = FaultlineCli.EXIT_VALID;
        for (int i = 0; i < configs.size(); i++) {
            TestConfig c = configs.get(i);
            System.err.printf("faultline: campaign run %d of %d: %s%n", i + 1, configs.size(), describe(c));
            var result = new TestRunner(c, runStore, System.err, NemesisSchedule::create).run();
            var summary = StoredRun.JSON.readValue(result.runDir().resolve("results.json").toFile(), Map.class);
            runs.add(CampaignInput.Run.of(describe(c), result.runDir(),
                    StoredRun.JSON.convertValue(summary.get("summary"), HtmlReport.Summary.class)));
            worst = Math.max(worst, result.exitCode());
        }
        Path dir = runStore.newCampaign(name, started);
        CampaignPage.write(new CampaignInput(name, started, runs), dir);
        System.err.println("faultline: campaign page " + dir.resolve("index.html"));
        return worst;
    }

    static Map<String, String> describe(TestConfig c) {
        var m = new LinkedHashMap<String, String>();
        m.put("acks", c.acks());
        m.put("min-isr", Integer.toString(c.minIsr()));
        m.put("unclean", Boolean.toString(c.unclean()));
        m.put("nemesis", c.nemesis().isEmpty() ? "none" : String.join("+", c.nemesis()));
        return m;
    }
}
