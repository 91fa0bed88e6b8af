package io.faultline.checker.bench;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.checker.queue.QueueAnomaly;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Generates a realistic queue history from a simulated, correct broker (assign mode), optionally with a few
 * anomalies planted on purpose. Concurrent processes interleave invocations and completions; sends carry 1–3
 * micro-ops; about 3% of sends are indeterminate or failed; keys retire after a number of writes; a final phase
 * reads every key from the beginning so that a clean history is valid with nothing unseen.
 */
public final class SyntheticHistory {
    /** A log slot that reports an offset to its sender but holds nothing a poller can see. */
    private static final long HOLE = Long.MIN_VALUE;

    public record Result(List<Op> ops, Map<QueueAnomaly, Integer> planted) {
    }

    private final SplittableRandom rnd;
    private final int threads;
    private final int activeKeyCount = 16;
    private final int writesPerKey = 4000;
    private final List<Op> ops = new ArrayList<>();
    private final Map<Integer, long[]> logs = new HashMap<>(); // key → values by offset (grown by doubling)
    private final Map<Integer, Integer> logSize = new HashMap<>();
    private final int[] activeKeys;
    private final int[] writesTo;
    private int nextKey;
    private long nextValue = 1;
    private final Map<QueueAnomaly, Integer> planted = new EnumMap<>(QueueAnomaly.class);
    private final Map<QueueAnomaly, Integer> toPlant = new EnumMap<>(QueueAnomaly.class);

    // Per thread: current process, open invocation, assigned keys → next offset, keys this process has a mark on.
    private final int[] process;
    private final Op[] open;
    private final List<Map<Integer, Integer>> position = new ArrayList<>();
    private final List<Map<Integer, Boolean>> marked = new ArrayList<>();

    private SyntheticHistory(long seed, int threads, boolean plant) {
        this.rnd = new SplittableRandom(seed);
        this.threads = threads;
        this.process = new int[threads];
        this.open = new Op[threads];
        for (int t = 0; t < threads; t++) {
            process[t] = t;
            position.add(new HashMap<>());
            marked.add(new HashMap<>());
        }
        activeKeys = new int[activeKeyCount];
        writesTo = new int[activeKeyCount];
        for (int i = 0; i < activeKeyCount; i++) {
            activeKeys[i] = nextKey++;
        }
        if (plant) {
            for (QueueAnomaly a : List.of(QueueAnomaly.LOST_WRITE, QueueAnomaly.DUPLICATE,
                    QueueAnomaly.INCONSISTENT_OFFSETS, QueueAnomaly.G1A, QueueAnomaly.POLL_SKIP,
                    QueueAnomaly.NONMONOTONIC_POLL, QueueAnomaly.INT_NONMONOTONIC_SEND)) {
                toPlant.put(a, 3);
            }
        }
    }

    /** About {@code events} history entries from {@code threads} concurrent clients. */
    public static Result generate(long seed, int events, int threads, boolean plant) {
        SyntheticHistory g = new SyntheticHistory(seed, threads, plant);
        g.run(events);
        return new Result(List.copyOf(g.ops), Map.copyOf(g.planted));
    }

    private void run(int events) {
        int mainEvents = (int) (events * 0.97);
        while (ops.size() < mainEvents) {
            int t = rnd.nextInt(threads);
            if (open[t] != null) {
                complete(t);
            } else {
                invoke(t);
            }
        }
        for (int t = 0; t < threads; t++) {
            if (open[t] != null) {
                complete(t);
            }
        }
        finalReads();
    }

    // ---- one op -----------------------------------------------------------------------------------------

    private void invoke(int t) {
        int dice = rnd.nextInt(1000);
        if (dice < 470) {
            int n = 1 + rnd.nextInt(3);
            List<MicroOp> mops = new ArrayList<>(n);
            boolean sameKeyTwice = n >= 2 && want(QueueAnomaly.INT_NONMONOTONIC_SEND, 20_000);
            int firstKey = pickKey();
            for (int i = 0; i < n; i++) {
                int key = sameKeyTwice && i < 2 ? firstKey : pickKey();
                mops.add(MicroOp.Send.invoke(key, nextValue++));
            }
            record(t, OpType.INVOKE, Op.SEND, new OpValue.Txn(mops), null);
        } else if (dice < 960) {
            record(t, OpType.INVOKE, Op.POLL, OpValue.Txn.of(MicroOp.Poll.invoke()), null);
        } else if (dice < 999) {
            List<Integer> keys = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                int k = activeKeys[rnd.nextInt(activeKeyCount)];
                if (!keys.contains(k)) {
                    keys.add(k);
                }
            }
            record(t, OpType.INVOKE, Op.ASSIGN, new OpValue.Keys(keys, rnd.nextInt(4) == 0), null);
        } else {
            record(t, OpType.INVOKE, Op.CRASH, OpValue.None.INSTANCE, null);
        }
    }

    private void complete(int t) {
        Op inv = open[t];
        switch (inv.f()) {
            case Op.SEND -> completeSend(t, inv);
            case Op.POLL -> completePoll(t);
            case Op.ASSIGN -> {
                OpValue.Keys keys = (OpValue.Keys) inv.value();
                Map<Integer, Integer> pos = position.get(t);
                pos.keySet().retainAll(keys.keys());
                marked.get(t).keySet().retainAll(keys.keys());
                for (int k : keys.keys()) {
                    if (keys.seekToBeginning()) {
                        pos.put(k, 0);
                        marked.get(t).remove(k);
                    } else {
                        pos.putIfAbsent(k, 0);
                    }
                }
                record(t, OpType.OK, Op.ASSIGN, keys, null);
            }
            default -> record(t, OpType.INFO, Op.CRASH, OpValue.None.INSTANCE, "crashed on purpose");
        }
    }

    private void completeSend(int t, Op inv) {
        List<MicroOp> mops = inv.mops();
        int dice = rnd.nextInt(1000);
        OpType type = dice < 15 ? OpType.INFO : dice < 30 ? OpType.FAIL : OpType.OK;
        boolean plantG1a = type == OpType.FAIL && want(QueueAnomaly.G1A, 100);
        boolean applied = type == OpType.OK || plantG1a || (type == OpType.INFO && rnd.nextBoolean());
        List<MicroOp> done = new ArrayList<>(mops.size());
        boolean swapPlanted = false;
        for (int i = 0; i < mops.size(); i++) {
            MicroOp.Send s = (MicroOp.Send) mops.get(i);
            if (!applied) {
                done.add(s);
                continue;
            }
            boolean nextSameKey = i + 1 < mops.size() && ((MicroOp.Send) mops.get(i + 1)).key() == s.key();
            if (type == OpType.OK && nextSameKey && !swapPlanted && want(QueueAnomaly.INT_NONMONOTONIC_SEND, 1)) {
                // Planted: the broker appends this op's two sends to the key in reverse order.
                MicroOp.Send s2 = (MicroOp.Send) mops.get(i + 1);
                long o2 = append(s.key(), s2.value());
                long o1 = append(s.key(), s.value());
                done.add(s.withOffset(o1));
                done.add(s2.withOffset(o2));
                i++;
                swapPlanted = true;
                continue;
            }
            long offset;
            if (type == OpType.OK && want(QueueAnomaly.LOST_WRITE, 40_000)) {
                offset = append(s.key(), HOLE); // acknowledged, then lost
            } else {
                offset = append(s.key(), s.value());
                if (type == OpType.OK && want(QueueAnomaly.DUPLICATE, 40_000)) {
                    append(s.key(), s.value());
                }
            }
            done.add(type == OpType.OK ? s.withOffset(offset) : s);
        }
        record(t, type, Op.SEND, new OpValue.Txn(done), type == OpType.OK ? null : "synthetic");
    }

    private void completePoll(int t) {
        Map<Integer, Integer> pos = position.get(t);
        Map<Integer, List<MicroOp.Record>> reads = new TreeMap<>();
        for (Map.Entry<Integer, Integer> e : pos.entrySet()) {
            int key = e.getKey();
            int at = e.getValue();
            int size = logSize.getOrDefault(key, 0);
            boolean hasMark = marked.get(t).containsKey(key);
            if (hasMark && size - at >= 3 && want(QueueAnomaly.POLL_SKIP, 20_000)) {
                at = skipHoles(key, at + 1, size);
                at = skipHoles(key, at + 1, size);
            } else if (hasMark && at >= 2 && want(QueueAnomaly.NONMONOTONIC_POLL, 20_000)) {
                at -= 1;
            }
            List<MicroOp.Record> recs = new ArrayList<>();
            long[] log = logs.get(key);
            while (at < size && recs.size() < 8) {
                if (log[at] != HOLE) {
                    recs.add(new MicroOp.Record(at, log[at]));
                }
                at++;
            }
            if (!recs.isEmpty() && want(QueueAnomaly.INCONSISTENT_OFFSETS, 40_000)) {
                MicroOp.Record r = recs.get(0);
                recs.set(0, new MicroOp.Record(r.offset(), r.value() + 1_000_000_000_000L));
            }
            e.setValue(at);
            if (!recs.isEmpty()) {
                marked.get(t).put(key, true);
            }
            reads.put(key, recs);
        }
        record(t, OpType.OK, Op.POLL, OpValue.Txn.of(MicroOp.poll(reads)), null);
    }

    /** Moves past holes so a planted skip really skips a visible record. */
    private int skipHoles(int key, int at, int size) {
        long[] log = logs.get(key);
        while (at < size && log[at - 1] == HOLE) {
            at++;
        }
        return at;
    }

    private void finalReads() {
        for (int t = 0; t < threads; t++) {
            record(t, OpType.INVOKE, Op.CRASH, OpValue.None.INSTANCE, null);
            record(t, OpType.INFO, Op.CRASH, OpValue.None.INSTANCE, "final phase");
        }
        List<Integer> all = new ArrayList<>(logs.keySet());
        all.sort(null);
        OpValue.Keys keys = new OpValue.Keys(all, true);
        record(0, OpType.INVOKE, Op.ASSIGN, keys, null);
        record(0, OpType.OK, Op.ASSIGN, keys, null);
        Map<Integer, Integer> pos = position.get(0);
        pos.clear();
        all.forEach(k -> pos.put(k, 0));
        marked.get(0).clear();
        toPlant.clear(); // nothing planted in the final reads
        boolean more = true;
        while (more) {
            record(0, OpType.INVOKE, Op.POLL, OpValue.Txn.of(MicroOp.Poll.invoke()), null);
            completePoll(0);
            more = false;
            for (int k : all) {
                more |= pos.get(k) < logSize.getOrDefault(k, 0);
            }
        }
    }

    // ---- plumbing ---------------------------------------------------------------------------------------

    /** Whether to plant one instance of {@code a} now: with probability 1/oneIn while some remain to plant. */
    private boolean want(QueueAnomaly a, int oneIn) {
        Integer left = toPlant.get(a);
        if (left == null || left == 0 || rnd.nextInt(oneIn) != 0) {
            return false;
        }
        toPlant.put(a, left - 1);
        planted.merge(a, 1, Integer::sum);
        return true;
    }

    private int pickKey() {
        // Skewed towards the first keys, as Jepsen's exponential key distribution.
        int i = Math.min(activeKeyCount - 1, (int) (-Math.log(1 - rnd.nextDouble()) * activeKeyCount / 4));
        if (++writesTo[i] >= writesPerKey) {
            activeKeys[i] = nextKey++;
            writesTo[i] = 0;
        }
        return activeKeys[i];
    }

    private long append(int key, long value) {
        long[] log = logs.computeIfAbsent(key, k -> new long[64]);
        int size = logSize.getOrDefault(key, 0);
        if (size == log.length) {
            log = java.util.Arrays.copyOf(log, size * 2);
            logs.put(key, log);
        }
        log[size] = value;
        logSize.put(key, size + 1);
        return size;
    }

    private void record(int t, OpType type, String f, OpValue value, String error) {
        Op op = new Op(ops.size(), type, process[t], ops.size() * 1000L, f, value, error);
        ops.add(op);
        if (type == OpType.INVOKE) {
            open[t] = op;
        } else {
            open[t] = null;
            if (type == OpType.INFO) {
                process[t] += threads;
                position.get(t).clear();
                marked.get(t).clear();
            }
        }
    }
}
