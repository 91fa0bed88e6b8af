package io.faultline.harness.recovery;

import io.faultline.results.Liveness;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Turns the polls after the final heal into one timeline per subject (each broker, each partition): a sample only
 * when its state changes, plus the latest one, so a long observation stays small. Pure: it is given observations
 * and their times, and keeps no clock of its own. Not thread-safe.
 */
public final class RecoveryTracker {
    /** Timelines keep their first and last samples when a subject changes state more often than this. */
    static final int MAX_SAMPLES = 40;

    private final Instant healedAt;
    private final Map<String, Subject> subjects = new TreeMap<>();
    private int polls;
    private Instant lastAt;
    private boolean lastAllOk;
    private Instant brokersServingAt, partitionsRecoveredAt, allRecoveredAt;

    /** A partition's subject is named this followed by topic-partition. */
    public static final String PARTITION_PREFIX = "partition ";

    public RecoveryTracker(Instant healedAt) {
        this.healedAt = healedAt;
    }

    /**
     * What a subject is: a broker (asked directly), a partition (as every answering broker describes it), or the
     * transactions on a partition (as its leader's end offsets show them).
     */
    public enum Kind { BROKER, PARTITION, TRANSACTIONS }

    /**
     * One subject's timeline. {@code firstOk}: when it was first fine after the heal (null: never); {@code problem}:
     * the anomaly its latest bad sample stood for (null: never bad); {@code dropped}: samples left out of the middle.
     */
    public record Timeline(Kind kind, String firstOk, boolean lastOk, String lastState, String problem,
                           List<Liveness.Sample> samples, int dropped) {
    }

    /**
     * Everything the polls saw, as stored in recovery.json and judged by {@link LivenessCheck}.
     * Times are ISO instants; null where a condition was never seen.
     */
    public record Findings(String healedAt, String lastPollAt, int polls, String brokersServingAt,
                           String partitionsRecoveredAt, String allRecoveredAt, Map<String, Timeline> subjects) {
        public Findings {
            subjects = subjects == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(subjects));
        }
    }

    public void record(Observation o) {
        polls++;
        lastAt = o.at();
        List<NodeView> answering = o.nodes().stream().filter(NodeView::answered).toList();
        boolean brokersOk = true;
        for (NodeView n : o.nodes()) {
            String state;
            String anomaly = null;
            if (!n.answered()) {
                state = "no answer: " + n.error();
                anomaly = Liveness.UNRESPONSIVE_BROKER;
            } else {
                Set<String> notListing = new TreeSet<>();
                for (NodeView other : answering) if (!other.brokers().contains(n.brokerId())) notListing.add(other.node());
                if (notListing.isEmpty()) {
                    state = "answers; listed as registered and unfenced by every answering broker";
                } else {
                    state = "answers, but not listed as registered and unfenced by " + notListing;
                    anomaly = Liveness.FENCED_BROKER;
                }
            }
            brokersOk &= anomaly == null;
            update("broker " + n.node(), Kind.BROKER, o.at(), anomaly, state);
        }

        boolean partitionsOk = !answering.isEmpty();
        Set<String> seen = new TreeSet<>();
        if (answering.isEmpty()) {
            // nothing to look at: every partition known so far is unobserved now
            for (var e : subjects.entrySet()) {
                if (e.getValue().kind == Kind.PARTITION) seen.add(e.getKey());
            }
            for (String s : seen) update(s, Kind.PARTITION, o.at(), Liveness.UNRECOVERED_ISR, "not observed: no broker answered");
        } else {
            Map<String, Map<String, NodeView.PartitionView>> byPartition = new TreeMap<>();
            for (NodeView n : answering) {
                for (NodeView.PartitionView p : n.partitions()) {
                    // the topic lifecycle audit's own topics are created, grown and deleted beside the final drain,
                    // and judged by the audit: they are not the workload's partitions
                    if (io.faultline.harness.audit.TopicLifecycleAudit.isScratchTopic(p.topic())) continue;
                    byPartition.computeIfAbsent(p.id(), k -> new TreeMap<>()).put(n.node(), p);
                }
            }
            for (var e : byPartition.entrySet()) {
                String anomaly = null;
                Map<String, String> described = new LinkedHashMap<>();
                for (NodeView n : answering) {
                    NodeView.PartitionView p = e.getValue().get(n.node());
                    if (p == null) {
                        described.put(n.node(), "not known");
                        anomaly = Liveness.UNRECOVERED_ISR;
                        continue;
                    }
                    described.put(n.node(), p.describe());
                    if (p.leader() < 0 || !n.brokers().contains(p.leader())) anomaly = Liveness.NO_LEADER;
                    else if (!p.recovered() && anomaly == null) anomaly = Liveness.UNRECOVERED_ISR;
                }
                // Each broker fine on its own, yet not the same partition: one of them serves a stale (or invented)
                // leadership, and clients that ask it are sent to the wrong leader or fenced by the wrong epoch.
                if (anomaly == null && e.getValue().values().stream().map(NodeView.PartitionView::agreedState).distinct().count() > 1) {
                    anomaly = Liveness.DIVERGED_METADATA;
                }
                partitionsOk &= anomaly == null;
                String name = PARTITION_PREFIX + e.getKey();
                seen.add(name);
                update(name, Kind.PARTITION, o.at(), anomaly, agreeing(described));
            }
            // A partition no answering broker describes any more: with every broker answering and agreeing on the
            // brokers, and none knowing any partition of its topic, the topic was deleted (the topics workload deletes
            // its scratch topics, a delete may complete after the heal); whether that was right is the workloads'
            // checks' question (a key topic gone cannot be written), not recovery's. Otherwise its describers are gone.
            boolean everyBrokerAnswers = answering.size() == o.nodes().size() && brokersOk;
            Set<String> topicsDescribed = new TreeSet<>();
            for (NodeView n : answering) for (NodeView.PartitionView p : n.partitions()) topicsDescribed.add(p.topic());
            for (var e : subjects.entrySet()) {
                if (e.getValue().kind != Kind.PARTITION || seen.contains(e.getKey())) continue;
                String id = e.getKey().substring(PARTITION_PREFIX.length());
                String topic = id.substring(0, Math.max(0, id.lastIndexOf('-')));
                if (everyBrokerAnswers && !topicsDescribed.contains(topic)) {
                    update(e.getKey(), Kind.PARTITION, o.at(), null, "its topic no longer exists on any broker (deleted)");
                } else {
                    update(e.getKey(), Kind.PARTITION, o.at(), Liveness.UNRECOVERED_ISR, "described by no answering broker");
                    partitionsOk = false;
                }
            }
        }
        boolean transactionsOk = recordTransactions(o, answering);
        if (brokersOk && brokersServingAt == null) brokersServingAt = o.at();
        if (partitionsOk && partitionsRecoveredAt == null) partitionsRecoveredAt = o.at();
        lastAllOk = brokersOk && partitionsOk && transactionsOk;
        if (lastAllOk && allRecoveredAt == null) allRecoveredAt = o.at();
    }

    /**
     * Each partition whose leader gave its end offsets: after the heal every transaction must be decided (the producers
     * that opened them are gone, and a coordinator aborts what times out), so read_committed readers reach the high
     * watermark. A last stable offset that stays below it is a hanging transaction: its records, and everything
     * written after them, are never delivered to read_committed consumers. A partition no leader answered for is not
     * judged in that poll. Returns whether every judged partition was free of open transactions.
     */
    private boolean recordTransactions(Observation o, List<NodeView> answering) {
        boolean ok = true;
        Map<String, NodeView.PartitionView> byLeader = new TreeMap<>();
        for (NodeView n : answering) {
            for (NodeView.PartitionView p : n.partitions()) {
                if (p.leader() == n.brokerId() && p.hasEndOffsets()) byLeader.put(p.id(), p);
            }
        }
        for (NodeView.PartitionView p : byLeader.values()) {
            boolean open = !p.noOpenTransaction();
            ok &= !open;
            update("transactions on " + p.id(), Kind.TRANSACTIONS, o.at(), open ? Liveness.HANGING_TRANSACTION : null,
                    (open ? "a transaction is open: " : "none open: ") + "last stable offset " + p.lastStable()
                            + ", high watermark " + p.highWatermark() + " (leader " + p.leader() + ")");
        }
        return ok;
    }

    /** Whether the latest poll found every broker serving, every partition recovered and no transaction open. */
    public boolean lastAllOk() {
        return lastAllOk;
    }

    /** When the latest observation was taken (null before the first). */
    public Instant lastPollAt() {
        return lastAt;
    }

    public int polls() {
        return polls;
    }

    public Findings findings() {
        Map<String, Timeline> out = new TreeMap<>();
        subjects.forEach((name, s) -> out.put(name, s.timeline()));
        return new Findings(healedAt.toString(), iso(lastAt), polls, iso(brokersServingAt), iso(partitionsRecoveredAt),
                iso(allRecoveredAt), out);
    }

    private static String iso(Instant t) {
        return t == null ? null : t.toString();
    }

    /** One description when every broker agrees, else each broker's own. */
    private static String agreeing(Map<String, String> described) {
        if (new TreeSet<>(described.values()).size() == 1) return described.values().iterator().next();
        List<String> parts = new ArrayList<>();
        described.forEach((node, d) -> parts.add(node + ": " + d));
        return String.join("; ", parts);
    }

    private void update(String name, Kind kind, Instant at, String anomaly, String state) {
        subjects.computeIfAbsent(name, k -> new Subject(kind)).add(at, anomaly, state);
    }

    private double secondsAfterHeal(Instant t) {
        return Duration.between(healedAt, t).toMillis() / 1000.0;
    }

    private final class Subject {
        final Kind kind;
        final List<Liveness.Sample> head = new ArrayList<>();
        final java.util.ArrayDeque<Liveness.Sample> tail = new java.util.ArrayDeque<>();
        int dropped;
        Liveness.Sample latest; // the last poll's sample, whether or not it changed anything
        String firstOk;
        String problem;

        Subject(Kind kind) {
            this.kind = kind;
        }

        void add(Instant at, String anomaly, String state) {
            var sample = new Liveness.Sample(at.toString(), secondsAfterHeal(at), anomaly == null, state);
            boolean changed = latest == null || latest.ok() != sample.ok() || !latest.state().equals(sample.state());
            if (changed) {
                if (head.size() < MAX_SAMPLES / 2) {
                    head.add(sample);
                } else {
                    tail.addLast(sample);
                    if (tail.size() > MAX_SAMPLES / 2) {
                        tail.removeFirst();
                        dropped++;
                    }
                }
            }
            latest = sample;
            if (anomaly != null) problem = anomaly;
            if (anomaly == null && firstOk == null) firstOk = at.toString();
        }

        Timeline timeline() {
            List<Liveness.Sample> all = new ArrayList<>(head);
            all.addAll(tail);
            if (latest != null && !all.get(all.size() - 1).equals(latest)) all.add(latest);
            return new Timeline(kind, firstOk, latest != null && latest.ok(), latest == null ? null : latest.state(),
                    problem, all, dropped);
        }
    }
}
