package io.faultline.harness;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The idle end of a run counts from the last write's completion: the final drain's reads are idle time already. */
class QuiesceTest {
    private static Op send(OpType type, long time) {
        return new Op(0, type, 1, time, Op.SEND, new OpValue.Txn(List.of(new MicroOp.Send(3, 1, 0L))), null);
    }

    private static Op poll(long time) {
        return new Op(1, OpType.OK, 2, time, Op.POLL,
                new OpValue.Txn(List.of(new MicroOp.Poll(Map.of(3, List.of(new MicroOp.Record(0, 1)))))), null);
    }

    @Test
    void theLastCompletedSendEndsTheWritesAndReadsAfterItAreIdle() {
        var history = List.of(send(OpType.INVOKE, 1), send(OpType.OK, 5), send(OpType.INVOKE, 6), send(OpType.INFO, 7),
                poll(9), poll(12));
        assertEquals(7, TestRunner.lastWriteEnded(history, 20), "an indefinite send is a write too");
        assertEquals(20, TestRunner.lastWriteEnded(List.of(poll(3)), 20), "no write at all: idle from now");
    }
}
