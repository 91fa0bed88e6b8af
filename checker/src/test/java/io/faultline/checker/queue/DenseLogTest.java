package io.faultline.checker.queue;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.OpType;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.faultline.checker.queue.QueueCheckerTest.K;
import static io.faultline.checker.queue.QueueCheckerTest.nonZero;
import static io.faultline.checker.queue.QueueCheckerTest.onlyExample;
import static io.faultline.checker.queue.QueueCheckerTest.threeSends;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Holes in a dense log (offset-gap) and the moves of consumers with a manual assignment in histories where other
 * consumers subscribe (assigned-poll-skip, assigned-nonmonotonic-poll): each with a history whose answer is known.
 */
class DenseLogTest {

    /** The queue workload's checker: logs are dense; with {@code group}, some consumers subscribe. */
    private static CheckResult dense(H h, boolean group) {
        return new QueueChecker(new QueueChecker.Options(QueueChecker.allowedFor(group, true),
                QueueChecker.DEFAULT_MAX_EXAMPLES)).check(h.ops());
    }

    /** Acknowledged 10, 11, 13 at offsets 0, 1, 3: offset 2 holds a record nobody wrote or read. */
    private static H withHole() {
        return new H().send(0, K, 10, 0).send(0, K, 11, 1).send(0, K, 13, 3);
    }

    @Test
    void aHoleInsideOnePollIsAnOffsetGap() {
        CheckResult r = dense(withHole().assign(1, true, K).poll(1, K, 0, 10, 1, 11, 3, 13), false);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(Map.of("offset-gap", 1L), nonZero(r));
        assertTrue(onlyExample(r, "offset-gap").contains("read offset 1 and next offset 3"),
                onlyExample(r, "offset-gap"));
    }

    @Test
    void aHoleBetweenTwoPollsOfOneAssignedConsumerIsAnOffsetGap() {
        CheckResult r = dense(withHole().assign(1, true, K).poll(1, K, 0, 10, 1, 11).poll(1, K, 3, 13), false);
        assertEquals(Map.of("offset-gap", 1L), nonZero(r));
        assertTrue(onlyExample(r, "offset-gap").contains("of process 1"), onlyExample(r, "offset-gap"));
    }

    @Test
    void nearMissDenseReadsAndFreshPositionsAreFine() {
        // contiguous reads; a seek to the beginning, a crash (a new process) and a reassignment start afresh
        H h = threeSends().assign(1, true, K).poll(1, K, 0, 10, 1, 11).poll(1, K, 2, 12)
                .assign(1, true, K).poll(1, K, 0, 10).crash(1).assign(5, false, K).poll(5, K, 2, 12);
        CheckResult r = dense(h, false);
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        assertEquals(Map.of(), nonZero(r));
    }

    @Test
    void nearMissAGroupMemberMayJumpAndAFailedPollSetsNoPosition() {
        // a subscribed consumer resumes from its group's committed offset, wherever another member left it; and a
        // member of a group of its own (subscribed from the beginning: not bound by process 1's commits, see
        // GroupRewindTest) reads across the hole: holes are judged for manual assignments only
        H group = withHole().subscribe(1, K).poll(1, K, 0, 10).poll(1, K, 3, 13)
                .subscribe(9, true, null, OpType.OK, K).poll(9, K, 0, 10, 1, 11, 3, 13);
        CheckResult g = dense(group, true);
        assertEquals(Verdict.VALID, g.verdict(), g::toString);
        assertEquals(Map.of("poll-skip", 1L), nonZero(g));
        H failed = threeSends().assign(1, true, K).poll(1, K, 0, 10, 1, 11)
                .poll(1, OpType.FAIL, Map.of()).poll(1, K, 2, 12);
        CheckResult f = dense(failed, false);
        assertEquals(Verdict.VALID, f.verdict(), f::toString);
        assertEquals(Map.of(), nonZero(f));
    }

    @Test
    void leavingTheGroupForAnAssignmentStartsFromCommittedOffsets() {
        // subscribed, read 0..1; then assigned: the position comes from the committed offset, here 3
        H h = withHole().subscribe(1, K).poll(1, K, 0, 10, 1, 11).assign(1, false, K).poll(1, K, 3, 13);
        CheckResult r = dense(h, true);
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        assertEquals(Map.of(), nonZero(r));
    }

    @Test
    void aSeekToTheEndMovesAnAssignedReaderOnWithoutASkip() {
        // process 1 read 0, then assigned the same key again starting at its end: its next read is offset 2
        H tail = threeSends().subscribe(2, K).assign(1, false, K).poll(1, K, 0, 10).tail(1, K).poll(1, K, 2, 12)
                .poll(9, K, 0, 10, 1, 11, 2, 12);
        CheckResult r = dense(tail, true);
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        assertEquals(Map.of(), nonZero(r));
        // the same reads after a plain re-assign (it keeps its position) are a skip
        H kept = threeSends().subscribe(2, K).assign(1, false, K).poll(1, K, 0, 10).assign(1, false, K).poll(1, K, 2, 12)
                .poll(9, K, 0, 10, 1, 11, 2, 12);
        CheckResult k = dense(kept, true);
        assertEquals(Verdict.INVALID, k.verdict(), k::toString);
        assertEquals(Map.of("assigned-poll-skip", 1L), nonZero(k));
    }

    @Test
    void anAssignedConsumerSkippingInAGroupRunIsNamedApartAndForbidden() {
        // process 2 subscribes (so poll-skip is allowed for group members); process 1 is assigned and skips 11
        H h = threeSends().subscribe(2, K).poll(2, K, 0, 10).poll(2, K, 2, 12)
                .assign(1, false, K).poll(1, K, 0, 10).poll(1, K, 2, 12).poll(9, K, 0, 10, 1, 11, 2, 12);
        CheckResult r = dense(h, true);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(Map.of("assigned-poll-skip", 1L, "poll-skip", 1L), nonZero(r));
        assertEquals(java.util.Set.of("assigned-poll-skip"), r.forbiddenFound());
    }

    @Test
    void anAssignedConsumerGoingBackInAGroupRunIsNamedApartAndForbidden() {
        H h = threeSends().subscribe(2, K).assign(1, false, K).poll(1, K, 0, 10, 1, 11).poll(1, K, 1, 11, 2, 12);
        CheckResult r = dense(h, true);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(Map.of("assigned-nonmonotonic-poll", 1L), nonZero(r));
    }

    @Test
    void withoutSubscribersTheCategoriesKeepTheirPlainNames() {
        CheckResult r = dense(threeSends().poll(1, K, 0, 10).poll(1, K, 2, 12).poll(9, K, 0, 10, 1, 11, 2, 12), false);
        assertEquals(Map.of("poll-skip", 1L), nonZero(r));
    }
}
