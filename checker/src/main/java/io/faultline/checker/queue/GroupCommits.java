package io.faultline.checker.queue;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The consumer group's commit contract, judged from what its members saw: at-least-once, but never before an
 * acknowledged commit ({@link QueueAnomaly#GROUP_REWIND}).
 *
 * <p>A subscribed queue consumer commits after every poll (commitSync of every assigned partition's position), and
 * the poll op ends ok only if that commit was acknowledged. For each partition the poll returned records of, the
 * position committed is the last record's offset + 1 (with read_committed it may be more, past markers: a lower
 * bound is all this needs). Once that completion is in the history, a correct coordinator has either applied the
 * commit before any later generation formed (so whoever owns the partition next fetches at least that offset) or
 * refused it (an illegal generation, an unknown member): so no ok poll of the same group that began after it may
 * return that partition's records below it. Redelivery after a rebalance is legitimate only for what was read after
 * the last acknowledged commit, and that is exactly what this leaves alone.
 *
 * <p>What is not judged, on purpose: a poll that ended info (its commit failed or timed out: a consumer fenced from
 * a generation that moved on may still have fetched from its stale position, and its records count as delivered,
 * but nothing says its group accepted anything), consumers with a manual assignment (they never commit, and keep
 * their own position), and processes whose group is not known (a failed subscribe that may have switched groups).
 * Commits a poll made for partitions it returned nothing of are not used: their positions are not in the history.
 *
 * <p>Which group a poll belongs to: the group a completed subscribe names ({@link OpValue.Keys#group()}); in
 * histories from before that was recorded, the queue workload's rules: every process starts as a fresh client in
 * the run's shared group, and a subscribe from the beginning joins a new group of its own, made for that op.
 */
final class GroupCommits {
    /** Where a broken contract is reported. */
    interface Sink {
        void rewind(int key, Supplier<String> explanation, long... opIndexes);
    }

    /** The run's shared group, in histories that do not name groups. */
    private static final String SHARED = "the workload's shared group";

    /** What one process's consumer is right now. */
    private static final class Consumer {
        /** Null: not known (its poll is not judged and its commits are not used). */
        String group = SHARED;
        boolean subscribed;
        int invokedAt = -1;
    }

    /**
     * The acknowledged commits of one (group, key), in completion order: where each completed, the highest offset
     * committed by then, and which op committed that highest offset.
     */
    private static final class Floors {
        int[] completedAt = new int[4];
        long[] floor = new long[4];
        int[] byPos = new int[4];
        int n;

        void add(int pos, long committed, int committer) {
            if (n == completedAt.length) {
                completedAt = Arrays.copyOf(completedAt, n * 2);
                floor = Arrays.copyOf(floor, n * 2);
                byPos = Arrays.copyOf(byPos, n * 2);
            }
            boolean higher = n == 0 || committed > floor[n - 1];
            completedAt[n] = pos;
            floor[n] = higher ? committed : floor[n - 1];
            byPos[n] = higher ? committer : byPos[n - 1];
            n++;
        }

        /** The last entry that completed before {@code pos}, or -1. */
        int before(int pos) {
            int lo = 0;
            int hi = n - 1;
            int found = -1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (completedAt[mid] < pos) {
                    found = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return found;
        }
    }

    private final List<Op> ops;
    private final Sink sink;
    private final Map<Integer, Consumer> consumers = new HashMap<>();
    private final Map<String, Map<Integer, Floors>> floors = new HashMap<>();
    private long commits;
    private long judged;
    private long handovers;

    GroupCommits(List<Op> ops, Sink sink) {
        this.ops = ops;
        this.sink = sink;
    }

    /** Acknowledged commits seen (one per partition an ok group poll returned records of). */
    long commits() {
        return commits;
    }

    /** Ok group polls judged against the commits acknowledged before they began. */
    long judgedPolls() {
        return judged;
    }

    /**
     * Reads of a key bound by another member's commit (the key changed hands in between, or both read it): the
     * case the contract is about, counted so a run shows whether it was exercised at all.
     */
    long handovers() {
        return handovers;
    }

    void run() {
        for (int pos = 0; pos < ops.size(); pos++) {
            Op op = ops.get(pos);
            if (op.process() < 0) {
                continue;
            }
            boolean keysOp = Op.SUBSCRIBE.equals(op.f()) || Op.ASSIGN.equals(op.f());
            if (!keysOp && !Op.POLL.equals(op.f())) {
                continue;
            }
            // A process is one client incarnation: the recorder gives a fresh client a fresh process id.
            Consumer c = consumers.computeIfAbsent(op.process(), p -> new Consumer());
            if (op.type() == OpType.INVOKE) {
                c.invokedAt = pos;
            } else if (keysOp) {
                keys(c, op);
            } else if (op.type() == OpType.OK && c.subscribed && c.group != null
                    && op.value() instanceof OpValue.Txn txn) {
                Map<Integer, List<MicroOp.Record>> reads = QueueRules.opReads(txn);
                if (!reads.isEmpty()) {
                    judge(op, pos, c, reads);
                }
            }
        }
    }

    private void keys(Consumer c, Op op) {
        boolean seek = op.value() instanceof OpValue.Keys k && k.seekToBeginning();
        String named = op.value() instanceof OpValue.Keys k ? k.group() : null;
        if (Op.ASSIGN.equals(op.f())) {
            c.subscribed = false; // a manual assignment leaves the group; a failed one leaves its state unknown
        } else if (op.type() == OpType.OK) {
            if (named != null) {
                c.group = named;
            } else if (seek) {
                c.group = "its own group (subscribed from the beginning at op " + op.index() + ")";
            }
            c.subscribed = true;
        } else {
            // Maybe refused before anything changed, maybe not: judge nothing until a subscribe says where it is.
            c.subscribed = false;
            if (seek) {
                c.group = null;
            }
        }
    }

    private void judge(Op op, int pos, Consumer c, Map<Integer, List<MicroOp.Record>> reads) {
        judged++;
        Map<Integer, Floors> byKey = floors.computeIfAbsent(c.group, g -> new HashMap<>());
        for (Map.Entry<Integer, List<MicroOp.Record>> e : reads.entrySet()) {
            int key = e.getKey();
            List<MicroOp.Record> recs = e.getValue();
            Floors f = byKey.get(key);
            int i = f == null || c.invokedAt < 0 ? -1 : f.before(c.invokedAt);
            if (i >= 0) {
                long floor = f.floor[i];
                if (ops.get(f.byPos[i]).process() != op.process()) {
                    handovers++;
                }
                int below = 0;
                MicroOp.Record lowest = null;
                for (MicroOp.Record r : recs) {
                    if (r.offset() < floor) {
                        below++;
                        if (lowest == null || r.offset() < lowest.offset()) {
                            lowest = r;
                        }
                    }
                }
                if (lowest != null) {
                    Op committer = ops.get(f.byPos[i]);
                    MicroOp.Record low = lowest;
                    int n = below;
                    String group = c.group;
                    sink.rewind(key, () -> "key " + key + ": process " + op.process() + " (" + describe(group)
                                    + ") polled offset " + low.offset() + " (value " + low.value() + ")"
                                    + (n > 1 ? " and " + (n - 1) + " more record(s)" : "") + " below offset " + floor
                                    + " in op " + op.index() + ", yet the group had committed offset " + floor
                                    + " for key " + key + " when op " + committer.index() + " of process "
                                    + committer.process() + " completed ok, before op " + op.index()
                                    + " began: an acknowledged commit was lost or overtaken by a stale one, or an"
                                    + " offset fetch returned stale data",
                            committer.index(), op.index());
                }
            }
        }
        // This poll's own commit, acknowledged now: each partition it returned records of, at the last one + 1.
        for (Map.Entry<Integer, List<MicroOp.Record>> e : reads.entrySet()) {
            List<MicroOp.Record> recs = e.getValue();
            long committed = recs.get(recs.size() - 1).offset() + 1;
            byKey.computeIfAbsent(e.getKey(), k -> new Floors()).add(pos, committed, pos);
            commits++;
        }
    }

    private static String describe(String group) {
        return group.startsWith("the ") || group.startsWith("its ") ? group : "group " + group;
    }
}
