package io.faultline.checker.history;

import io.faultline.checker.Verdict;
import io.faultline.checker.queue.TotalQueueChecker;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

class OpenInvocationsTest {
    private static Op op(long index, OpType type, int process, String f, OpValue value) {
        return new Op(index, type, process, index * 1000, f, value, null);
    }

    @Test
    void anOpenSendBecomesInfoSoItsReadValueIsNotUnexpected() {
        var send = OpValue.Txn.of(new MicroOp.Send(1, 5, null));
        var read = OpValue.Txn.of(new MicroOp.Poll(Map.of(1, List.of(new MicroOp.Record(0, 5)))));
        List<Op> history = List.of(
                op(0, OpType.INVOKE, 0, Op.SEND, send),
                op(1, OpType.INVOKE, 1, Op.POLL, OpValue.Txn.of(new MicroOp.Poll(null))),
                op(2, OpType.OK, 1, Op.POLL, read));
        // as recorded, the read value has no completed writer: the total-queue check calls it unexpected
        assertEquals(Verdict.INVALID, new TotalQueueChecker().check(history).verdict());

        List<Op> closed = OpenInvocations.completeAsInfo(history);
        assertEquals(4, closed.size());
        Op info = closed.get(3);
        assertEquals(OpType.INFO, info.type());
        assertEquals(0, info.process());
        assertEquals(3, info.index());
        assertEquals(OpenInvocations.NO_COMPLETION, info.error());
        var result = new TotalQueueChecker().check(closed);
        assertEquals(0, result.count("unexpected"));
        assertEquals(1, result.count("recovered"));
    }

    @Test
    void aClosedHistoryIsReturnedAsIs() {
        List<Op> history = List.of(op(0, OpType.INVOKE, 0, Op.CRASH, OpValue.None.INSTANCE),
                op(1, OpType.INFO, 0, Op.CRASH, OpValue.None.INSTANCE));
        assertSame(history, OpenInvocations.completeAsInfo(history));
    }
}
