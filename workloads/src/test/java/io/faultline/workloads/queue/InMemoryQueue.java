package io.faultline.workloads.queue;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Client;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A correct in-memory queue (optionally losing one acknowledged write on purpose), with clients for it. */
final class InMemoryQueue {
    private static final long HOLE = Long.MIN_VALUE;
    private final Map<Integer, List<Long>> logs = new HashMap<>();
    private final int loseKey;
    private final int loseNth;

    /** A queue that acknowledges but does not keep the {@code loseNth} append (1-based) to {@code loseKey}. */
    InMemoryQueue(int loseKey, int loseNth) {
        this.loseKey = loseKey;
        this.loseNth = loseNth;
    }

    InMemoryQueue() {
        this(-1, -1);
    }

    synchronized long append(int key, long value) {
        List<Long> log = logs.computeIfAbsent(key, k -> new ArrayList<>());
        log.add(key == loseKey && log.size() + 1 == loseNth ? HOLE : value);
        return log.size() - 1;
    }

    /** Forgets everything from {@code size} on, as a broker that lost an acknowledged tail. */
    synchronized void truncate(int key, int size) {
        List<Long> log = logs.getOrDefault(key, new ArrayList<>());
        while (log.size() > size) log.remove(log.size() - 1);
    }

    /** Up to {@code max} visible records from {@code from}; returns the position after the last one looked at. */
    synchronized long read(int key, long from, int max, List<MicroOp.Record> into) {
        List<Long> log = logs.getOrDefault(key, List.of());
        long at = from;
        while (at < log.size() && into.size() < max) {
            long v = log.get((int) at);
            if (v != HOLE) {
                into.add(new MicroOp.Record(at, v));
            }
            at++;
        }
        return at;
    }

    Client.Factory clients() {
        return thread -> new MemClient();
    }

    private final class MemClient implements Client {
        private final Map<Integer, Long> position = new HashMap<>();
        private boolean assigned;

        @Override
        public Completion invoke(String f, OpValue value) {
            switch (f) {
                case Op.SEND -> {
                    List<MicroOp> done = new ArrayList<>();
                    for (MicroOp m : ((OpValue.Txn) value).mops()) {
                        MicroOp.Send s = (MicroOp.Send) m;
                        done.add(s.withOffset(append(s.key(), s.value())));
                    }
                    return Completion.ok(new OpValue.Txn(done));
                }
                case Op.POLL -> {
                    if (!assigned) {
                        return new Completion(OpType.FAIL, value, "nothing assigned");
                    }
                    Map<Integer, List<MicroOp.Record>> reads = new TreeMap<>();
                    for (Map.Entry<Integer, Long> e : position.entrySet()) {
                        List<MicroOp.Record> recs = new ArrayList<>();
                        e.setValue(read(e.getKey(), e.getValue(), 5, recs));
                        if (!recs.isEmpty()) {
                            reads.put(e.getKey(), recs);
                        }
                    }
                    sleepQuietly(reads.isEmpty() ? 5 : 0); // an empty poll waits a little, like a real one
                    return Completion.ok(OpValue.Txn.of(MicroOp.poll(reads)));
                }
                case Op.ASSIGN, Op.SUBSCRIBE -> {
                    OpValue.Keys keys = (OpValue.Keys) value;
                    position.keySet().retainAll(keys.keys());
                    for (int k : keys.keys()) {
                        if (keys.seekToBeginning()) {
                            position.put(k, 0L);
                        } else {
                            position.putIfAbsent(k, 0L);
                        }
                    }
                    assigned = true;
                    return Completion.ok(keys);
                }
                default -> {
                    return new Completion(OpType.INFO, value, "crashed");
                }
            }
        }

        @Override
        public void close() {
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
