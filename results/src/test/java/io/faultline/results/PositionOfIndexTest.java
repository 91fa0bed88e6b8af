package io.faultline.results;

import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class PositionOfIndexTest {
    private static Op op(long index) {
        return new Op(index, OpType.INVOKE, 0, index, "send", OpValue.None.INSTANCE, null);
    }

    @Test
    void risingIndicesWithGapsAreFoundBySearch() {
        List<Op> h = new ArrayList<>();
        for (long i : new long[] {0, 1, 2, 5, 9, 10, 40}) h.add(op(i));
        var p = new PositionOfIndex(h);
        assertEquals(0, p.get(0));
        assertEquals(3, p.get(5));
        assertEquals(6, p.get(40));
        assertNull(p.get(3));
        assertNull(p.get(-1));
        assertNull(p.get(41));
    }

    @Test
    void repeatedOrFallingIndicesGiveTheFirstPosition() {
        List<Op> h = List.of(op(3), op(1), op(3), op(2), op(2));
        var p = new PositionOfIndex(h);
        assertEquals(0, p.get(3));
        assertEquals(1, p.get(1));
        assertEquals(3, p.get(2));
        assertNull(p.get(7));
    }

    @Test
    void emptyHistoryFindsNothing() {
        assertNull(new PositionOfIndex(List.of()).get(0));
    }
}
