package io.faultline.checker.queue;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.faultline.checker.queue.H.reads;
import static io.faultline.checker.queue.H.recs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The group's commit contract (group-rewind): once a poll's commit is acknowledged, no later poll of the same group
 * returns that partition's records below it. One violating history, then each legitimate redelivery that must
 * stay unflagged.
 */
class GroupRewindTest {
    private static final String G = "fl-group";

    private static CheckResult check(List<Op> history) {
        return QueueChecker.forRun(true).check(history);
    }

    private static long rewinds(CheckResult r) {
        return r.counts().get("group-rewind");
    }

    /** Process 1 reads key 0 up to offset 4 and commits 5 (its poll ends ok). */
    private static H committedFive() {
        return new H().subscribe(1, false, G, OpType.OK, 0)
                .poll(1, 0, 0, 10, 1, 11, 2, 12, 3, 13, 4, 14);
    }

    @Test
    void anotherMemberReadingBelowAnAcknowledgedCommitIsARewind() {
        H h = committedFive().subscribe(2, false, G, OpType.OK, 0).poll(2, 0, 3, 13, 4, 14, 5, 15);
        CheckResult r = check(h.ops());
        assertEquals(1, rewinds(r));
        assertEquals(Verdict.INVALID, r.verdict());
        String why = r.examples().get("group-rewind").get(0).explanation();
        assertTrue(why.contains("polled offset 3 (value 13) and 1 more record(s) below offset 5"), why);
        assertTrue(why.contains("committed offset 5 for key 0 when op 3 of process 1 completed ok"), why);
        assertEquals(List.of(3L, 7L), r.examples().get("group-rewind").get(0).ops());
    }

    @Test
    void theCommitterItselfGoingBackIsARewindToo() {
        // the same member, same generation: its position was 5 and its commit acknowledged
        CheckResult r = check(committedFive().poll(1, 0, 4, 14).ops());
        assertEquals(1, rewinds(r));
    }

    @Test
    void aNewClientOfTheSameGroupAfterACrashIsBoundByTheCommit() {
        // the recorder gives a reopened client a new process id; it joins the shared group (not named: old history)
        H h = new H().subscribe(1, 0).poll(1, 0, 0, 10, 1, 11).crash(1).subscribe(4, 0).poll(4, 0, 0, 10);
        CheckResult r = check(h.ops());
        assertEquals(1, rewinds(r));
        assertTrue(r.examples().get("group-rewind").get(0).explanation().contains("the workload's shared group"));
    }

    @Test
    void readingFromTheCommitOnIsFine() {
        H h = committedFive().subscribe(2, false, G, OpType.OK, 0).poll(2, 0, 5, 15, 6, 16)
                .poll(1, 0, 7, 17); // a member reads on after a rebalance that another's commit moved
        CheckResult r = check(h.ops());
        assertEquals(0, rewinds(r));
        assertEquals(Verdict.VALID, r.verdict());
    }

    @Test
    void aPollThatBeganBeforeTheCommitWasAcknowledgedMayRedeliver() {
        H h = new H().subscribe(1, false, G, OpType.OK, 0).subscribe(2, false, G, OpType.OK, 0)
                .pollInvoked(2)
                .poll(1, 0, 0, 10, 1, 11, 2, 12)
                .pollDone(2, OpType.OK, reads(0, recs(1, 11)));
        assertEquals(0, rewinds(check(h.ops())));
    }

    @Test
    void whatAFailedCommitCoveredMayBeRedelivered() {
        // the poll's commit failed (info): nothing was acknowledged, so the next owner starts below
        H h = new H().subscribe(1, false, G, OpType.OK, 0)
                .poll(1, OpType.INFO, reads(0, recs(0, 10, 1, 11)))
                .subscribe(2, false, G, OpType.OK, 0).poll(2, 0, 0, 10, 1, 11);
        assertEquals(0, rewinds(check(h.ops())));
    }

    @Test
    void aFencedMembersInfoPollMayReadItsStalePosition() {
        // a member a rebalance moved on without still fetches from where it was; its commit is refused (info)
        H h = new H().subscribe(2, false, G, OpType.OK, 0).poll(2, 0, 0, 10)
                .subscribe(1, false, G, OpType.OK, 0).poll(1, 0, 1, 11, 2, 12, 3, 13)
                .poll(2, OpType.INFO, reads(0, recs(1, 11)));
        CheckResult r = check(h.ops());
        assertEquals(0, rewinds(r));
    }

    @Test
    void otherGroupsAreNotBoundByTheCommit() {
        H h = committedFive()
                // named groups: the final drain's and a subscribe-from-beginning op's each have their own
                .subscribe(2, true, G + "-new-1", OpType.OK, 0).poll(2, 0, 0, 10)
                // not named (a history from before groups were recorded): a subscribe from the beginning is a new group
                .subscribe(3, true, null, OpType.OK, 0).poll(3, 0, 0, 10)
                // and that group's own commit binds only it
                .poll(3, 0, 1, 11)
                .subscribe(5, true, null, OpType.OK, 0).poll(5, 0, 0, 10);
        assertEquals(0, rewinds(check(h.ops())));
    }

    @Test
    void aFreshGroupsOwnCommitsBindItsLaterPolls() {
        H h = committedFive().subscribe(2, true, null, OpType.OK, 0).poll(2, 0, 0, 10, 1, 11).poll(2, 0, 0, 10);
        assertEquals(1, rewinds(check(h.ops())));
    }

    @Test
    void consumersWithAManualAssignmentAreNotJudged() {
        // assigned (no commits, their own positions), whether from the start or after leaving the group
        H h = committedFive().assign(2, false, 0).poll(2, 0, 0, 10).assign(1, false, 0).poll(1, 0, 2, 12);
        CheckResult r = check(h.ops());
        assertEquals(0, rewinds(r));
    }

    @Test
    void partitionsThePollReturnedNothingOfGetNoFloor() {
        // commitSync also committed key 1's position, which the history does not show: no bound is assumed for it
        H h = new H().subscribe(1, false, G, OpType.OK, 0, 1).poll(1, 0, 0, 10, 1, 11)
                .subscribe(2, false, G, OpType.OK, 0, 1).poll(2, 1, 0, 20);
        assertEquals(0, rewinds(check(h.ops())));
    }

    @Test
    void aFailedSubscribeFromTheBeginningLeavesTheGroupUnknown() {
        H h = committedFive().subscribe(2, true, null, OpType.FAIL, 0).subscribe(2, false, null, OpType.OK, 0)
                .poll(2, 0, 0, 10);
        assertEquals(0, rewinds(check(h.ops())));
    }

    @Test
    void settingsThatPermitLossAllowIt() {
        Set<QueueAnomaly> allowed = EnumSet.copyOf(QueueChecker.allowedFor(true, true));
        allowed.add(QueueAnomaly.GROUP_REWIND);
        H h = committedFive().subscribe(2, false, G, OpType.OK, 0).poll(2, 0, 3, 13);
        CheckResult r = new QueueChecker(new QueueChecker.Options(allowed, 8)).check(h.ops());
        assertEquals(1, rewinds(r));
        assertEquals(Verdict.VALID, r.verdict());
    }

    @Test
    void statsSayHowMuchWasJudged() {
        CheckResult r = check(committedFive().subscribe(2, false, G, OpType.OK, 0).poll(2, 0, 5, 15).ops());
        assertEquals(Map.of("group-commits", 2L, "group-polls-judged", 2L, "group-handovers", 1L),
                Map.of("group-commits", r.stats().get("group-commits"),
                        "group-polls-judged", r.stats().get("group-polls-judged"),
                        "group-handovers", r.stats().get("group-handovers")));
    }
}
