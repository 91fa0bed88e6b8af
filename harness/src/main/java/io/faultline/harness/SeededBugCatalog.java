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

    /** The conditions a bug needs to show: workload, faults and client/broker settings (3 nodes, rf 3). */
    record Mix(String workload, List<String> nemesis, String acks, boolean idempotence, int replicationFactor,
               int minIsr, int keys, int nemesisIntervalSeconds) {
        Mix {
            nemesis = List.copyOf(nemesis);
        }

        String describe() {
            return workload + ", " + String.join("+", nemesis) + ", acks=" + acks
                    + (idempotence ? ", idempotent" : "") + ", rf " + replicationFactor + ", min-isr " + minIsr + ", " + keys
                    + (keys == 1 ? " key" : " keys") + ", faults every ~" + nemesisIntervalSeconds + " s";
        }
    }

    /** One seeded bug: its name, the mistake in one line, the mix that exposes it and why that mix. */
    record Entry(String name, String mistake, Mix mix, String why) {}

    // Leader-aimed partitions and kills, one every ~6 s (a fault window and a healthy one of ~3 s each): an isolated
    // or killed leader is where every replication mistake bites, and a divergence shows once a deposed leader leads
    // again, which takes several leader changes in one run.
    // One key: all writes go to the one partition whose leader the aimed faults pick.
    private static final Mix QUEUE_LEADER_FAULTS = new Mix("queue", List.of("partition", "kill"), "all", true, 3, 2, 1, 3);
    // A segment's tail cut or flipped while the node is down (one node per run), between kills: a restarted node
    // boots for seconds, so a kill and the next disk fault overlap and the ISR can shrink to the node that is hit.
    private static final Mix QUEUE_DISK = new Mix("queue", List.of("kill", "disk"), "all", true, 3, 2, 1, 3);
    // Committed consumer offsets as registers: loss of a commit shows as a non-linearizable read. Partitions only, aimed
    // by the workload at the group's coordinator: a cut-off coordinator with the bug acknowledges commits for as long
    // as the cut lasts while clients that find the new one read past them. A killed one loses only its last few
    // milliseconds of commits, which a later write often hides: with partition+kill three hunts needed runs 3, 1 and
    // 3, and every run that missed had no cut of the current coordinator.
    private static final Mix OFFSETS_LEADER_FAULTS = new Mix("offsets", List.of("partition"), "all", true, 3, 2, 2, 3);

    static final List<Entry> ALL = List.of(
            new Entry("hw-from-leader-leo", "HW advanced from the leader's own log end", QUEUE_LEADER_FAULTS,
                    "acks and reads run ahead of replication; an isolated or killed leader loses them"),
            new Entry("acks-all-leader-only", "acks=all answered after the leader append", QUEUE_LEADER_FAULTS,
                    "writes acknowledged by an isolated leader are lost when another replica takes over"),
            new Entry("min-isr-ignored", "min.insync.replicas not enforced", QUEUE_DISK,
                    "the ISR shrinks to the leader under a partition; a torn tail on that sole copy loses acknowledged writes"),
            new Entry("follower-no-truncate", "follower never truncates on leader change", QUEUE_LEADER_FAULTS,
                    "a deposed leader keeps its unreplicated tail; when it leads again replicas differ at the same offsets"),
            new Entry("election-ignores-isr", "clean election ignores the ISR", QUEUE_LEADER_FAULTS,
                    "a lagging replica cut off by a partition is elected when the leader dies"),
            new Entry("epoch-not-bumped", "leader epoch not bumped on election", QUEUE_LEADER_FAULTS,
                    "without a new epoch, truncation and fencing after a leader change go wrong"),
            new Entry("fenced-leader-serves", "a fenced or deposed leader keeps serving", QUEUE_LEADER_FAULTS,
                    "an isolated old leader keeps taking writes and serving reads next to the new one"),
            new Entry("read-past-hw", "consumers read past the high watermark", QUEUE_LEADER_FAULTS,
                    "values read from an isolated leader's unreplicated tail are truncated and replaced"),
            new Entry("isr-shrink-local", "ISR shrunk locally without the controller", QUEUE_LEADER_FAULTS,
                    "the leader acknowledges alone after shrinking its own ISR; the controller elects a replica without those writes"),
            new Entry("dedup-not-rebuilt", "producer dedup state not rebuilt on followers", QUEUE_LEADER_FAULTS,
                    "an idempotent producer's retry after a leader kill is appended twice by the new leader"),
            new Entry("offset-commit-unreplicated", "offset commit answered before replicated", OFFSETS_LEADER_FAULTS,
                    "a commit acknowledged by a cut-off coordinator is gone when the next one reads"),
            new Entry("recovery-keeps-torn-batch", "recovery keeps a torn last batch", QUEUE_DISK,
                    "a crashed node whose segment tail was cut restarts with the torn batch in its log"));

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
