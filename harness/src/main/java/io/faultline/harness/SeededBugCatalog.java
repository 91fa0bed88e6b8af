package io.faultline.harness;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * broker-impl's seeded bugs as the harness knows them: each name (a contract with broker-impl's {@code SeededBug},
 * which the harness does not link against) with the fault mix and settings that should expose it. A mix is chosen
 * so the unseeded broker under it stays valid: the same mix, without the bug, is the false-alarm control.
 */
final class SeededBugCatalog {
    private SeededBugCatalog() {}

    /** Prefix of the per-bug switches in server.properties. */
    static final String PREFIX = "faultline.bug.";
    /** The switch without which broker-impl refuses every seeded bug. */
    static final String ALLOWED = "faultline.bugs.allowed";

    /**
     * The conditions a bug needs to show: workload, faults and client/broker settings (3 nodes). With
     * {@code scenario} set, the faults are that named scenario's script (Scenarios), deterministic but for the
     * workload's seed, and the settings are the scenario's; otherwise they are random, of the given packages.
     */
    record Mix(String workload, List<String> nemesis, String acks, boolean idempotence, int replicationFactor,
               int minIsr, int keys, int nemesisIntervalSeconds, String scenario, boolean composed) {
        Mix {
            nemesis = List.copyOf(nemesis);
        }

        Mix(String workload, List<String> nemesis, String acks, boolean idempotence, int replicationFactor, int minIsr,
            int keys, int nemesisIntervalSeconds) {
            this(workload, nemesis, acks, idempotence, replicationFactor, minIsr, keys, nemesisIntervalSeconds, null, false);
        }

        /** The mix of a named scenario: its packages and settings, the queue workload on one key. */
        static Mix scenario(String name) {
            Scenario s = Scenarios.named(name);
            var st = s.settings();
            return new Mix("queue", s.packages(), st.acks(), st.idempotence(), st.replicationFactor(), st.minIsr(), 1, 0, name, false);
        }

        /**
         * A workload under the nightly mix's role-aware compositions, drawn at random ({@link #COMPOSITIONS}, as
         * `test --mix nightly` draws them): generic over bugs, as the random packages are.
         */
        static Mix composed(String workload, int keys) {
            return new Mix(workload, NightlyMix.packages(COMPOSITIONS), "all", true, 3, 2, keys, 5, null, true);
        }

        /** The compositions of a composed mix: every kind, at random, with `test --mix nightly`'s defaults. */
        static final NightlyMix.Spec COMPOSITIONS = MutantHunt.spec(false);

        /** The scenario this mix runs, if it is one. */
        java.util.Optional<Scenario> script() {
            return java.util.Optional.ofNullable(scenario).map(Scenarios::named);
        }

        String describe() {
            if (scenario != null) return "scenario " + scenario + " (" + Scenarios.named(scenario).settings().describe() + ")";
            if (composed) return workload + ", nightly compositions (random), acks=" + acks + (idempotence ? ", idempotent" : "")
                    + ", rf " + replicationFactor + ", min-isr " + minIsr + ", " + keys + (keys == 1 ? " key" : " keys");
            return workload + ", " + String.join("+", nemesis) + ", acks=" + acks
                    + (idempotence ? ", idempotent" : "") + ", rf " + replicationFactor + ", min-isr " + minIsr + ", " + keys
                    + (keys == 1 ? " key" : " keys") + ", faults every ~" + nemesisIntervalSeconds + " s";
        }
    }

    /**
     * One seeded bug: its name, the mistake in one line, the mix that exposes it and why that mix; and broker
     * properties its runs need besides the switch (usually none), with the reason in one line. `bugs` sets them on
     * this bug's runs and on the unseeded control runs of the same mix and properties, never on another bug's runs;
     * they land in test.json's broker-props like any other, so `replay` runs the same broker.
     */
    record Entry(String name, String mistake, Mix mix, String why, Map<String, String> brokerProperties,
                 String brokerPropertiesWhy) {
        Entry {
            // sorted and unmodifiable: the page, the plan's keys and test.json all see one order
            brokerProperties = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(brokerProperties));
            if (brokerProperties.keySet().stream().anyMatch(k -> k.startsWith("faultline.bug"))) {
                throw new IllegalArgumentException(name + ": the bug switches are not entry properties");
            }
            if (!brokerProperties.isEmpty() && (brokerPropertiesWhy == null || brokerPropertiesWhy.isBlank())) {
                throw new IllegalArgumentException(name + ": broker properties need their reason");
            }
        }

        Entry(String name, String mistake, Mix mix, String why) {
            this(name, mistake, mix, why, Map.of(), null);
        }

        /** The mix and, when set, the broker properties: how the page and the progress lines name this bug's runs. */
        String describe() {
            return SeededBugCatalog.describe(mix, brokerProperties);
        }
    }

    /** A mix, with the broker properties its runs add (as the page shows them). */
    static String describe(Mix mix, Map<String, String> brokerProperties) {
        if (brokerProperties.isEmpty()) return mix.describe();
        return mix.describe() + ", broker " + brokerProperties.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(java.util.stream.Collectors.joining(" "));
    }

    // Leader-aimed partitions and kills, one every ~6 s (a fault window and a healthy one of ~3 s each): an isolated
    // or killed leader is where every replication mistake bites, and a divergence shows once a deposed leader leads
    // again, which takes several leader changes in one run.
    // One key: all writes go to the one partition whose leader the aimed faults pick.
    private static final Mix QUEUE_LEADER_FAULTS = new Mix("queue", List.of("partition", "kill"), "all", true, 3, 2, 1, 3);
    // Committed consumer offsets as registers: loss of a commit shows as a non-linearizable read. Partitions only, aimed
    // by the workload at the group's coordinator: a cut-off coordinator with the bug acknowledges commits for as long
    // as the cut lasts while clients that find the new one read past them. A killed one loses only its last few
    // milliseconds of commits, which a later write often hides: with partition+kill three hunts needed runs 3, 1 and
    // 3, and every run that missed had no cut of the current coordinator.
    private static final Mix OFFSETS_LEADER_FAULTS = new Mix("offsets", List.of("partition"), "all", true, 3, 2, 2, 3);
    // The transactional queue under the generic partition+kill+pause mix, as `test --workload txn-queue` runs it (4 keys,
    // faults every ~5 s): no fault is aimed at a transaction's coordinator or partitions, and no script is derived from
    // a transaction bug. Aborts (one transaction in four), coordinator failovers, restarts and fenced clients all
    // happen in the ordinary course of such a run.
    static final Mix TXN_QUEUE_FAULTS = new Mix("txn-queue", List.of("partition", "kill", "pause"), "all", true, 3, 2, 4, 5);
    // The same workload under the nightly mix's role-aware compositions, drawn at random: over txn-queue the coordinator
    // role is its transactions' coordinator, so cut-offs, kills and freezes of a coordinator (and of leaders that are
    // coordinators too) come with composed timing. Nothing in it is drawn from a transaction bug.
    static final Mix TXN_QUEUE_COMPOSED = Mix.composed("txn-queue", 4);
    // Scripted mixes (Scenarios): each designed from the bug's code so that one run shows it; the clean broker under
    // the same script is valid.
    private static final Mix ISOLATED_LEADER = Mix.scenario("isolated-leader");
    private static final Mix DEPOSED_LEADER_RETURNS = Mix.scenario("deposed-leader-returns");
    private static final Mix DIVERGED_LEADER_RETURNS = Mix.scenario("diverged-leader-returns");
    private static final Mix OUT_OF_SYNC_ELECTION = Mix.scenario("out-of-sync-election");
    private static final Mix SOLE_REPLICA_POWER_LOSS = Mix.scenario("sole-replica-power-loss");
    private static final Mix RETRY_AFTER_FAILOVER = Mix.scenario("retry-after-failover");
    private static final Mix ISR_SHRINK_UNREPORTED = Mix.scenario("isr-shrink-unreported");
    private static final Mix TORN_FOLLOWER_LEADS = Mix.scenario("torn-follower-leads");

    static final List<Entry> ALL = List.of(
            new Entry("hw-from-leader-leo", "HW advanced from the leader's own log end", ISOLATED_LEADER,
                    "the cut-off leader's high watermark follows its own appends, so it acknowledges writes no follower has; "
                            + "killed, it loses them to the follower that takes over"),
            new Entry("acks-all-leader-only", "acks=all answered after the leader append", ISOLATED_LEADER,
                    "writes acknowledged by the cut-off leader alone are lost when another replica takes over"),
            new Entry("min-isr-ignored", "min.insync.replicas not enforced", SOLE_REPLICA_POWER_LOSS,
                    "the leader, alone in the ISR, acknowledges writes min.insync.replicas=2 forbids; its power loss forgets them"),
            new Entry("follower-no-truncate", "follower never truncates on leader change", DIVERGED_LEADER_RETURNS,
                    "the deposed leader keeps its tail of expired, never retried sends; back in the ISR it leads again "
                            + "and the drain reads other values at offsets the new leader acknowledged"),
            new Entry("election-ignores-isr", "clean election ignores the ISR", OUT_OF_SYNC_ELECTION,
                    "the out-of-sync follower is elected when the leader dies: what the leader acknowledged alone is gone"),
            new Entry("epoch-not-bumped", "leader epoch not bumped on election", DIVERGED_LEADER_RETURNS,
                    "the new leader keeps the old epoch, so the deposed leader's epoch check finds no divergence and keeps "
                            + "its tail; when it leads again readers see other values at those offsets"),
            new Entry("fenced-leader-serves", "a fenced or deposed leader keeps serving", QUEUE_LEADER_FAULTS,
                    "an isolated old leader keeps taking writes and serving reads next to the new one"),
            new Entry("read-past-hw", "consumers read past the high watermark", DEPOSED_LEADER_RETURNS,
                    "consumers read the cut-off leader's unacknowledged tail; the next leader holds other values at "
                            + "those offsets (the random partition+kill mix missed it in 3 of 3 runs once)"),
            new Entry("isr-shrink-local", "ISR shrunk locally without the controller", ISR_SHRINK_UNREPORTED,
                    "the leader acknowledges with the second follower after dropping the first locally; the controller, "
                            + "never told, elects the first follower (first in replica order) without those writes"),
            new Entry("dedup-not-rebuilt", "producer dedup state not rebuilt on followers", RETRY_AFTER_FAILOVER,
                    "batches the first follower copied but the leader never acknowledged are retried to it as the new "
                            + "leader, which appends them a second time"),
            new Entry("offset-commit-unreplicated", "offset commit answered before replicated", OFFSETS_LEADER_FAULTS,
                    "a commit acknowledged by a cut-off coordinator is gone when the next one reads"),
            new Entry("recovery-keeps-torn-batch", "recovery keeps a torn last batch", TORN_FOLLOWER_LEADS,
                    "the follower restarts with its torn last batch (zeroed tail, length kept) and, leading, serves it: "
                            + "the consumers' checksum fails (corrupt-read)"),
            new Entry("lso-ignores-open-txn", "the last stable offset ignores open transactions", TXN_QUEUE_FAULTS,
                    "read_committed consumers read records of transactions still open; one in four of those aborts, "
                            + "and a committed transaction that read one is an aborted read (G1a)"),
            new Entry("markers-skipped-on-failover", "no markers after a coordinator failover", TXN_QUEUE_COMPOSED,
                    "a transaction prepared when its coordinator is cut off or killed is completed by the next one "
                            + "without markers: its partitions keep it open, so the last stable offset stops there "
                            + "(liveness/hanging-transaction) or the producer's next marker decides it; the random "
                            + "packages seldom moved a coordinator mid-commit (docs/seeded-bugs.md)"),
            new Entry("zombie-not-fenced", "a fenced producer's later batches are accepted", TXN_QUEUE_FAULTS,
                    "an abort marker with a bumped epoch (a reopened client or a timed-out transaction) does not fence "
                            + "the old producer; what it still sends joins the next transaction on that partition",
                    Map.of("transaction.version", "1"),
                    "under version 2 (broker-impl's default) the coordinator refuses the old epoch when the late batch's "
                            + "partition is added, which masks the bug (ZombieUnderTransactionVersionsTest)"),
            new Entry("aborted-index-not-recovered", "the aborted-transaction index is lost on load", TXN_QUEUE_FAULTS,
                    "a killed and restarted replica, or one that truncated, forgets which transactions aborted; "
                            + "leading, it hands their records to read_committed consumers"));

    static List<String> names() {
        return ALL.stream().map(Entry::name).toList();
    }

    /** The entry of a name; an unknown name gets every known one, in one line. */
    static Entry named(String name) {
        return ALL.stream().filter(e -> e.name().equals(name)).findFirst().orElseThrow(() -> unknown(name));
    }

    private static IllegalArgumentException unknown(String name) {
        return new IllegalArgumentException("unknown seeded bug '" + name + "'; known: " + String.join(", ", names()));
    }

    /** The server properties that switch these bugs on (validated), or none for an empty list. */
    static Map<String, String> properties(List<String> bugs) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String b : bugs) {
            named(b);
            out.put(PREFIX + b, "true");
        }
        if (!out.isEmpty()) out.put(ALLOWED, "true");
        return out;
    }

    /** The bugs a configuration switches on (what `bugs` and a report name it by). */
    static List<String> switchedOn(TestConfig config) {
        return config.brokerProperties().entrySet().stream()
                .filter(e -> e.getKey().startsWith(PREFIX) && "true".equalsIgnoreCase(e.getValue()))
                .map(e -> e.getKey().substring(PREFIX.length())).sorted().toList();
    }
}
