package io.faultline.harness;

import io.faultline.results.CampaignInput;
import io.faultline.results.CampaignPage;
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

    @Option(names = "--junit-xml", paramLabel = "FILE", description = "Also write the results as JUnit XML (one testcase per run)")
    Path junitXml;

    @Option(names = "--store", description = "Run store folder (default: ${DEFAULT-VALUE})")
    Path store = Path.of("store");

    /** The matrix, validated before anything runs so a bad value fails in one line, not after an hour. */
    List<TestConfig> configurations() {
        return configurations(shape.seedOrRandom());
    }

    List<TestConfig> configurations(long campaignSeed) {
        // Each run's seed derives from the campaign's, so the whole campaign replays from one number.
        var seeds = new SplittableRandom(campaignSeed);
        List<TestConfig> out = new ArrayList<>();
        for (String n : nemesis) {
            List<String> packages = RunShapeOptions.faultPackages(Arrays.asList(n.split("\\+")));
            for (String a : acks) {
                for (int isr : minIsr) {
                    for (boolean u : unclean) {
                        boolean idempotent = "all".equals(a);
                        out.add(shape.config(packages, a, idempotent, isr, u, seeds.nextLong() & Long.MAX_VALUE));
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
        long campaignSeed = shape.seedOrRandom();
        // The campaign's seed first: every run's seed derives from it, so the whole campaign replays.
        System.err.println("faultline: campaign seed " + campaignSeed + "  (replay: --seed " + campaignSeed + ")");
        List<TestConfig> configs = configurations(campaignSeed);
        var runStore = new RunStore(store);
        Instant started = Instant.now();
        System.err.println("faultline: campaign " + name + ": " + configs.size() + " runs");
        List<CampaignInput.Run> runs = new ArrayList<>();
        int worst = FaultlineCli.EXIT_VALID;
        List<JunitXml.Case> cases = new ArrayList<>();
        for (int i = 0; i < configs.size(); i++) {
            TestConfig c = configs.get(i);
            System.err.printf("faultline: campaign run %d of %d: %s%n", i + 1, configs.size(), describe(c));
            try {
                var result = new TestRunner(c, runStore, System.err, NemesisSchedule::create).run();
                var stored = StoredRun.JSON.readValue(result.runDir().resolve("results.json").toFile(), Map.class);
                runs.add(CampaignInput.Run.of(describe(c), result.runDir(),
                        StoredRun.JSON.convertValue(stored.get("summary"), HtmlReport.Summary.class)));
                worst = worse(worst, result.exitCode());
                cases.add(JunitCases.of(caseName(i, c), "faultline.campaign." + name, result));
            } catch (Exception e) {
                // one broken run must not cost the comparison of the others
                System.err.println("faultline: campaign run " + (i + 1) + " failed: " + e);
                worst = worse(worst, FaultlineCli.EXIT_UNKNOWN_OR_ERROR);
                cases.add(JunitCases.broken(caseName(i, c), "faultline.campaign." + name, e));
            }
            if (junitXml != null) JunitCases.write(junitXml, "faultline campaign " + name, cases);
            if (Thread.currentThread().isInterrupted()) break;
        }
        Path dir = runStore.newCampaign(name, started);
        CampaignPage.write(new CampaignInput(name, started, runs), dir);
        System.err.println("faultline: campaign page " + dir.resolve("index.html"));
        try {
            // every stored campaign of this name, e.g. one per night
            System.err.println("faultline: trend page " + TrendPage.write(dir.getParent()));
        } catch (Exception e) {
            System.err.println("faultline: could not write the trend page: " + e);
        }
        return worst;
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
