package io.faultline.checker.queue;

import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CorruptReadCheckerTest {
    private static Op poll(long index, OpType type, String error) {
        return new Op(index, type, 0, index, Op.POLL, new OpValue.Txn(List.of()), error);
    }

    @Test
    void aPollThatFailedItsChecksumMakesTheRunInvalid() {
        var checker = new CorruptReadChecker(8);
        var clean = List.of(poll(0, OpType.INVOKE, null), poll(1, OpType.OK, null),
                poll(2, OpType.INFO, "TimeoutException: slow"));
        assertEquals(Verdict.VALID, checker.check(clean).verdict());
        var corrupt = List.of(poll(0, OpType.INVOKE, null), poll(1, OpType.INFO,
                "KafkaException: Received exception when fetching the next record from t-0 (cause: "
                        + "CorruptRecordException: Record batch for partition t-0 at offset 7 is invalid)"));
        var r = checker.check(corrupt);
        assertEquals(Verdict.INVALID, r.verdict());
        assertEquals(1L, r.counts().get("corrupt-read"));
        assertEquals(List.of(1L), r.examples().get("corrupt-read").get(0).ops());
        assertEquals(Verdict.UNKNOWN, checker.check(List.of()).verdict(), "no poll, nothing to judge");
        // kafka-clients 4.4 once the damaged batch is at the consumer's position (seen on a torn follower's log)
        var wrapped = List.of(poll(5, OpType.INFO, "KafkaException: Received exception when fetching the next record "
                + "from t-0. If needed, please seek past the record to continue consumption."));
        assertEquals(Verdict.INVALID, checker.check(wrapped).verdict());
    }
}
