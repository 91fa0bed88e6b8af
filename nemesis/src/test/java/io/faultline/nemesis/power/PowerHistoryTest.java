package io.faultline.nemesis.power;

import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Reading back how many nodes were without power at once from a history's nemesis entries. */
class PowerHistoryTest {
    private static Op nemesis(String f, String text, String error) {
        return new Op(-1, OpType.INFO, Op.NEMESIS, 0, f, new OpValue.Text(text), error);
    }

    /** A power-off as the scheduler records it: the requested target first, what was done second. */
    private static List<Op> off(String target, String done) {
        return List.of(nemesis(PowerNemesis.OFF, target, null), nemesis(PowerNemesis.OFF, done, null));
    }

    private static List<Op> on(String done) {
        return List.of(nemesis(PowerNemesis.ON, "all", null), nemesis(PowerNemesis.ON, done, null));
    }

    @Test
    void oneNodeAtATimeIsOne() {
        List<Op> h = new ArrayList<>();
        h.addAll(off("one", "power lost on [n2] {n2=filesReverted=3}"));
        h.addAll(on("powered on [n2]"));
        h.addAll(off("one", "power lost on [n3] {n3=filesReverted=1}"));
        h.addAll(on("powered on [n3]"));
        assertEquals(1, PowerHistory.maxNodesOffAtOnce(h));
    }

    @Test
    void everyNodeAtOnceCountsEveryNode() {
        List<Op> h = new ArrayList<>(off("minority", "power lost on [n1] {}"));
        h.addAll(off("all", "power lost on [n2, n3] {n2=x, n3=y}")); // n1 still down: three at once
        h.addAll(on("powered on [n1, n2, n3]"));
        h.addAll(off("one", "power lost on [n1] {}"));
        assertEquals(3, PowerHistory.maxNodesOffAtOnce(h));
    }

    @Test
    void failedPowerOffsAndOtherOpsAreNotCounted() {
        List<Op> h = new ArrayList<>();
        h.add(nemesis(PowerNemesis.OFF, "all", "IllegalStateException: killed [n1, n2, n3] but the disk did not forget"));
        h.add(nemesis("kill", "power lost on [n1, n2]", null));
        h.add(Op.invoke(0, Op.SEND, OpValue.None.INSTANCE));
        h.addAll(off("one", "power lost on [] {}"));
        assertEquals(0, PowerHistory.maxNodesOffAtOnce(h));
        assertEquals(0, PowerHistory.maxNodesOffAtOnce(List.of()));
    }
}
