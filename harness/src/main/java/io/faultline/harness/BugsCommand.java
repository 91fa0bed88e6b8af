package io.faultline.harness;

import io.faultline.results.BugsPage;
import io.faultline.results.RunStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * `faultline bugs`: does the harness catch broker-impl's seeded bugs, and does it stay quiet on the unseeded broker?
 * Writes a page with the score; exit 0 only when every bug was detected and no clean run was invalid.
 */
@Command(name = "bugs", mixinStandardHelpOptions = true,
        description = "Run every seeded bug of broker-impl under its fault mix (up to --seeds runs each, stopping at the"
                + " first detection), then the unseeded broker under the same mixes, and write the score page.")
final class BugsCommand implements Callable<Integer> {
    @Option(names = "--seeds", description = "Runs at most per bug, and runs of the unseeded broker per fault mix and"
            + " bug broker properties (default: ${DEFAULT-VALUE})")
    int seeds = 3;

    @Option(names = "--time-limit", description = "Seconds of workload and faults per run (default: ${DEFAULT-VALUE})")
    int timeLimit = 30;

    @Option(names = "--only", split = ",", description = "Only these bugs (comma separated; default: all; none: only the"
            + " unseeded broker). Known: "
            + "hw-from-leader-leo, acks-all-leader-only, min-isr-ignored, follower-no-truncate, election-ignores-isr, "
            + "epoch-not-bumped, fenced-leader-serves, read-past-hw, isr-shrink-local, dedup-not-rebuilt, "
            + "offset-commit-unreplicated, recovery-keeps-torn-batch, lso-ignores-open-txn, markers-skipped-on-failover, "
            + "zombie-not-fenced (runs with transaction.version=1), aborted-index-not-recovered")
    List<String> only = List.of();

    @Option(names = "--clean-seeds", description = "Runs of the unseeded broker per fault mix (default: --seeds; 0: none)")
    Integer cleanSeeds;

    @Option(names = "--seed", description = "Seed of the hunt; every run's seed derives from it (default: random, printed first)")
    Long seed;

    @Option(names = "--store", description = "Run store folder (default: ${DEFAULT-VALUE})")
    Path store = Path.of("store");

    @Option(names = "--shard", paramLabel = "I/N", converter = Shard.Converter.class,
            description = "Run only shard I of N, 0-based: point k (each bug, then each fault mix's unseeded runs) when"
                    + " k mod N = I. Needs --seed; `faultline merge` joins the shards' stores into one score page")
    Shard shard;

    /** The runs this command would do, validated before any cluster starts. */
    BugHunt.Plan plan(long huntSeed) {
        if (timeLimit < 5) throw new IllegalArgumentException("--time-limit must be at least 5 seconds for faults to happen");
        return BugHunt.plan(only, seeds, cleanSeeds != null ? cleanSeeds : seeds, BugHunt.Shape.defaults(timeLimit), huntSeed);
    }

    @Override
    public Integer call() throws Exception {
        Shard part = shard == null ? Shard.WHOLE : shard;
        if (!part.isWhole() && seed == null) {
            throw new IllegalArgumentException("--shard needs --seed: every shard must derive the same runs from the same seed");
        }
        long huntSeed = seed != null ? seed : new java.security.SecureRandom().nextLong() & Long.MAX_VALUE;
        BugHunt.Plan whole = plan(huntSeed);
        BugHunt.Plan plan = whole.shard(part);
        String identity = CampaignShards.identity("bugs", huntSeed, whole.allConfigs());
        System.err.println("faultline: bugs seed " + huntSeed + "  (replay the hunt: --seed " + huntSeed + ")");
        if (!part.isWhole()) {
            System.err.println("faultline: bugs shard " + part + " of hunt " + identity + ": " + plan.points());
        }
        plan.seedLines().forEach(l -> System.err.println("faultline: " + l));
        var runStore = new RunStore(store);
        Instant started = Instant.now();
        Path dir = runStore.root().resolve("bugs").resolve(CompareCommand.RunStoreTime.stamp(started)
                + (part.isWhole() ? "" : "-shard-" + part.index() + "-of-" + part.count()));
        System.err.println("faultline: bugs page (rewritten after every run) " + dir.resolve(BugsPage.PAGE));
        var stopping = new java.util.concurrent.atomic.AtomicBoolean();
        Thread flag = new Thread(() -> stopping.set(true), "faultline-bugs-stop");
        Runtime.getRuntime().addShutdownHook(flag);
        BugsPage.Input input = BugHunt.run(plan,
                (c, mix) -> new TestRunner(c, runStore, System.err, BugHunt.schedule(mix)).run(), System.err, started.toString(),
                partial -> {
                    try {
                        BugsPage.write(partial, dir);
                    } catch (java.io.IOException e) {
                        System.err.println("faultline: could not write the bugs page: " + e);
                    }
                }, stopping::get);
        try {
            Runtime.getRuntime().removeShutdownHook(flag);
        } catch (IllegalStateException shuttingDown) {
            // the flag is set: the page below is the partial one
        }
        Path page = BugsPage.write(input.withDetails(BugsShards.section(identity, huntSeed, part, whole.points(), input)), dir);
        for (BugsPage.Bug b : input.bugs()) {
            System.err.printf("faultline: %-28s %s%n", b.name(), b.detected()
                    ? "detected in run " + b.runsUntilDetection() + " (" + String.join(", ", b.categories()) + ")"
                    : "NOT detected in " + b.attempts().size() + " runs");
        }
        System.err.println("faultline: " + input.detected() + " of " + input.bugs().size() + " seeded bugs detected; "
                + input.falseAlarms() + " false alarms on the unseeded broker");
        System.err.println("faultline: bugs page " + page);
        return input.detected() == input.bugs().size() && input.falseAlarms() == 0
                ? FaultlineCli.EXIT_VALID : FaultlineCli.EXIT_INVALID;
    }
}
