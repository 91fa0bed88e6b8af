package io.faultline.checker.queue;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Checker;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.Records;
import io.faultline.checker.util.LongLongMap;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A deliberately simple cross-check of {@link QueueChecker}, in the spirit of Jepsen's total-queue: it ignores
 * order and only compares sets of [key value] pairs.
 * <ul>
 * <li>lost: acknowledged by a send, never returned by a poll that delivered records (ok or info, as in the
 * queue checker);</li>
 * <li>unexpected: returned by such a poll, never sent by anyone;</li>
 * <li>duplicated: returned at more than one offset of its key;</li>
 * <li>recovered: an indeterminate (info) send that a poll returned after all — informational.</li>
 * </ul>
 * Unlike a destructive queue, many consumers may read the same record, so reading a value twice is not a duplicate;
 * only the log holding it twice is.
 */
public final class TotalQueueChecker implements Checker {
    private static final long NOT_SEEN = Long.MIN_VALUE;
    private final int maxExamples;
    private final Set<String> allowed;

    public TotalQueueChecker() {
        this(QueueChecker.DEFAULT_MAX_EXAMPLES);
    }

    public TotalQueueChecker(int maxExamples) {
        this(maxExamples, Set.of());
    }

    /**
     * @param allowed the run's allowed queue anomalies, mapped onto this checker's categories: loss by design
     *                (lost-write/unseen allowed, as with acks=0) allows "lost", at-least-once delivery (duplicate
     *                allowed, as without idempotence) allows "duplicated"
     */
    public TotalQueueChecker(int maxExamples, Set<QueueAnomaly> allowed) {
        this.maxExamples = maxExamples;
        Set<String> a = new java.util.TreeSet<>(Set.of("recovered"));
        if (allowed.contains(QueueAnomaly.LOST_WRITE) || allowed.contains(QueueAnomaly.UNSEEN)) a.add("lost");
        if (allowed.contains(QueueAnomaly.DUPLICATE)) a.add("duplicated");
        this.allowed = Set.copyOf(a);
    }

    @Override
    public String name() {
        return "total-queue";
    }

    /** Per key: value → outcome of its send (as OpType ordinal), value → first offset read, and duplicates. */
    private static final class PerKey {
        final LongLongMap sent = new LongLongMap();
        final LongLongMap sentOp = new LongLongMap();
        final LongLongMap readAt = new LongLongMap();
        final LongLongMap readOp = new LongLongMap();
        final LongLongMap duplicated = new LongLongMap(4);
        /**
         * offset → a value first read there. Most records are re-reads of such a value by yet another consumer,
         * which change nothing: this array read spots them without probing readAt (millions of records).
         */
        final OffsetTable firstReadAt = new OffsetTable();
    }

    @Override
    public CheckResult analyze(List<Op> history) {
        Map<Integer, PerKey> keys = new HashMap<>();
        long attempted = 0;
        long acknowledged = 0;
        for (Op op : history) {
            if (op.type() == OpType.INVOKE) {
                continue;
            }
            for (MicroOp m : op.mops()) {
                if (m instanceof MicroOp.Send s) {
                    PerKey pk = keys.computeIfAbsent(s.key(), k -> new PerKey());
                    // A send that got its own offset back was acknowledged even inside an indeterminate op
                    // (sends within one op are not atomic), so it counts as an ok send -- unless the op is a
                    // transaction whose commit ended info (QueueRules.acknowledged).
                    OpType outcome = QueueRules.acknowledged(op, s) ? OpType.OK : op.type();
                    pk.sent.put(s.value(), outcome.ordinal());
                    pk.sentOp.put(s.value(), op.index());
                    attempted++;
                    if (outcome == OpType.OK) {
                        acknowledged++;
                    }
                } else if (m instanceof MicroOp.Poll p && p.reads() != null && QueueRules.delivers(op.type())) {
                    for (Map.Entry<Integer, List<MicroOp.Record>> e : p.reads().entrySet()) {
                        PerKey pk = keys.computeIfAbsent(e.getKey(), k -> new PerKey());
                        List<MicroOp.Record> recs = e.getValue();
                        for (int j = 0, n = recs.size(); j < n; j++) {
                            long offset = Records.offset(recs, j);
                            long value = Records.value(recs, j);
                            int slot = pk.firstReadAt.denseSlot(offset);
                            if (slot >= 0 && pk.firstReadAt.denseValue(slot) == value) {
                                continue; // value was first read at this very offset: nothing new
                            }
                            long at = pk.readAt.get(value, NOT_SEEN);
                            if (at == NOT_SEEN) {
                                pk.readAt.put(value, offset);
                                pk.readOp.put(value, op.index());
                                if (!pk.firstReadAt.contains(offset)) {
                                    pk.firstReadAt.putNew(offset, value, 0);
                                }
                            } else if (at != offset) {
                                pk.duplicated.put(value, op.index());
                            }
                        }
                    }
                }
            }
        }
        long[] tally = new long[4]; // lost, unexpected, duplicated, recovered
        long[] read = {0};
        Map<String, List<Example>> examples = new LinkedHashMap<>();
        for (Map.Entry<Integer, PerKey> e : keys.entrySet()) {
            int key = e.getKey();
            PerKey pk = e.getValue();
            pk.sent.forEach((v, type) -> {
                boolean wasRead = pk.readAt.containsKey(v);
                if (type == OpType.OK.ordinal() && !wasRead) {
                    tally[0]++;
                    example(examples, "lost", key, "key " + key + ": value " + v + " was acknowledged but never read",
                            pk.sentOp.get(v, -1));
                } else if (type == OpType.INFO.ordinal() && wasRead) {
                    tally[3]++;
                }
            });
            pk.readAt.forEach((v, offset) -> {
                read[0]++;
                if (!pk.sent.containsKey(v)) {
                    tally[1]++;
                    example(examples, "unexpected", key, "key " + key + ": value " + v + " was read at offset "
                            + offset + " but nobody sent it", pk.readOp.get(v, -1));
                }
            });
            pk.duplicated.forEach((v, opIndex) -> {
                tally[2]++;
                example(examples, "duplicated", key, "key " + key + ": value " + v + " was read at offset "
                        + pk.readAt.get(v, -1) + " and at another offset", pk.readOp.get(v, -1), opIndex);
            });
        }
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("lost", tally[0]);
        counts.put("unexpected", tally[1]);
        counts.put("duplicated", tally[2]);
        counts.put("recovered", tally[3]);
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("attempted", attempted);
        stats.put("acknowledged", acknowledged);
        stats.put("read", read[0]);
        boolean bad = counts.entrySet().stream().anyMatch(e -> e.getValue() > 0 && !allowed.contains(e.getKey()));
        Verdict verdict = bad ? Verdict.INVALID : acknowledged == 0 ? Verdict.UNKNOWN : Verdict.VALID;
        return new CheckResult(name(), verdict, counts, allowed, examples, stats,
                verdict == Verdict.UNKNOWN ? "nothing to judge: no acknowledged sends" : null);
    }

    private void example(Map<String, List<Example>> examples, String category, int key, String text, long... ops) {
        List<Example> list = examples.computeIfAbsent(category, c -> new ArrayList<>());
        if (list.size() < maxExamples) {
            List<Long> idx = new ArrayList<>();
            for (long o : ops) {
                idx.add(o);
            }
            list.add(new Example(category, key, text, idx));
        }
    }
}
