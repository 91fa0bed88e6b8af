package io.faultline.results;

import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.faultline.results.SyntheticRun.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FaultBandsTest {

    @Test
    void startStopPairsBecomeBandsAndUnclosedBandsRunToTheEnd() {
        SyntheticRun r = new SyntheticRun();
        OpValue none = OpValue.None.INSTANCE;
        // invoke + info completion for both start and stop, as a nemesis may log them
        r.add(OpType.INVOKE, Op.NEMESIS, 1 * S, "start-partition", none, null);
        r.add(OpType.INFO, Op.NEMESIS, 2 * S, "start-partition", none, null);
        r.add(OpType.INVOKE, Op.NEMESIS, 5 * S, "stop-partition", none, null);
        r.add(OpType.INFO, Op.NEMESIS, 6 * S, "stop-partition", none, null);
        r.add(OpType.INFO, Op.NEMESIS, 7 * S, "start-pause", none, null);
        r.add(OpType.INFO, Op.NEMESIS, 8 * S, "rebalance", none, null);
        r.add(OpType.INFO, Op.NEMESIS, 9 * S, "start-partition", none, null);
        r.add(OpType.OK, 0, 12 * S, "send", none, null);

        FaultBands f = FaultBands.of(r.ops());
        assertEquals(List.of(
                new FaultBands.Band("partition", 1 * S, 6 * S, true),
                new FaultBands.Band("pause", 7 * S, 12 * S, false),
                new FaultBands.Band("partition", 9 * S, 12 * S, false)), f.bands());
        assertEquals(List.of("partition", "pause"), List.copyOf(f.packages()));
        assertEquals(1, f.events().size());
        assertEquals("rebalance", f.events().get(0).f());
        assertTrue(f.anyActiveAt(3 * S));
        assertFalse(f.anyActiveAt(6 * S + 1));
        assertFalse(f.ran("clock"));
    }

    @Test
    void namedProcessAndClockFaultsBecomeBands() {
        SyntheticRun r = new SyntheticRun();
        OpValue v = OpValue.None.INSTANCE;
        // the nemesis module logs each op twice (start and end), both as info
        r.add(OpType.INFO, Op.NEMESIS, 1 * S, "kill", v, null);
        r.add(OpType.INFO, Op.NEMESIS, 2 * S, "kill", v, null);
        r.add(OpType.INFO, Op.NEMESIS, 3 * S, "pause", v, null);
        r.add(OpType.INFO, Op.NEMESIS, 4 * S, "start", v, null);
        r.add(OpType.INFO, Op.NEMESIS, 5 * S, "start", v, null);
        r.add(OpType.INFO, Op.NEMESIS, 6 * S, "resume", v, null);
        r.add(OpType.INFO, Op.NEMESIS, 7 * S, "bump-clock", v, null);
        r.add(OpType.INFO, Op.NEMESIS, 8 * S, "reset-clock", v, null);
        r.add(OpType.INFO, Op.NEMESIS, 9 * S, "truncate-segment", v, null);
        r.add(OpType.OK, 0, 10 * S, "send", v, null);

        FaultBands f = FaultBands.of(r.ops());
        assertEquals(List.of(
                new FaultBands.Band("kill", 1 * S, 5 * S, true),
                new FaultBands.Band("pause", 3 * S, 6 * S, true),
                new FaultBands.Band("clock", 7 * S, 8 * S, true)), f.bands());
        assertEquals("truncate-segment", f.events().get(0).f());
    }

    @Test
    void clientOpsNamedLikeFaultsAreIgnored() {
        SyntheticRun r = new SyntheticRun();
        r.add(OpType.OK, 3, S, "start-partition", OpValue.None.INSTANCE, null);
        assertTrue(FaultBands.of(r.ops()).isEmpty());
    }
}
