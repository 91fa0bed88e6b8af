package io.faultline.checker.queue;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

import static io.faultline.checker.queue.H.recs;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Crafted histories for defects found by comparing the queue analysis with kafka.clj's definitions. */
class QueueDefectsTest {
    static final int K = 3;

    /** One OK op with several poll micro-ops, each of one key. */
    static List<Op> withMultiPoll(List<Op> before, int process, List<List<MicroOp.Record>> polls) {
        List<Op> ops = new ArrayList<>(before);
        List<MicroOp> inv = new ArrayList<>();
        List<MicroOp> done = new ArrayList<>();
        for (List<MicroOp.Record> p : polls) {
            inv.add(MicroOp.Poll.invoke());
            done.add(MicroOp.poll(Map.of(K, p)));
        }
        ops.add(new Op(ops.size(), OpType.INVOKE, process, ops.size() * 10L, Op.POLL, new OpValue.Txn(inv), null));
        ops.add(new Op(ops.size(), OpType.OK, process, ops.size() * 10L, Op.POLL, new OpValue.Txn(done), null));
        return ops;
    }

    static H fourSends() {
        return new H().send(0, K, 10, 0).send(0, K, 11, 1).send(0, K, 12, 2).send(0, K, 13, 3);
    }

    @Test
    void aSkipBetweenTwoPollsOfOneOpIsInternal() {
        // One op polls [10] then [12]: 11 skipped inside the op. kafka.clj joins an op's reads per key: int-poll-skip.
        H h = fourSends().assign(1, false, K);
        List<Op> ops = withMultiPoll(h.ops(), 1, List.of(recs(0, 10), recs(2, 12, 3, 13)));
        ops = new ArrayList<>(ops);
        ops.addAll(renumber(new H().poll(2, K, 0, 10, 1, 11, 2, 12, 3, 13).ops(), ops.size()));
        CheckResult assign = QueueChecker.forRun(false).check(ops);
        assertEquals(1L, assign.count("int-poll-skip"), assign::toString);
        assertEquals(0L, assign.count("poll-skip"), assign::toString);
        CheckResult subscribe = QueueChecker.forRun(true).check(ops);
        assertEquals(Verdict.INVALID, subscribe.verdict(), "subscribe allows poll-skip, not int-poll-skip");
    }

    @Test
    void aReversalBetweenTwoPollsOfOneOpIsInternal() {
        H h = fourSends().assign(1, false, K);
        List<Op> ops = withMultiPoll(h.ops(), 1, List.of(recs(0, 10, 1, 11), recs(1, 11, 2, 12, 3, 13)));
        CheckResult r = QueueChecker.forRun(true).check(ops);
        assertEquals(1L, r.count("int-nonmonotonic-poll"), r::toString);
        assertEquals(Verdict.INVALID, r.verdict());
    }

    @Test
    void nearMissContiguousPollsOfOneOpAreFine() {
        H h = fourSends().assign(1, false, K);
        List<Op> ops = withMultiPoll(h.ops(), 1, List.of(recs(0, 10, 1, 11), recs(2, 12, 3, 13)));
        CheckResult r = QueueChecker.forRun(false).check(ops);
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
    }

    @Test
    void aReaderCrossingBothCopiesOfADuplicateSeesNoSkip() {
        // Without idempotence a retried send lands twice: 11 at offsets 1 and 3. Reading the log in order is fine.
        H h = new H().send(0, K, 10, 0).send(0, K, 11, 1).send(0, K, 12, 2).send(0, K, 13, 4)
                .assign(1, false, K).poll(1, K, 0, 10, 1, 11, 2, 12).poll(1, K, 3, 11, 4, 13)
                .assign(2, false, K).poll(2, K, 0, 10, 1, 11, 2, 12, 3, 11, 4, 13);
        var allowed = EnumSet.of(QueueAnomaly.DUPLICATE, QueueAnomaly.INT_SEND_SKIP);
        CheckResult r = new QueueChecker(new QueueChecker.Options(allowed, 8)).check(h.ops());
        assertEquals(1L, r.count("duplicate"), r::toString);
        assertEquals(Map.of("duplicate", 1L), QueueCheckerTest.nonZero(r));
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
    }

    @Test
    void nearMissReadingADuplicateCopyBackwardsIsStillNonmonotonic() {
        H h = new H().send(0, K, 10, 0).send(0, K, 11, 1).send(0, K, 12, 2).send(0, K, 13, 4)
                .poll(2, K, 0, 10, 1, 11, 2, 12, 3, 11, 4, 13)
                .assign(1, false, K).poll(1, K, 3, 11, 4, 13).poll(1, K, 1, 11);
        var allowed = EnumSet.of(QueueAnomaly.DUPLICATE, QueueAnomaly.INT_SEND_SKIP);
        CheckResult r = new QueueChecker(new QueueChecker.Options(allowed, 8)).check(h.ops());
        assertEquals(1L, r.count("nonmonotonic-poll"), r::toString);
    }

    @Test
    void aValueReadOnlyByAnIndeterminatePollIsSeenByBothCheckers() {
        H h = new H().send(0, K, 10, 0).send(0, K, 11, 1)
                .poll(1, OpType.INFO, Map.of(K, recs(0, 10, 1, 11)));
        CheckResult queue = QueueChecker.forRun(false).check(h.ops());
        CheckResult total = new TotalQueueChecker().check(h.ops());
        assertEquals(0L, queue.count("unseen"), queue::toString);
        assertEquals(0L, total.count("lost"), total::toString);
        assertEquals(queue.verdict(), total.verdict());
        assertEquals(Verdict.VALID, total.verdict());
    }

    @Test
    void nearMissAFailedPollDeliversNothing() {
        H h = new H().send(0, K, 10, 0).poll(1, OpType.FAIL, Map.of(K, recs(0, 10)));
        assertEquals(1L, QueueChecker.forRun(false).check(h.ops()).count("unseen"));
        assertEquals(1L, new TotalQueueChecker().check(h.ops()).count("lost"));
    }

    static List<Op> renumber(List<Op> ops, int from) {
        List<Op> out = new ArrayList<>();
        for (Op o : ops) {
            out.add(new Op(from + o.index(), o.type(), o.process(), (from + o.index()) * 10L, o.f(), o.value(), o.error()));
        }
        return out;
    }

    @Test
    void aTransactionWhoseCommitEndedInfoCountsOnlyIfSomethingReadIt() {
        // Txn A's send got offset 0 back, then its commit failed (info): it aborted, so read_committed readers
        // skip it (offset 1 is its abort marker). Txn B committed 11 at offset 2. Nothing was lost.
        H h = new H().txnSends(0, OpType.INFO, new long[] {K, 10, 0})
                .txnSends(1, OpType.OK, new long[] {K, 11, 2})
                .assign(2, false, K).poll(2, K, 2, 11);
        CheckResult queue = QueueChecker.forRun(false).check(h.ops());
        assertEquals(0L, queue.count("lost-write"), queue::toString);
        assertEquals(0L, queue.count("unseen"), queue::toString);
        assertEquals(Verdict.VALID, queue.verdict(), queue::toString);
        CheckResult total = new TotalQueueChecker().check(h.ops());
        assertEquals(0L, total.count("lost"), total::toString);
        assertEquals(Verdict.VALID, total.verdict(), total::toString);
    }

    @Test
    void aTransactionWhoseCommitEndedInfoButWasReadIsCommittedInFull() {
        // Txn A's commit ended info but it did commit: one of its two values was read, so the other, below the
        // furthest read, is lost -- as the txn checker counts an info transaction someone read.
        H h = new H().txnSends(0, OpType.INFO, new long[] {K, 10, 0}, new long[] {K, 11, 1})
                .txnSends(1, OpType.OK, new long[] {K, 12, 3})
                .assign(2, false, K).poll(2, K, 1, 11, 3, 12);
        CheckResult queue = QueueChecker.forRun(false).check(h.ops());
        assertEquals(1L, queue.count("lost-write"), queue::toString);
        assertEquals(Verdict.INVALID, queue.verdict(), queue::toString);
    }

    @Test
    void aPlainSendOpsAcknowledgedSendStaysCommittedWhenAnotherOfItsSendsTimedOut() {
        // Outside a transaction a send's own acknowledgement is final: lost when a later value was read past it.
        H h = new H().sends(0, OpType.INFO, new long[] {K, 10, 0}, new long[] {K, 11, -1})
                .send(1, K, 12, 1)
                .assign(2, false, K).poll(2, K, 1, 12);
        CheckResult queue = QueueChecker.forRun(false).check(h.ops());
        assertEquals(1L, queue.count("lost-write"), queue::toString);
        CheckResult total = new TotalQueueChecker().check(h.ops());
        assertEquals(1L, total.count("lost"), total::toString);
    }
}
