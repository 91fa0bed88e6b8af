package io.faultline.checker.queue;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.checker.history.Records;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One run of the queue analysis. Two passes over the history plus one over each key's log:
 * <ol>
 * <li>build every key's observed log, writers and first readers (and find divergence / duplicates on the way);</li>
 * <li>seal the logs into dense version orders; then walk the history again for the per-op and per-process
 * categories; finally walk each log for lost and unseen writes.</li>
 * </ol>
 * Ops are referred to by position in the list; examples report the op's own {@code index}.
 */
final class QueueAnalysis {
    private static final int MAX_LISTED = 5; // values listed inside one explanation

    private final List<Op> ops;
    private final QueueChecker.Options options;
    private final Map<Integer, KeyLog> logs = new HashMap<>();
    private final long[] counts = new long[QueueAnomaly.values().length];
    private final Map<QueueAnomaly, List<Example>> examples = new LinkedHashMap<>();
    /** Positions of info sends proven to have taken effect (one of their values was read by an OK poll). */
    private final BitSet provenInfo = new BitSet();
    private long okSendValues;
    private long okPolls;
    private long readRecords;
    private GroupCommits groupCommits;

    QueueAnalysis(List<Op> ops, QueueChecker.Options options) {
        this.ops = ops;
        this.options = options;
    }

    CheckResult run(String checkerName) {
        buildLogs();
        for (KeyLog log : logs.values()) {
            log.seal();
            log.writer.forEach((v, w) -> {
                if (ops.get((int) w).type() == OpType.FAIL) {
                    log.markFailedWrite(v);
                }
            });
        }
        reportDivergenceAndDuplicates();
        walkHistory();
        groupCommits = new GroupCommits(ops, (key, why, idxs) -> add(QueueAnomaly.GROUP_REWIND, key, why, idxs));
        groupCommits.run();
        for (KeyLog log : logs.values()) {
            lostAndUnseen(log);
        }
        return result(checkerName);
    }

    private KeyLog log(int key) {
        KeyLog l = logs.get(key);
        if (l == null) {
            l = new KeyLog(key);
            logs.put(key, l);
        }
        return l;
    }

    // ---- pass 1 -------------------------------------------------------------------------------------------

    private void buildLogs() {
        List<Integer> infoSends = new ArrayList<>();
        for (int pos = 0; pos < ops.size(); pos++) {
            Op op = ops.get(pos);
            if (op.type() == OpType.INVOKE || !(op.value() instanceof OpValue.Txn txn)) {
                continue;
            }
            boolean ok = op.type() == OpType.OK;
            // A poll that returned records but then failed to commit is indeterminate, yet its records were
            // really delivered to a client: they count as seen (for lost, unseen and aborted reads) all the same.
            boolean seen = QueueRules.delivers(op.type());
            boolean sentSomething = false;
            for (MicroOp m : txn.mops()) {
                if (m instanceof MicroOp.Send s) {
                    KeyLog l = log(s.key());
                    l.writer.put(s.value(), pos);
                    sentSomething = true;
                    if (ok) {
                        okSendValues++;
                        l.acknowledged.put(s.value(), 1);
                        if (s.offset() != null) {
                            l.observe(s.offset(), s.value(), pos);
                        }
                    } else if (QueueRules.acknowledged(op, s)) {
                        // One send of a multi-send op was acknowledged with its offset even though another
                        // failed or timed out: that one is committed as surely as an ok send. (Not in a
                        // transaction whose commit ended info: below, only a read proves it committed.)
                        l.acknowledged.put(s.value(), 1);
                        l.observe(s.offset(), s.value(), pos);
                    }
                } else if (m instanceof MicroOp.Poll p && p.reads() != null) {
                    if (ok) {
                        okPolls++;
                    }
                    for (Map.Entry<Integer, List<MicroOp.Record>> e : p.reads().entrySet()) {
                        KeyLog l = log(e.getKey());
                        List<MicroOp.Record> recs = e.getValue();
                        for (int j = 0, n = recs.size(); j < n; j++) {
                            readRecords++;
                            // Polls count for the version order whatever their outcome: a consumer must only
                            // ever be shown committed data.
                            l.observeRead(Records.offset(recs, j), Records.value(recs, j), pos, seen);
                        }
                    }
                }
            }
            if (op.type() == OpType.INFO && sentSomething) {
                infoSends.add(pos);
            }
        }
        // An indeterminate send whose effect some poll saw did happen; only then may its offsets shape the log.
        for (int pos : infoSends) {
            List<MicroOp> mops = ops.get(pos).mops();
            boolean proven = false;
            for (MicroOp m : mops) {
                if (m instanceof MicroOp.Send s && log(s.key()).reader.containsKey(s.value())) {
                    proven = true;
                    break;
                }
            }
            if (proven) {
                provenInfo.set(pos);
                for (MicroOp m : mops) {
                    if (m instanceof MicroOp.Send s && s.offset() != null) {
                        log(s.key()).observe(s.offset(), s.value(), pos);
                    }
                }
            }
        }
    }

    private void reportDivergenceAndDuplicates() {
        for (KeyLog l : logs.values()) {
            for (Map.Entry<Long, List<long[]>> e : l.divergentOps.entrySet()) {
                long offset = e.getKey();
                long firstValue = l.at.value(offset, KeyLog.NONE);
                int firstOp = (int) l.at.op(offset, -1);
                for (long[] other : e.getValue()) {
                    if (wants(QueueAnomaly.INCONSISTENT_OFFSETS)) {
                        add(QueueAnomaly.INCONSISTENT_OFFSETS, l.key,
                                "offset " + offset + " of key " + l.key + ": op " + idx(firstOp) + " saw " + firstValue
                                        + ", op " + idx((int) other[1]) + " saw " + other[0],
                                idx(firstOp), idx((int) other[1]));
                    } else {
                        counts[QueueAnomaly.INCONSISTENT_OFFSETS.ordinal()]++;
                    }
                }
            }
            for (Map.Entry<Long, java.util.TreeSet<Long>> e : l.duplicateOffsets.entrySet()) {
                long[] dupOps = l.duplicateOps.get(e.getKey());
                if (wants(QueueAnomaly.DUPLICATE)) {
                    add(QueueAnomaly.DUPLICATE, l.key, "key " + l.key + ": value " + e.getKey()
                                    + " appears at " + e.getValue().size() + " offsets " + e.getValue()
                                    + " (ops " + idx((int) dupOps[0]) + " and " + idx((int) dupOps[1]) + ")",
                            idx((int) dupOps[0]), idx((int) dupOps[1]));
                } else {
                    counts[QueueAnomaly.DUPLICATE.ordinal()]++;
                }
            }
        }
    }

    // ---- pass 2 -------------------------------------------------------------------------------------------

    /**
     * Where a process last left off on a key: the value, its offset (for polls; for sends, -1 when unknown) and
     * the op position.
     */
    private record Mark(long value, long offset, int pos) {
    }

    private void walkHistory() {
        Map<Integer, Map<Integer, Mark>> lastPoll = new HashMap<>();
        Map<Integer, Map<Integer, Mark>> lastSend = new HashMap<>();
        // Processes whose consumer is subscribed (a group member) right now; the others have a manual assignment.
        Set<Integer> subscribed = new HashSet<>();
        boolean anySubscribe = false;
        for (Op op : ops) {
            if (Op.SUBSCRIBE.equals(op.f())) {
                anySubscribe = true;
                break;
            }
        }
        for (int pos = 0; pos < ops.size(); pos++) {
            Op op = ops.get(pos);
            if (op.type() == OpType.INVOKE) {
                continue;
            }
            if (op.value() instanceof OpValue.Keys keys && op.type() != OpType.FAIL) {
                boolean subscribe = Op.SUBSCRIBE.equals(op.f());
                boolean wasSubscribed = subscribe ? !subscribed.add(op.process()) : subscribed.remove(op.process());
                if (!subscribe && wasSubscribed) {
                    // Leaving the group drops every position: the new assignment starts from committed offsets.
                    lastPoll.remove(op.process());
                }
                // A new assignment keeps a process's position only on the keys it still has; a seek to the
                // beginning or the end deliberately moves it, so those keys start afresh too.
                Set<Integer> kept = new HashSet<>(keys.keys());
                retain(lastPoll.get(op.process()), kept, keys.seeks());
                retain(lastSend.get(op.process()), kept, false);
                continue;
            }
            if (!(op.value() instanceof OpValue.Txn txn)) {
                continue;
            }
            boolean hasSend = false;
            boolean hasPoll = false;
            for (MicroOp m : txn.mops()) {
                if (m instanceof MicroOp.Send) {
                    hasSend = true;
                } else if (m instanceof MicroOp.Poll p && p.reads() != null) {
                    hasPoll = true;
                }
            }
            if (hasSend) {
                checkSends(op, pos, txn, lastSend);
            }
            if (hasPoll) {
                boolean assigned = !subscribed.contains(op.process());
                checkPolls(op, pos, txn, lastPoll, assigned, anySubscribe && assigned);
            }
            if (hasSend && hasPoll) {
                checkPrecommitted(op, txn);
            }
        }
    }

    private static void retain(Map<Integer, Mark> marks, Set<Integer> kept, boolean alsoDropKept) {
        if (marks != null) {
            marks.keySet().removeIf(k -> alsoDropKept || !kept.contains(k));
        }
    }

    /** Where a send landed: by its own offset when known (a duplicate's copies differ), else by its value. */
    private static int placeOf(KeyLog l, long offset, long value) {
        int i = offset >= 0 ? l.indexOfOffset(offset) : -1;
        return i >= 0 ? i : l.indexOf(value);
    }

    private static long offsetOrNone(MicroOp.Send s) {
        return s.offset() == null ? -1 : s.offset();
    }

    private void checkSends(Op op, int pos, OpValue.Txn txn, Map<Integer, Map<Integer, Mark>> lastSend) {
        Map<Integer, MicroOp.Send> prevInOp = new HashMap<>(4);
        Map<Integer, MicroOp.Send> firstInOp = new HashMap<>(4);
        for (MicroOp m : txn.mops()) {
            if (!(m instanceof MicroOp.Send s)) {
                continue;
            }
            KeyLog l = log(s.key());
            MicroOp.Send prev = prevInOp.put(s.key(), s);
            if (prev == null) {
                firstInOp.put(s.key(), s);
            } else {
                int i1 = placeOf(l, offsetOrNone(prev), prev.value());
                int i2 = placeOf(l, offsetOrNone(s), s.value());
                if (i1 >= 0 && i2 >= 0) {
                    int delta = i2 - i1;
                    if (delta > 1) {
                        add(QueueAnomaly.INT_SEND_SKIP, l.key, () -> "op " + op.index() + " sent " + prev.value()
                                + " then " + s.value() + " to key " + l.key + ", landing " + delta
                                + " positions apart (between: " + l.valuesBetween(i1, i2, MAX_LISTED) + ")",
                                op.index());
                    } else if (delta < 1) {
                        add(QueueAnomaly.INT_NONMONOTONIC_SEND, l.key, () -> "op " + op.index() + " sent "
                                + prev.value() + " then " + s.value() + " to key " + l.key
                                + ", but the second landed at offset " + l.offsetAtIndex(i2)
                                + ", not after the first (offset " + l.offsetAtIndex(i1) + ")", op.index());
                    }
                }
            }
        }
        if (op.type() != OpType.OK && op.type() != OpType.INFO) {
            return;
        }
        Map<Integer, Mark> marks = lastSend.computeIfAbsent(op.process(), p -> new HashMap<>());
        for (Map.Entry<Integer, MicroOp.Send> e : firstInOp.entrySet()) {
            int key = e.getKey();
            Mark last = marks.get(key);
            KeyLog l = log(key);
            MicroOp.Send first = e.getValue();
            if (last != null) {
                int i1 = placeOf(l, last.offset(), last.value());
                int i2 = placeOf(l, offsetOrNone(first), first.value());
                if (i1 >= 0 && i2 >= 0 && i2 - i1 < 1) {
                    add(QueueAnomaly.NONMONOTONIC_SEND, key, () -> "process " + op.process() + " sent "
                            + last.value() + " to key " + key + " (offset " + l.offsetAtIndex(i1)
                            + ", op " + idx(last.pos()) + "), then its next send " + first.value()
                            + " landed at offset " + l.offsetAtIndex(i2) + " (op " + op.index() + "): not after it",
                            idx(last.pos()), op.index());
                }
            }
            MicroOp.Send end = prevInOp.get(key);
            marks.put(key, new Mark(end.value(), offsetOrNone(end), pos));
        }
    }

    /**
     * @param assigned     the process's consumer has a manual assignment (not a group member): it moves only by its
     *                     own polls and seeks, so a hole between two records it read next to each other is judged
     * @param namedApart   report its skips and reversals as the assigned- categories (some consumers subscribe, so
     *                     the plain ones are allowed for the group members)
     */
    private void checkPolls(Op op, int pos, OpValue.Txn txn, Map<Integer, Map<Integer, Mark>> lastPoll,
                            boolean assigned, boolean namedApart) {
        QueueAnomaly skip = namedApart ? QueueAnomaly.ASSIGNED_POLL_SKIP : QueueAnomaly.POLL_SKIP;
        QueueAnomaly back = namedApart ? QueueAnomaly.ASSIGNED_NONMONOTONIC_POLL : QueueAnomaly.NONMONOTONIC_POLL;
        boolean ok = op.type() == OpType.OK;
        boolean judgeAgainstPrevious = QueueRules.delivers(op.type());
        Map<Integer, Mark> marks = judgeAgainstPrevious
                ? lastPoll.computeIfAbsent(op.process(), p -> new HashMap<>()) : null;
        // As kafka.clj's op-reads: an op's polls are joined per key, so a gap between two polls of one op is
        // internal (int-poll-skip), never a poll-skip between ops (which subscribe allows).
        for (Map.Entry<Integer, List<MicroOp.Record>> e : QueueRules.opReads(txn).entrySet()) {
            List<MicroOp.Record> recs = e.getValue();
            KeyLog l = log(e.getKey());
            int key = l.key;
            // Aborted reads (a value whose send definitely failed) and, within this op, consecutive records
            // that are not adjacent in the version order. Each record is placed by its own offset, so a reader
            // crossing both copies of a duplicate does not appear to jump back. Only records at an index where a
            // failed send's value was observed need the writer looked up.
            int prevIdx = -1;
            for (int j = 0, n = recs.size(); j < n; j++) {
                long offset = Records.offset(recs, j);
                long value = Records.value(recs, j);
                int curIdx = l.indexOfOffset(offset);
                if (judgeAgainstPrevious && l.mayHoldFailedWrite(curIdx)) {
                    long w = l.writer.get(value, -1);
                    if (w >= 0 && ops.get((int) w).type() == OpType.FAIL) {
                        Op writer = ops.get((int) w);
                        add(QueueAnomaly.G1A, key, () -> "key " + key + ": op " + op.index() + " polled value "
                                + value + " at offset " + offset + ", but its send (op " + writer.index()
                                + ") definitely failed", writer.index(), op.index());
                    }
                }
                if (j > 0 && prevIdx >= 0 && curIdx >= 0) {
                    int delta = curIdx - prevIdx;
                    long aValue = Records.value(recs, j - 1);
                    long aOffset = Records.offset(recs, j - 1);
                    int i1 = prevIdx;
                    int i2 = curIdx;
                    if (delta > 1) {
                        add(QueueAnomaly.INT_POLL_SKIP, key, () -> "op " + op.index() + " polled key " + key
                                + " value " + aValue + " (offset " + aOffset + ") then " + value
                                + " (offset " + offset + "), skipping " + (delta - 1) + " value(s): "
                                + l.valuesBetween(i1, i2, MAX_LISTED), op.index());
                    } else if (delta < 1) {
                        add(QueueAnomaly.INT_NONMONOTONIC_POLL, key, () -> "op " + op.index() + " polled key "
                                + key + " value " + aValue + " (offset " + aOffset + ") then " + value
                                + " (offset " + offset + "): not forward in the log", op.index());
                    } else if (assigned && ok && offset > aOffset + 1) {
                        offsetGap(op, key, aOffset, offset, "within op " + op.index());
                    }
                }
                prevIdx = curIdx;
            }
            if (!judgeAgainstPrevious) {
                continue;
            }
            // Across this process's ops: resume exactly after where the last one ended.
            Mark last = marks.get(key);
            MicroOp.Record first = recs.get(0);
            if (last != null) {
                int i1 = l.indexOfOffset(last.offset());
                int i2 = l.indexOfOffset(first.offset());
                if (i1 >= 0 && i2 >= 0) {
                    int delta = i2 - i1;
                    if (delta > 1) {
                        add(skip, key, () -> "process " + op.process() + " polled key " + key
                                + " up to value " + last.value() + " (offset " + last.offset()
                                + ", op " + idx(last.pos()) + ") then resumed at " + first.value() + " (offset "
                                + first.offset() + ", op " + op.index() + "), skipping " + (delta - 1)
                                + " value(s): " + l.valuesBetween(i1, i2, MAX_LISTED), idx(last.pos()),
                                op.index());
                    } else if (delta < 1) {
                        add(back, key, () -> "process " + op.process() + " polled key "
                                + key + " up to value " + last.value() + " (offset " + last.offset()
                                + ", op " + idx(last.pos())
                                + (delta == 0 ? ") then read it again" : ") then went back to " + first.value())
                                + " (offset " + first.offset() + ", op " + op.index() + ")", idx(last.pos()),
                                op.index());
                    } else if (assigned && ok && first.offset() > last.offset() + 1) {
                        offsetGap(op, key, last.offset(), first.offset(), "between op " + idx(last.pos())
                                + " and op " + op.index() + " of process " + op.process());
                    }
                }
            }
            if (ok) {
                MicroOp.Record end = recs.get(recs.size() - 1);
                marks.put(key, new Mark(end.value(), end.offset(), pos));
            }
        }
    }

    private void offsetGap(Op op, int key, long before, long after, String where) {
        add(QueueAnomaly.OFFSET_GAP, key, () -> "key " + key + ": a consumer with a manual assignment read offset "
                + before + " and next offset " + after + " (" + where + "); no value is known at the "
                + (after - before - 1) + " offset(s) between, yet a log without transactions or compaction has no holes",
                op.index());
    }

    private void checkPrecommitted(Op op, OpValue.Txn txn) {
        Map<Integer, Set<Long>> read = new HashMap<>();
        for (MicroOp m : txn.mops()) {
            if (m instanceof MicroOp.Poll p && p.reads() != null) {
                p.reads().forEach((k, recs) -> recs.forEach(
                        r -> read.computeIfAbsent(k, x -> new HashSet<>()).add(r.value())));
            }
        }
        for (MicroOp m : txn.mops()) {
            if (m instanceof MicroOp.Send s && read.getOrDefault(s.key(), Set.of()).contains(s.value())) {
                add(QueueAnomaly.PRECOMMITTED_READ, s.key(), () -> "op " + op.index() + " sent " + s.value()
                        + " to key " + s.key() + " and polled it back before the op had committed", op.index());
            }
        }
    }

    // ---- per key ------------------------------------------------------------------------------------------

    private void lostAndUnseen(KeyLog l) {
        // The furthest point of the log that some poll is known to have reached.
        long[] boundValue = {0};
        long[] boundReader = {-1};
        int[] b = {-1};
        l.reader.forEach((v, reader) -> {
            int i = l.indexOf(v);
            if (i > b[0]) {
                b[0] = i;
                boundValue[0] = v;
                boundReader[0] = reader;
            }
        });
        int bound = b[0];
        // Everything whose last appearance is at or below the bound should have been read by someone.
        for (int i = 0; i <= bound; i++) {
            checkLost(l, i, l.valueAtIndex(i), bound, boundValue[0], (int) boundReader[0]);
            Set<Long> others = l.otherValuesAt.isEmpty() ? null : l.otherValuesAt.get(l.offsetAtIndex(i));
            if (others != null) {
                for (long v : others) {
                    checkLost(l, i, v, bound, boundValue[0], (int) boundReader[0]);
                }
            }
        }
        l.writer.forEach((v, w) -> {
            Op writer = ops.get((int) w);
            if (l.acknowledged.containsKey(v) && !l.reader.containsKey(v)) {
                long offset = l.offsetOf.get(v, -1);
                add(QueueAnomaly.UNSEEN, l.key, () -> "key " + l.key + ": value " + v + " was acknowledged"
                        + (offset >= 0 ? " at offset " + offset : "") + " (op " + writer.index()
                        + ") but no poll ever returned it", writer.index());
            }
        });
    }

    private void checkLost(KeyLog l, int i, long v, int bound, long boundValue, int boundReader) {
        if (l.indexOf(v) != i || l.lastIndexOf(v) > bound || l.reader.containsKey(v)) {
            return; // counted at its first index only; a later copy beyond the bound may yet be read; or was read
        }
        long w = l.writer.get(v, -1);
        if (w < 0) {
            return; // nobody sent it: not a lost write (the total-queue check reports it as unexpected)
        }
        Op writer = ops.get((int) w);
        boolean mustHaveHappened = l.acknowledged.containsKey(v)
                || (writer.type() == OpType.INFO && provenInfo.get((int) w));
        if (!mustHaveHappened) {
            return;
        }
        long offset = l.offsetAtIndex(i);
        add(QueueAnomaly.LOST_WRITE, l.key, () -> "key " + l.key + ": value " + v + " at offset " + offset
                + " was sent (op " + writer.index() + ", " + writer.type().wireName() + ") but never polled, although op "
                + idx(boundReader) + " polled the later value " + boundValue + " at offset "
                + l.offsetOf.get(boundValue, -1), writer.index(), idx(boundReader));
    }

    // ---- results ------------------------------------------------------------------------------------------

    private long idx(int pos) {
        return pos < 0 ? -1 : ops.get(pos).index();
    }

    private boolean wants(QueueAnomaly a) {
        return examples.getOrDefault(a, List.of()).size() < options.maxExamples();
    }

    private void add(QueueAnomaly a, int key, String explanation, long... opIndexes) {
        add(a, key, () -> explanation, opIndexes);
    }

    /** Counts one instance; builds the explanation only if an example slot is still free. */
    private void add(QueueAnomaly a, int key, java.util.function.Supplier<String> explanation, long... opIndexes) {
        counts[a.ordinal()]++;
        List<Example> list = examples.computeIfAbsent(a, x -> new ArrayList<>());
        if (list.size() < options.maxExamples()) {
            List<Long> idxs = new ArrayList<>(opIndexes.length);
            for (long o : opIndexes) {
                idxs.add(o);
            }
            list.add(new Example(a.wireName(), key, explanation.get(), idxs));
        }
    }

    private CheckResult result(String checkerName) {
        Map<String, Long> countMap = new LinkedHashMap<>();
        Map<String, List<Example>> exampleMap = new LinkedHashMap<>();
        Set<String> allowed = new HashSet<>();
        boolean invalid = false;
        for (QueueAnomaly a : QueueAnomaly.values()) {
            long n = counts[a.ordinal()];
            countMap.put(a.wireName(), n);
            if (options.allowed().contains(a)) {
                allowed.add(a.wireName());
            } else if (n > 0) {
                invalid = true;
            }
            List<Example> ex = examples.get(a);
            if (ex != null && !ex.isEmpty()) {
                exampleMap.put(a.wireName(), ex);
            }
        }
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("ops", (long) ops.size());
        stats.put("keys", (long) logs.size());
        stats.put("ok-sent-values", okSendValues);
        stats.put("ok-polls", okPolls);
        stats.put("polled-records", readRecords);
        stats.put("group-commits", groupCommits.commits());
        stats.put("group-polls-judged", groupCommits.judgedPolls());
        stats.put("group-handovers", groupCommits.handovers());
        Verdict verdict;
        String why = null;
        if (invalid) {
            verdict = Verdict.INVALID;
        } else if (okSendValues == 0 && readRecords == 0) {
            verdict = Verdict.UNKNOWN;
            why = "nothing to judge: no send was acknowledged and no poll returned anything";
        } else {
            verdict = Verdict.VALID;
        }
        return new CheckResult(checkerName, verdict, countMap, allowed, exampleMap, stats, why);
    }
}
