package io.faultline.workloads.trim;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Checker;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Judges the trimmed log by what DeleteRecords promises (KIP-107: records below the offset are deleted, the
 * partition's low watermark reaches it before the call succeeds, offsets never change) and what every log promises:
 * <ul>
 *   <li>{@value #LOST}: the final read holds every acknowledged write at or above the highest offset any
 *       DeleteRecords asked before it ended asked to cut (acknowledged or not: none may have removed it), and every read holds each
 *       acknowledged write between its first and last record that no cut asked before the read ended reached (the
 *       log is dense: no compaction, no transactions); once per offset;</li>
 *   <li>{@value #INCONSISTENT}: an offset holds the value whose write was acknowledged there, and every read that
 *       holds an offset holds the same value there (counted once per offset);</li>
 *   <li>{@value #UNEXPECTED}: every value read was written by someone;</li>
 *   <li>{@value #NONMONOTONIC}: offsets increase along a read, and none is below the log start the read answered;</li>
 *   <li>{@value #LOW_WATERMARK}: an acknowledged DeleteRecords answered a low watermark at or above its offset;</li>
 *   <li>{@value #START_GAP}: a read's first record is the log start offset it was answered (ListOffsets earliest), or
 *       one a DeleteRecords asked before the read ended cut to: the log is dense, so a broker that answers a start
 *       below the first record it serves claims offsets it does not have;</li>
 *   <li>{@value #RESURRECTED} (reported, allowed): a read begun after a DeleteRecords was acknowledged with low
 *       watermark lw answered a log start below lw or held a record below it. Kafka promises the cut on the replicas
 *       that are live when it answers and checkpoints log start offsets now and then, so a crash or the election of a
 *       replica that was down may bring deleted records back: shown, not judged.</li>
 * </ul>
 * Without durability in the settings (acks below all, unclean elections), a lost write, and an offset read with
 * another value than was acknowledged there (it was lost and the offset written again), are allowed too. No final
 * read, or no acknowledged write: unknown.
 */
public final class TrimChecker implements Checker {
    public static final String LOST = "trim-lost", INCONSISTENT = "trim-inconsistent", UNEXPECTED = "trim-unexpected",
            NONMONOTONIC = "trim-nonmonotonic", LOW_WATERMARK = "trim-low-watermark", RESURRECTED = "trim-resurrected",
            START_GAP = "trim-start-gap";
    private static final int MAX_EXAMPLES = 8;
    private final boolean durable;

    public TrimChecker(boolean durable) {
        this.durable = durable;
    }

    @Override
    public String name() {
        return "trimmed-log";
    }

    /** A completed read: when it was invoked and completed, and what it answered. */
    private record ReadDone(long invokedAt, long completedAt, TrimOps.Read read) {}

    @Override
    public CheckResult analyze(List<Op> history) {
        Map<Integer, Op> pending = new HashMap<>();
        Set<Long> written = new HashSet<>();
        TreeMap<Long, Long> ackedAt = new TreeMap<>(); // offset → value
        List<long[]> acknowledgedCuts = new ArrayList<>(); // {completed at, low watermark}
        List<long[]> askedCuts = new ArrayList<>(); // {invoked at, offset}: any outcome
        List<ReadDone> reads = new ArrayList<>();
        TrimOps.Read finalRead = null;
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String k : List.of(LOST, INCONSISTENT, UNEXPECTED, NONMONOTONIC, LOW_WATERMARK, START_GAP, RESURRECTED)) counts.put(k, 0L);
        Map<String, List<Example>> examples = new TreeMap<>();
        for (Op op : history) {
            if (op.process() < 0 || !TrimOps.ALL.contains(op.f())) continue;
            if (op.type() == OpType.INVOKE) {
                pending.put(op.process(), op);
                if (TrimOps.WRITE.equals(op.f())) written.add(TrimOps.parseWrite(op.value()).value());
                continue;
            }
            Op invoke = pending.remove(op.process());
            switch (op.f()) {
                case TrimOps.WRITE -> {
                    TrimOps.Write w = TrimOps.parseWrite(op.value());
                    if (op.type() == OpType.OK && w.offset() != null) ackedAt.put(w.offset(), w.value());
                }
                case TrimOps.DELETE -> {
                    TrimOps.Delete d = TrimOps.parseDelete(op.value());
                    if (d.offset() == null) continue;
                    askedCuts.add(new long[] {invoke == null ? op.time() : invoke.time(), d.offset()});
                    if (op.type() != OpType.OK || d.lowWatermark() == null) continue;
                    acknowledgedCuts.add(new long[] {op.time(), d.lowWatermark()});
                    if (d.lowWatermark() < d.offset()) {
                        add(counts, examples, LOW_WATERMARK, "DeleteRecords before offset " + d.offset()
                                + " was acknowledged with the low watermark " + d.lowWatermark());
                    }
                }
                default -> {
                    if (op.type() != OpType.OK) continue;
                    TrimOps.Read r = TrimOps.parseRead(op.value());
                    reads.add(new ReadDone(invoke == null ? op.time() : invoke.time(), op.time(), r));
                    if (TrimOps.FINAL_READ.equals(op.f())) finalRead = r;
                }
            }
        }
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("acknowledged-writes", (long) ackedAt.size());
        stats.put("acknowledged-deletes", (long) acknowledgedCuts.size());
        stats.put("reads", (long) reads.size());
        if (finalRead == null || ackedAt.isEmpty()) {
            return new CheckResult(name(), Verdict.UNKNOWN, counts, Set.of(RESURRECTED), Map.of(), stats,
                    finalRead == null ? "no final read of the trimmed topic completed" : "no write to the trimmed topic was acknowledged");
        }
        Map<Long, Long> seenAt = new HashMap<>(); // offset → the value the first read holding it had there
        Set<Long> inconsistent = new HashSet<>(); // each offset counts once, however many reads show it
        for (ReadDone done : reads) {
            TrimOps.Read r = done.read();
            long previous = -1;
            for (TrimOps.Rec rec : r.records()) {
                if (rec.offset() <= previous || rec.offset() < r.start()) {
                    add(counts, examples, NONMONOTONIC, "offset " + rec.offset() + " read after " + previous + " (log start " + r.start() + ")");
                }
                previous = Math.max(previous, rec.offset());
                if (!written.contains(rec.value())) add(counts, examples, UNEXPECTED, "offset " + rec.offset() + " holds " + rec.value() + ", which nobody wrote");
                Long acked = ackedAt.get(rec.offset());
                Long earlier = seenAt.putIfAbsent(rec.offset(), rec.value());
                boolean unlikeAcked = acked != null && acked != rec.value();
                if ((unlikeAcked || (earlier != null && earlier != rec.value())) && inconsistent.add(rec.offset())) {
                    add(counts, examples, INCONSISTENT, unlikeAcked
                            ? "offset " + rec.offset() + " holds " + rec.value() + ", but the write of " + acked + " was acknowledged there"
                            : "offset " + rec.offset() + " held " + earlier + " in one read and " + rec.value() + " in another");
                }
            }
            if (!r.records().isEmpty()) {
                long first = r.records().get(0).offset(), cutTo = cutAskedBefore(askedCuts, done.completedAt());
                if (first > Math.max(r.start(), cutTo)) {
                    add(counts, examples, START_GAP, "a read answered log start " + r.start() + " but its first record was at offset "
                            + first + (cutTo > r.start() ? " (no cut past " + cutTo + " was asked before it ended)" : ""));
                }
            }
            long lowest = r.records().isEmpty() ? r.start() : Math.min(r.start(), r.records().get(0).offset());
            long cutBefore = -1;
            for (long[] cut : acknowledgedCuts) if (cut[0] < done.invokedAt()) cutBefore = Math.max(cutBefore, cut[1]);
            if (lowest < cutBefore) {
                add(counts, examples, RESURRECTED, "a read begun after DeleteRecords was acknowledged with low watermark " + cutBefore
                        + " answered log start " + r.start() + (r.records().isEmpty() ? "" : " and held offset " + r.records().get(0).offset()));
            }
        }
        // A log without compaction or transactions is dense: a read that holds offsets a < o < b holds o, unless a
        // DeleteRecords asked to cut above o before the read ended (a consumer whose position was cut away starts
        // again at the new log start). The final read must hold every acknowledged write above every cut.
        Set<Long> lost = new HashSet<>(), judged = new HashSet<>();
        for (ReadDone done : reads) {
            TrimOps.Read r = done.read();
            boolean last = r == finalRead;
            if (r.records().isEmpty() && !last) continue;
            long cutBefore = cutAskedBefore(askedCuts, done.completedAt());
            long from = last ? cutBefore : Math.max(cutBefore, r.records().get(0).offset());
            long to = last ? Long.MAX_VALUE : r.records().get(r.records().size() - 1).offset();
            if (from > to) continue; // a cut asked while it ran reached past all it read: nothing to judge
            Set<Long> held = new HashSet<>();
            for (TrimOps.Rec rec : r.records()) held.add(rec.offset());
            for (var e : ackedAt.subMap(Math.max(from, 0), true, to, true).entrySet()) {
                judged.add(e.getKey());
                if (held.contains(e.getKey()) || !lost.add(e.getKey())) continue;
                add(counts, examples, LOST, "the write of " + e.getValue() + " was acknowledged at offset " + e.getKey() + ", and "
                        + (last ? "the final read, above every cut asked for before it ended (" + cutBefore + "), does not hold it"
                        : "a read holding offsets around it (" + r.records().get(0).offset() + " to " + to + ", no cut above "
                        + cutBefore + " asked before it ended) does not"));
            }
        }
        stats.put("writes-judged", (long) judged.size());
        stats.put("final-log-start", finalRead.start());
        Set<String> allowed = durable ? Set.of(RESURRECTED) : Set.of(RESURRECTED, LOST, INCONSISTENT, START_GAP);
        boolean invalid = counts.entrySet().stream().anyMatch(e -> e.getValue() > 0 && !allowed.contains(e.getKey()));
        return new CheckResult(name(), invalid ? Verdict.INVALID : Verdict.VALID, counts, allowed, examples, stats, null);
    }

    /** The highest offset any DeleteRecords asked, whatever its outcome, before {@code time} asked to cut below; -1 for none. */
    private static long cutAskedBefore(List<long[]> askedCuts, long time) {
        long cut = -1;
        for (long[] c : askedCuts) if (c[0] < time) cut = Math.max(cut, c[1]);
        return cut;
    }

    private static void add(Map<String, Long> counts, Map<String, List<Example>> examples, String kind, String why) {
        counts.merge(kind, 1L, Long::sum);
        List<Example> list = examples.computeIfAbsent(kind, k -> new ArrayList<>());
        if (list.size() < MAX_EXAMPLES) list.add(new Example(kind, null, why, List.of()));
    }
}
