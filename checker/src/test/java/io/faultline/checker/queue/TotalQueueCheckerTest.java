package io.faultline.checker.queue;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.OpType;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TotalQueueCheckerTest {
    @Test
    void cleanRunIsValid() {
        H h = new H().send(0, 1, 10, 0).send(0, 1, 11, 1).poll(1, 1, 0, 10, 1, 11).poll(2, 1, 0, 10);
        CheckResult r = new TotalQueueChecker().check(h.ops());
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        assertEquals(Map.of("lost", 0L, "unexpected", 0L, "duplicated", 0L, "recovered", 0L), r.counts());
        assertEquals(2L, r.stats().get("read"));
    }

    @Test
    void lostUnexpectedDuplicatedRecovered() {
        H h = new H().send(0, 1, 10, 0).send(0, 1, 11, 1)           // 11 lost
                .send(0, OpType.INFO, 1, 12)                          // 12 recovered
                .send(0, OpType.INFO, 1, 13)                          // 13 neither: info, unread
                .poll(1, 1, 0, 10, 2, 12, 3, 99, 4, 10);              // 99 unexpected; 10 duplicated
        CheckResult r = new TotalQueueChecker().check(h.ops());
        assertEquals(Map.of("lost", 1L, "unexpected", 1L, "duplicated", 1L, "recovered", 1L), r.counts());
        assertEquals(Verdict.INVALID, r.verdict());
        assertEquals("key 1: value 11 was acknowledged but never read", r.examples().get("lost").get(0).explanation());
    }

    @Test
    void allowancesOfTheRunCarryOver() {
        H lost = new H().send(0, 1, 10, 0).send(0, 1, 11, 1).poll(1, 1, 0, 10);          // 11 lost
        H dup = new H().send(0, 1, 10, 0).poll(1, 1, 0, 10, 1, 10);                      // 10 twice in the log
        assertEquals(Verdict.INVALID, new TotalQueueChecker().check(lost.ops()).verdict());
        var acks0 = java.util.Set.of(QueueAnomaly.LOST_WRITE, QueueAnomaly.UNSEEN);
        assertEquals(Verdict.VALID, new TotalQueueChecker(8, acks0).check(lost.ops()).verdict(), "loss allowed with acks=0");
        assertEquals(Verdict.INVALID, new TotalQueueChecker(8, acks0).check(dup.ops()).verdict(), "but not duplicates");
        var atLeastOnce = java.util.Set.of(QueueAnomaly.DUPLICATE);
        assertEquals(Verdict.VALID, new TotalQueueChecker(8, atLeastOnce).check(dup.ops()).verdict());
        assertEquals(Verdict.INVALID, new TotalQueueChecker(8, atLeastOnce).check(lost.ops()).verdict());
    }
}
