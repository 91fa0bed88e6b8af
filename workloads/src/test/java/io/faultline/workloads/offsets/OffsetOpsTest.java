package io.faultline.workloads.offsets;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.checker.linear.LinOp;
import io.faultline.checker.linear.LinearizabilityChecker;
import io.faultline.checker.linear.RegisterModel;
import io.faultline.checker.linear.RegisterOp;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OffsetOpsTest {

    /** Builds a history op by op; times are whatever the test says. */
    private static final class H {
        final List<Op> ops = new ArrayList<>();

        H op(OpType type, int process, long time, String f, String text) {
            ops.add(new Op(ops.size(), type, process, time, f, new OpValue.Text(text), type == OpType.INFO ? "timeout" : null));
            return this;
        }
    }

    private static CheckResult check(List<Op> ops) {
        var opts = new LinearizabilityChecker.Options(Duration.ofSeconds(30), 1_000_000, 8, () -> 0L);
        return new OffsetChecker("t", opts).check(ops);
    }

    /** Linearizable, but vacuously: a run whose writes and reads all failed (or never ran) tested nothing. */
    @Test
    void aRunWithNoCompletedWriteOrReadIsUnknownNotValid() {
        assertEquals(Verdict.UNKNOWN, check(List.of()).verdict());
        H failedOnly = new H().op(OpType.INVOKE, 0, 1, "write", "1 10").op(OpType.FAIL, 0, 2, "write", "1 10")
                .op(OpType.INVOKE, 1, 3, "read", "1").op(OpType.FAIL, 1, 4, "read", "1");
        CheckResult r = check(failedOnly.ops);
        assertEquals(Verdict.UNKNOWN, r.verdict(), r::toString);
        assertTrue(r.error().startsWith("nothing to judge"), r::toString);
    }

    @Test
    void valuesRoundTripAndBadOnesAreNamed() {
        assertEquals(new OffsetOps.KeyValue(3, 17L), OffsetOps.KeyValue.parse(new OffsetOps.KeyValue(3, 17L).text()));
        assertEquals(new OffsetOps.KeyValue(3, null), OffsetOps.KeyValue.parse(new OpValue.Text("3 nil")));
        assertEquals("3 nil", new OffsetOps.KeyValue(3, null).readResult().text());
        var bad = assertThrows(IllegalArgumentException.class, () -> OffsetOps.KeyValue.parse(new OpValue.Text("x 1")));
        assertTrue(bad.getMessage().contains("\"x 1\""), bad.getMessage());
        assertThrows(IllegalArgumentException.class, () -> OffsetOps.KeyValue.parse(OpValue.None.INSTANCE));
        assertEquals("run-g2/1", OffsetOps.keyName("run", 5));
    }

    @Test
    void aWriteIsInfoUnlessTheCoordinatorRefusedItUpFrontAndAReadAlwaysFails() {
        assertEquals(OpType.INFO, OffsetErrors.classify("write", new TimeoutException("t")));
        assertEquals(OpType.INFO, OffsetErrors.classify("write", new NotCoordinatorException("moved")));
        assertEquals(OpType.FAIL, OffsetErrors.classify("write", new ExecutionException(new GroupNotEmptyException("g"))));
        assertEquals(OpType.FAIL, OffsetErrors.classify("read", new TimeoutException("t")));
    }

    @Test
    void pairsBecomeRegisterOpsAndFailuresAndInfoReadsDropOut() {
        H h = new H()
                .op(OpType.INVOKE, 0, 1, "write", "1 10").op(OpType.OK, 0, 2, "write", "1 10")
                .op(OpType.INVOKE, 1, 3, "read", "1").op(OpType.OK, 1, 4, "read", "1 10")
                .op(OpType.INVOKE, 0, 5, "write", "1 11").op(OpType.INFO, 0, 6, "write", "1 11")
                .op(OpType.INVOKE, 1, 7, "read", "0").op(OpType.OK, 1, 8, "read", "0 nil")
                .op(OpType.INVOKE, 2, 9, "read", "0").op(OpType.INFO, 2, 10, "read", "0")
                .op(OpType.INVOKE, 3, 9, "write", "0 4").op(OpType.FAIL, 3, 10, "write", "0 4");
        h.ops.add(new Op(h.ops.size(), OpType.INFO, Op.NEMESIS, 11, "start-partition", new OpValue.Text("n1"), null));
        Map<String, List<LinOp<RegisterOp, Object>>> regs = OffsetChecker.registers(h.ops, "t");
        assertEquals(List.of("t-g0/0", "t-g0/1"), List.copyOf(regs.keySet()));
        List<LinOp<RegisterOp, Object>> k1 = regs.get("t-g0/1");
        assertEquals(3, k1.size());
        assertEquals(new RegisterOp.Write(10), k1.get(0).input());
        assertEquals(10L, k1.get(1).output());
        assertTrue(k1.get(2).indeterminate());
        assertNull(k1.get(2).output());
        assertEquals(List.of(RegisterModel.EMPTY), regs.get("t-g0/0").stream().map(LinOp::output).toList());
        assertEquals(7, regs.get("t-g0/0").get(0).invoke());
    }

    @Test
    void nearMissAnIndeterminateWriteReadLaterIsValid() {
        H h = new H()
                .op(OpType.INVOKE, 0, 1, "write", "0 5").op(OpType.INFO, 0, 2, "write", "0 5")
                .op(OpType.INVOKE, 1, 3, "read", "0").op(OpType.OK, 1, 4, "read", "0 nil")
                .op(OpType.INVOKE, 2, 5, "read", "0").op(OpType.OK, 2, 6, "read", "0 5");
        assertEquals(Verdict.VALID, check(h.ops).verdict());
    }

    @Test
    void aReadOfAnOverwrittenOffsetIsNotLinearizable() {
        H h = new H()
                .op(OpType.INVOKE, 0, 1, "write", "0 5").op(OpType.OK, 0, 2, "write", "0 5")
                .op(OpType.INVOKE, 0, 3, "write", "0 6").op(OpType.OK, 0, 4, "write", "0 6")
                .op(OpType.INVOKE, 1, 5, "read", "0").op(OpType.OK, 1, 6, "read", "0 5");
        CheckResult r = check(h.ops);
        assertEquals(Verdict.INVALID, r.verdict());
        assertTrue(r.counts().containsKey("nonlinearizable"), r.toString());
    }

    @Test
    void aMalformedValueIsUnknownNotAThrow() {
        H h = new H().op(OpType.INVOKE, 0, 1, "write", "zero").op(OpType.OK, 0, 2, "write", "zero");
        CheckResult r = check(h.ops);
        assertEquals(Verdict.UNKNOWN, r.verdict());
    }

    @Test
    void theGeneratorMixesReadsAndFreshWritesOverEveryKey() {
        io.faultline.workloads.generator.Gen g = OffsetOps.random(42, 4);
        var ctx = io.faultline.workloads.generator.Context.allFree(0, 1);
        java.util.Set<Integer> keys = new java.util.TreeSet<>();
        java.util.Set<Long> written = new java.util.HashSet<>();
        int reads = 0;
        int writes = 0;
        for (int i = 0; i < 400; i++) {
            var e = (io.faultline.workloads.generator.Step.Emit) g.next(ctx);
            OffsetOps.KeyValue kv = OffsetOps.KeyValue.parse(e.op().value());
            keys.add(kv.key());
            if (OffsetOps.READ.equals(e.op().f())) {
                reads++;
                assertNull(kv.value());
            } else {
                writes++;
                written.add(kv.value());
            }
            g = e.next();
        }
        assertEquals(java.util.Set.of(0, 1, 2, 3), keys);
        assertTrue(reads > 120 && writes > 120, reads + " reads, " + writes + " writes");
        assertEquals(writes, written.size(), "every write a fresh value");
        var again = (io.faultline.workloads.generator.Step.Emit) OffsetOps.random(42, 4).next(ctx);
        assertEquals(((io.faultline.workloads.generator.Step.Emit) OffsetOps.random(42, 4).next(ctx)).op(), again.op());
    }
}
