package io.faultline.checker.txn;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.bench.TxnBenchmark;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Histories of a correct (serializable, real-time ordered) queue: no class may fire; one planted read must. */
class TxnGeneratedHistoryTest {
    @Test
    void correctHistoriesAreValidEvenUnderTheStrictReading() {
        for (long seed = 1; seed <= 20; seed++) {
            List<Op> ops = TxnBenchmark.generate(seed, 2_000, 5, 4);
            CheckResult r = TxnChecker.strict().check(ops);
            long s = seed;
            assertEquals(Verdict.VALID, r.verdict(), () -> "seed " + s + ": " + r);
        }
    }

    @Test
    void aReadOfTheFutureIsACycle() {
        List<Op> ops = new ArrayList<>(TxnBenchmark.generate(7, 2_000, 5, 4));
        // The first committed poll of key k is made to also return a value written later by another process.
        int reader = -1;
        Op writer = null;
        for (int i = 0; i < ops.size() && writer == null; i++) {
            Op op = ops.get(i);
            if (op.type() != OpType.OK) continue;
            for (MicroOp m : op.mops()) {
                if (reader < 0 && m instanceof MicroOp.Poll p && p.reads() != null && !p.reads().isEmpty()) {
                    reader = i;
                } else if (reader >= 0 && i > reader + 20 && op.process() != ops.get(reader).process()
                        && m instanceof MicroOp.Send s) {
                    writer = op;
                    Op r = ops.get(reader);
                    List<MicroOp> mops = new ArrayList<>(r.mops());
                    mops.add(MicroOp.poll(Map.of(s.key(), List.of(new MicroOp.Record(s.offset(), s.value())))));
                    ops.set(reader, new Op(r.index(), r.type(), r.process(), r.time(), r.f(), new OpValue.Txn(mops), null));
                    break;
                }
            }
        }
        CheckResult r = TxnChecker.strict().check(ops);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertTrue(r.count("G1c-realtime") + r.count("G-single-realtime") + r.count("G1c-process")
                + r.count("G-single-process") + r.count("G-single") + r.count("G1c") > 0, r::toString);
    }
}
