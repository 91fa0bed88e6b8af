package io.faultline.harness.recovery;

import io.faultline.checker.Verdict;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.results.Liveness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The recovery check's judgement: from what the polls after the final heal saw ({@link RecoveryRecord}), the
 * history after the heal and the size of each node's logs, which liveness anomalies the run shows. Never throws:
 * what it cannot judge makes its verdict unknown, with the reason.
 */
public final class LivenessCheck {
    private LivenessCheck() {}

    /** Samples shown for a key's anomaly at most. */
    static final int MAX_KEY_SAMPLES = 40;

    /**
     * @param record   recovery.json (null: the run made no observation)
     * @param nodesDir the run's nodes/ folder, holding each node's console.log and logs/ (null: no log check)
     * @param history  the whole history
     * @param acknowledgedIsStored false with acks=0, where an acknowledged write may be lost by design: then a
     *                 key whose records no read returned is not called unreadable
     */
    public static Liveness judge(RecoveryRecord record, Path nodesDir, List<Op> history, boolean acknowledgedIsStored) {
        Liveness.Bounds bounds = record == null ? null : record.bounds();
        try {
            if (record == null) return Liveness.unknown("no recovery observation was recorded", null);
            if (record.unknownReason() != null) return Liveness.unknown(record.unknownReason(), bounds);
            var f = record.findings();
            if (f == null || f.polls() == 0) return Liveness.unknown("the cluster was never polled after the final heal", bounds);
            return judge(record, f, nodesDir, history, acknowledgedIsStored);
        } catch (RuntimeException e) {
            return Liveness.unknown("the recovery check failed: " + e, bounds);
        }
    }

    private static Liveness judge(RecoveryRecord record, RecoveryTracker.Findings f, Path nodesDir, List<Op> history,
                                  boolean acknowledgedIsStored) {
        Liveness.Bounds bounds = record.bounds();
        Instant healed = Instant.parse(f.healedAt());
        Instant lastPoll = Instant.parse(f.lastPollAt());
        Instant deadline = healed.plusMillis((long) (bounds.recoverySeconds() * 1000));
        List<Liveness.Anomaly> anomalies = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        List<String> notes = new ArrayList<>();

        f.subjects().forEach((subject, t) -> {
            if (!t.lastOk()) {
                if (lastPoll.isBefore(deadline)) {
                    unknown.add(subject + " had not recovered when the polls ended " + secs(healed, lastPoll)
                            + " s after the heal, before the " + bounds.recoverySeconds() + " s bound");
                } else {
                    anomalies.add(new Liveness.Anomaly(t.problem(), subject, "still " + t.lastState() + " at the last poll, "
                            + secs(healed, lastPoll) + " s after the final heal (bound " + bounds.recoverySeconds() + " s)",
                            t.samples()));
                }
            } else if (t.problem() != null && t.firstOk() != null && Instant.parse(t.firstOk()).isAfter(deadline)) {
                // seen wrong, and fine only after the bound (a subject first polled after the bound and fine is fine)
                anomalies.add(new Liveness.Anomaly(t.problem(), subject, "recovered only "
                        + secs(healed, Instant.parse(t.firstOk())) + " s after the final heal (bound "
                        + bounds.recoverySeconds() + " s)", t.samples()));
            }
        });
        if (f.subjects().keySet().stream().noneMatch(s -> s.startsWith(RecoveryTracker.PARTITION_PREFIX))) {
            notes.add("no partition was described by any broker after the heal");
        }

        if (record.quiescedSeconds() >= RecoveryRecord.CONVERGED_AFTER_SECONDS) {
            anomalies.addAll(unconvergedReplicas(f, nodesDir));
        } else {
            notes.add("replicas' high watermarks and log ends not compared: the cluster stopped without "
                    + RecoveryRecord.CONVERGED_AFTER_SECONDS + " s without writes (runs shorter than 60 s do not wait for it)");
        }
        anomalies.addAll(keys(history, record.healedAtHistoryNanos(), healed, acknowledgedIsStored, notes));
        anomalies.addAll(newGroups(history, record.healedAtHistoryNanos(), healed, notes));
        anomalies.addAll(sideOpsAfterHeal(history, record.healedAtHistoryNanos(), healed));
        Map<String, Liveness.LogGrowth> growth = logGrowth(record, nodesDir, notes);
        growth.forEach((node, g) -> {
            if (g.bytesPerSecond() > bounds.logBytesPerSecond()) {
                anomalies.add(new Liveness.Anomaly(Liveness.LOG_FLOOD, "node " + node, String.format(java.util.Locale.ROOT,
                        "its logs grew by %d bytes in %.0f s: %.0f bytes/s, above the limit of %d bytes/s",
                        g.bytes(), g.seconds(), g.bytesPerSecond(), bounds.logBytesPerSecond()), List.of()));
            }
        });

        var timings = new Liveness.Timings(after(healed, f.brokersServingAt()), after(healed, f.partitionsRecoveredAt()),
                after(healed, f.allRecoveredAt()),
                record.healStartedAt() == null ? 0 : Duration.between(Instant.parse(record.healStartedAt()), healed).toMillis() / 1000.0,
                Duration.between(healed, lastPoll).toMillis() / 1000.0, f.polls());
        Verdict verdict = !anomalies.isEmpty() ? Verdict.INVALID : !unknown.isEmpty() ? Verdict.UNKNOWN : Verdict.VALID;
        return new Liveness(verdict, unknown.isEmpty() ? null : String.join("; ", unknown), bounds, timings, anomalies,
                growth, notes);
    }

    /**
     * Every workload partition the last poll saw with its whole replica set in the ISR must have one high watermark
     * on all its replicas when the cluster stopped (each replica's {@code replication-offset-checkpoint}, written
     * every 5 s) and one log end (its segment files): no write came for a while first, so every follower had fetched
     * the leader's whole log, been told its high watermark and checkpointed it. Internal topics are left out (a
     * group's last commit may race the stop).
     */
    static List<Liveness.Anomaly> unconvergedReplicas(RecoveryTracker.Findings f, Path nodesDir) {
        List<Liveness.Anomaly> out = new ArrayList<>();
        if (nodesDir == null) return out;
        Map<String, Map<String, Long>> byNode = io.faultline.results.ReplicaAgreement.highWatermarks(nodesDir);
        f.subjects().forEach((subject, t) -> {
            if (t.kind() != RecoveryTracker.Kind.PARTITION || !t.lastOk() || !subject.startsWith(RecoveryTracker.PARTITION_PREFIX)) return;
            String partition = subject.substring(RecoveryTracker.PARTITION_PREFIX.length());
            if (partition.startsWith("__")) return;
            Map<String, Long> hws = new TreeMap<>();
            byNode.forEach((node, m) -> {
                Long hw = m.get(partition);
                if (hw != null) hws.put(node, hw);
            });
            Map<String, Long> ends = io.faultline.results.ReplicaAgreement.logEnds(nodesDir, partition);
            List<String> differ = new ArrayList<>();
            if (hws.size() >= 2 && new java.util.HashSet<>(hws.values()).size() > 1) differ.add("checkpointed high watermarks " + hws);
            if (ends.size() >= 2 && new java.util.HashSet<>(ends.values()).size() > 1) differ.add("log ends " + ends);
            if (differ.isEmpty()) return;
            out.add(new Liveness.Anomaly(Liveness.UNCONVERGED_REPLICAS, subject, String.join(" and ", differ)
                    + " when the cluster stopped, though the last poll saw " + t.lastState(), List.of()));
        });
        return out;
    }

    /**
     * The side workloads' ops after the heal that {@link io.faultline.workloads.Workload.FinalReads#tried} repeats
     * while refused: safe to repeat, so one refusal may be a passing error, but every try refused is the cluster's.
     * (A scratch topic's creation is not among them: a retry of one that may have happened is refused as existing.)
     */
    static final java.util.Set<String> TRIED_AFTER_HEAL = java.util.Set.of(io.faultline.workloads.kv.KvOps.WRITE,
            io.faultline.workloads.kv.KvOps.READ, io.faultline.workloads.trim.TrimOps.WRITE, io.faultline.workloads.trim.TrimOps.DELETE,
            io.faultline.workloads.trim.TrimOps.FINAL_READ, io.faultline.workloads.topics.TopicOps.DESCRIBE,
            io.faultline.workloads.offsets.OffsetOps.READ);

    /**
     * Each side op invoked after the heal (the same op and value, tried again while refused) must succeed once;
     * anomaly {@link Liveness#REFUSED_AFTER_HEAL} with its tries otherwise. Ops invoked before the heal are not
     * judged here: the heal may have cut them short.
     */
    static List<Liveness.Anomaly> sideOpsAfterHeal(List<Op> history, long healNanos, Instant healed) {
        Map<Integer, Op> invoked = new HashMap<>();
        Map<String, List<Liveness.Sample>> tries = new TreeMap<>();
        java.util.Set<String> succeeded = new java.util.HashSet<>();
        for (Op op : history) {
            if (op.process() == Op.NEMESIS || !TRIED_AFTER_HEAL.contains(op.f())) continue;
            if (op.type() == OpType.INVOKE) {
                if (op.time() >= healNanos) invoked.put(op.process(), op);
                continue;
            }
            Op inv = invoked.remove(op.process());
            if (inv == null) continue;
            String what = (op.f() + " " + (inv.value() instanceof OpValue.Text t ? t.text() : String.valueOf(inv.value()))).strip();
            if (op.type() == OpType.OK) succeeded.add(what);
            List<Liveness.Sample> list = tries.computeIfAbsent(what, k -> new ArrayList<>());
            if (list.size() < MAX_KEY_SAMPLES) {
                list.add(new Liveness.Sample(healed.plusNanos(op.time() - healNanos).toString(), (op.time() - healNanos) / 1e9,
                        op.type() == OpType.OK, what + ": " + op.type().wireName() + (op.error() == null ? "" : " (" + op.error() + ")")));
            }
        }
        List<Liveness.Anomaly> out = new ArrayList<>();
        tries.forEach((what, samples) -> {
            if (!succeeded.contains(what)) {
                out.add(new Liveness.Anomaly(Liveness.REFUSED_AFTER_HEAL, what, samples.size()
                        + " tries after the final heal and the recovery wait, none succeeded", samples));
            }
        });
        return out;
    }

    /**
     * Every key written to after the heal (writes invoked after it) must take at least one write, and when reads after the heal succeeded, they
     * must return records of each key acknowledged after the heal (the final writes and the final drain do both).
     */
    static List<Liveness.Anomaly> keys(List<Op> history, long healNanos, Instant healed, boolean acknowledgedIsStored,
                                       List<String> notes) {
        Map<Integer, List<Liveness.Sample>> attempts = new TreeMap<>();
        TreeSet<Integer> writtenAfter = new TreeSet<>(), readAfter = new TreeSet<>();
        boolean anyReadAfter = false;
        // A write is judged by when it was invoked: one sent before the heal may still be in flight across it (the
        // heal begins as the main phase ends) and time out afterwards, which says nothing about the healed cluster.
        Map<Integer, Long> invokedAt = new HashMap<>();
        for (Op op : history) {
            if (op.process() == Op.NEMESIS) continue;
            if (op.type() == OpType.INVOKE) {
                invokedAt.put(op.process(), op.time());
                continue;
            }
            boolean after = op.time() >= healNanos;
            boolean invokedAfter = invokedAt.getOrDefault(op.process(), op.time()) >= healNanos;
            invokedAt.remove(op.process());
            for (MicroOp m : op.mops()) {
                if (m instanceof MicroOp.Send s) {
                    if (!invokedAfter) continue;
                    if (op.type() == OpType.OK) writtenAfter.add(s.key());
                    List<Liveness.Sample> list = attempts.computeIfAbsent(s.key(), k -> new ArrayList<>());
                    String state = "send " + s.value() + ": " + op.type().wireName()
                            + (op.type() == OpType.OK && s.offset() != null ? " at offset " + s.offset() : "")
                            + (op.error() == null ? "" : " (" + op.error() + ")");
                    Instant at = healed.plusNanos(op.time() - healNanos);
                    if (list.size() < MAX_KEY_SAMPLES) {
                        list.add(new Liveness.Sample(at.toString(), (op.time() - healNanos) / 1e9, op.type() == OpType.OK, state));
                    }
                } else if (m instanceof MicroOp.Poll p && after && op.type() == OpType.OK) {
                    anyReadAfter = true;
                    p.readsOrEmpty().forEach((k, recs) -> {
                        if (!recs.isEmpty()) readAfter.add(k);
                    });
                }
            }
        }
        List<Liveness.Anomaly> out = new ArrayList<>();
        if (attempts.isEmpty()) notes.add("no write was attempted after the final heal: writability not judged");
        attempts.forEach((key, samples) -> {
            if (!writtenAfter.contains(key)) {
                out.add(new Liveness.Anomaly(Liveness.UNWRITABLE_KEY, "key " + key, samples.size()
                        + " writes attempted after the final heal, none acknowledged", samples));
            }
        });
        if (!anyReadAfter) {
            notes.add("no read after the final heal succeeded: readability not judged");
        } else if (!acknowledgedIsStored) {
            notes.add("acks=0: an acknowledged write may be lost by design, so readability is not judged");
        } else {
            for (int key : writtenAfter) {
                if (!readAfter.contains(key)) {
                    out.add(new Liveness.Anomaly(Liveness.UNREADABLE_KEY, "key " + key, "writes were acknowledged after"
                            + " the final heal, but no successful read after it returned any record of this key",
                            attempts.getOrDefault(key, List.of())));
                }
            }
        }
        return out;
    }

    /**
     * A consumer that joins a new consumer group after the heal (a subscribe with a fresh group, which the queue's
     * final drain makes on one worker) must be given partitions and read records: a group with a single new member
     * has nobody to wait for, so only a coordinator that cannot form groups (join, sync, assignment) or serve
     * fetches to a member leaves it empty-handed. Judged when such a reader polled after the heal and writes were
     * acknowledged after it; anomaly {@code liveness/unreadable-group} with that reader's polls.
     *
     * <p>Then that reader's place is taken by a new member of the same group while it departs without leaving, as a
     * crashed consumer does (a subscribe naming the group; the drain does it while records are left to read). The
     * coordinator must expire the departed member when its session ends and give its partitions to the newcomer,
     * which then reads on from the group's committed offsets: the same anomaly when the newcomer got no record
     * within {@link #TAKEOVER_BOUND} of joining though it kept polling that long and other readers were served
     * after the heal.
     */
    static List<Liveness.Anomaly> newGroups(List<Op> history, long healNanos, Instant healed, List<String> notes) {
        java.util.Set<Integer> readers = new java.util.HashSet<>();
        Map<Integer, Long> takeovers = new java.util.HashMap<>();
        List<Liveness.Sample> polls = new ArrayList<>();
        List<Liveness.Sample> afterTakeover = new ArrayList<>();
        boolean anyRecord = false;
        boolean anyAcknowledged = false;
        boolean othersRead = false;
        boolean takeoverServed = false;
        long lastPollAfterTakeover = -1;
        for (Op op : history) {
            if (op.process() == Op.NEMESIS || op.type() == OpType.INVOKE || op.time() < healNanos) continue;
            if (Op.SUBSCRIBE.equals(op.f()) && op.type() == OpType.OK
                    && op.value() instanceof io.faultline.checker.history.OpValue.Keys k) {
                if (k.seekToBeginning()) {
                    readers.add(op.process());
                    takeovers.remove(op.process());
                } else if (readers.contains(op.process()) && k.group() != null) {
                    takeovers.put(op.process(), op.time());
                }
                continue;
            }
            for (MicroOp m : op.mops()) {
                if (m instanceof MicroOp.Send && op.type() == OpType.OK) anyAcknowledged = true;
                if (!(m instanceof MicroOp.Poll p)) continue;
                int n = p.readsOrEmpty().values().stream().mapToInt(List::size).sum();
                boolean served = op.type() == OpType.OK && n > 0;
                if (!readers.contains(op.process())) {
                    othersRead |= served;
                    continue;
                }
                anyRecord |= served;
                var sample = new Liveness.Sample(healed.plusNanos(op.time() - healNanos).toString(),
                        (op.time() - healNanos) / 1e9, n > 0, "process " + op.process() + " poll: "
                        + op.type().wireName() + ", " + n + " records" + (op.error() == null ? "" : " (" + op.error() + ")"));
                if (polls.size() < MAX_KEY_SAMPLES) polls.add(sample);
                Long joined = takeovers.get(op.process());
                if (joined != null && !takeoverServed) {
                    takeoverServed = served;
                    lastPollAfterTakeover = Math.max(lastPollAfterTakeover, op.time() - joined);
                    if (afterTakeover.size() < MAX_KEY_SAMPLES) afterTakeover.add(sample);
                }
            }
        }
        if (readers.isEmpty() || polls.isEmpty()) {
            notes.add("no consumer joined a new group after the final heal: group formation not judged");
            return List.of();
        }
        if (!anyAcknowledged) {
            notes.add("no write was acknowledged after the final heal: group formation not judged");
            return List.of();
        }
        if (!anyRecord) {
            return List.of(new Liveness.Anomaly(Liveness.UNREADABLE_GROUP, "new consumer group", "a consumer that joined"
                    + " a new group after the final heal polled " + polls.size() + (polls.size() == MAX_KEY_SAMPLES ? "+" : "")
                    + " times and was never given a record, though writes were acknowledged after the heal", polls));
        }
        if (takeovers.isEmpty() || takeoverServed) return List.of();
        if (!othersRead) {
            notes.add("no other reader was served after the final heal: the group's takeover not judged");
            return List.of();
        }
        if (lastPollAfterTakeover < TAKEOVER_BOUND.toNanos()) {
            notes.add(String.format("the drain ended %.1f s after a member took a departed one's place in its group,"
                    + " before the %d s bound: the takeover not judged", Math.max(0, lastPollAfterTakeover) / 1e9,
                    TAKEOVER_BOUND.toSeconds()));
            return List.of();
        }
        return List.of(new Liveness.Anomaly(Liveness.UNREADABLE_GROUP, "consumer group after a member departed",
                "a consumer took the place of a member that departed without leaving (its session left to expire) and"
                        + " polled for " + TAKEOVER_BOUND.toSeconds() + " s and more without being given a record, while"
                        + " other readers were served and records were left to read from the group's committed offsets",
                afterTakeover));
    }

    /**
     * How long a member that took a departed one's place may go without records: the departed member's session (6 s),
     * a rebalance round and reading, with room for a loaded machine.
     */
    static final Duration TAKEOVER_BOUND = Duration.ofSeconds(20);

    /** Per node: bytes of console.log and logs/**.log over the cluster's life (its logs' whole span). */
    static Map<String, Liveness.LogGrowth> logGrowth(RecoveryRecord record, Path nodesDir, List<String> notes) {
        Map<String, Liveness.LogGrowth> out = new TreeMap<>();
        if (nodesDir == null || !Files.isDirectory(nodesDir)) {
            notes.add("no node logs were collected: log growth not judged");
            return out;
        }
        if (record.clusterStartedAt() == null || record.clusterStoppedAt() == null) {
            notes.add("the cluster's start or stop time is unknown: log growth not judged");
            return out;
        }
        double seconds = Duration.between(Instant.parse(record.clusterStartedAt()), Instant.parse(record.clusterStoppedAt()))
                .toMillis() / 1000.0;
        if (seconds <= 0) return out;
        try (Stream<Path> nodes = Files.list(nodesDir)) {
            for (Path node : nodes.filter(Files::isDirectory).sorted().toList()) {
                long bytes = size(node.resolve("console.log"));
                Path logs = node.resolve("logs");
                if (Files.isDirectory(logs)) {
                    try (Stream<Path> files = Files.walk(logs, 3)) {
                        bytes += files.filter(p -> p.getFileName().toString().endsWith(".log")).mapToLong(LivenessCheck::size).sum();
                    }
                }
                out.put(node.getFileName().toString(), new Liveness.LogGrowth(bytes, seconds, bytes / seconds));
            }
        } catch (IOException e) {
            notes.add("node logs could not be listed: " + e.getMessage());
        }
        return out;
    }

    private static long size(Path p) {
        try {
            return Files.isRegularFile(p) ? Files.size(p) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private static Double after(Instant healed, String at) {
        return at == null ? null : Duration.between(healed, Instant.parse(at)).toMillis() / 1000.0;
    }

    private static String secs(Instant from, Instant to) {
        return String.format(java.util.Locale.ROOT, "%.1f", Duration.between(from, to).toMillis() / 1000.0);
    }
}
