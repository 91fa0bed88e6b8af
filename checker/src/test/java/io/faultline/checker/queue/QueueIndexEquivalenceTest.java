package io.faultline.checker.queue;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Example;
import io.faultline.checker.bench.SyntheticHistory;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The analysis has two ways to find a record's place (an array over dense offsets, a binary search over sparse
 * ones) and two ways to gather an op's reads (the one poll's map as is, or joined per key). Each pair must find
 * the very same anomalies in a history with every kind planted.
 */
class QueueIndexEquivalenceTest {
    static final List<Op> PLANTED = SyntheticHistory.generate(11, 20_000, 6, true).ops();

    /** The history with every op's value rewritten by {@code f}. */
    static List<Op> mapMops(List<Op> ops, Function<List<MicroOp>, List<MicroOp>> f) {
        List<Op> out = new ArrayList<>(ops.size());
        for (Op op : ops) {
            out.add(op.value() instanceof OpValue.Txn t
                    ? new Op(op.index(), op.type(), op.process(), op.time(), op.f(), new OpValue.Txn(f.apply(t.mops())),
                    op.error())
                    : op);
        }
        return out;
    }

    /** Offsets spread 1000 apart: too sparse for the array, so every lookup searches. */
    static List<Op> sparse(List<Op> ops) {
        return mapMops(ops, mops -> mops.stream().map(m -> {
            if (m instanceof MicroOp.Send s) {
                return (MicroOp) (s.offset() == null ? s : s.withOffset(s.offset() * 1000 + 7));
            }
            MicroOp.Poll p = (MicroOp.Poll) m;
            if (p.reads() == null) return p;
            Map<Integer, List<MicroOp.Record>> reads = new LinkedHashMap<>();
            p.reads().forEach((k, recs) -> reads.put(k,
                    recs.stream().map(r -> new MicroOp.Record(r.offset() * 1000 + 7, r.value())).toList()));
            return (MicroOp) new MicroOp.Poll(reads);
        }).toList());
    }

    /** Each poll split in two (the second also listing every key with nothing read), so reads must be joined. */
    static List<Op> splitPolls(List<Op> ops) {
        return mapMops(ops, mops -> {
            List<MicroOp> out = new ArrayList<>();
            for (MicroOp m : mops) {
                if (m instanceof MicroOp.Poll p && p.reads() != null) {
                    Map<Integer, List<MicroOp.Record>> a = new LinkedHashMap<>();
                    Map<Integer, List<MicroOp.Record>> b = new LinkedHashMap<>();
                    p.reads().forEach((k, recs) -> {
                        a.put(k, recs.subList(0, recs.size() / 2));
                        b.put(k, recs.subList(recs.size() / 2, recs.size()));
                    });
                    out.add(new MicroOp.Poll(a));
                    out.add(new MicroOp.Poll(b));
                } else {
                    out.add(m);
                }
            }
            return out;
        });
    }

    /**
     * Everything but the explanations' wording (which names offsets): verdict, counts, example keys and ops. Holes
     * (offset-gap, allowed by these checkers) are left out: spreading the offsets apart makes them by construction.
     */
    static String shape(CheckResult r) {
        Map<String, Long> counts = new LinkedHashMap<>(r.counts());
        counts.remove("offset-gap");
        StringBuilder sb = new StringBuilder(r.verdict() + " " + counts + "\n");
        r.examples().forEach((cat, list) -> {
            if (cat.equals("offset-gap")) return;
            for (Example e : list) sb.append(cat).append(' ').append(e.key()).append(' ').append(e.ops()).append('\n');
        });
        return sb.toString();
    }

    @Test
    void denseAndSparseOffsetsFindTheSameAnomalies() {
        for (boolean subscribe : new boolean[] {false, true}) {
            CheckResult dense = QueueChecker.forRun(subscribe).check(PLANTED);
            CheckResult sparse = QueueChecker.forRun(subscribe).check(sparse(PLANTED));
            assertEquals(shape(dense), shape(sparse));
            assertTrue(dense.counts().values().stream().filter(n -> n > 0).count() >= 5, dense::toString);
        }
    }

    @Test
    void onePollOrTwoPollsPerOpFindTheSameAnomalies() {
        CheckResult one = QueueChecker.forRun(false).check(PLANTED);
        CheckResult two = QueueChecker.forRun(false).check(splitPolls(PLANTED));
        assertEquals(shape(one), shape(two)); // stats differ: twice as many polls
        assertEquals(one.examples(), two.examples());
        CheckResult totalOne = new TotalQueueChecker().check(PLANTED);
        CheckResult totalTwo = new TotalQueueChecker().check(splitPolls(PLANTED));
        assertEquals(totalOne.toString(), totalTwo.toString());
    }
}
