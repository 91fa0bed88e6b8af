package io.faultline.harness.recovery;

import io.faultline.checker.Verdict;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.results.Liveness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.faultline.harness.recovery.Observations.HEAL;
import static io.faultline.harness.recovery.Observations.at;
import static io.faultline.harness.recovery.Observations.healthy;
import static io.faultline.harness.recovery.Observations.n3Paused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The recovery check's decisions, fed recorded observations and histories (no cluster, no clock). */
class LivenessCheckTest {
    private static final Liveness.Bounds BOUNDS = new Liveness.Bounds(60, 256 * 1024);
    private static final long HEAL_NANOS = 100_000_000_000L;

    private static RecoveryRecord recorded(List<Observation> polls) {
        var tracker = new RecoveryTracker(HEAL);
        polls.forEach(tracker::record);
        return new RecoveryRecord(BOUNDS, at(-3).toString(), HEAL_NANOS, at(-100).toString(), at(80).toString(),
                tracker.findings(), null);
    }

    private static Liveness judge(List<Observation> polls) {
        return LivenessCheck.judge(recorded(polls), null, List.of(), true);
    }

    private static List<String> names(Liveness l) {
        return l.anomalies().stream().map(a -> a.name() + " " + a.subject()).toList();
    }

    @Test
    void aClusterThatRecoversWithinTheBoundIsValidAndTheTimeItTookIsRecorded() {
        var l = judge(List.of(n3Paused(0), n3Paused(1), healthy(2.5), healthy(30), healthy(61)));
        assertEquals(Verdict.VALID, l.verdict(), names(l).toString());
        assertEquals(2.5, l.timings().allRecovered());
        assertEquals(2.5, l.timings().brokersServing());
        assertEquals(3.0, l.timings().healSeconds());
        assertEquals(5, l.timings().polls());
    }

    @Test
    void aTopicDeletedAfterTheHealIsNoUnrecoveredPartitionButOneNoAnsweringBrokerDescribesStillIs() {
        // a scratch topic s-0 exists at the first poll; a delete completes after the heal; t-0 stays
        var t = Observations.partition(1, Observations.REPLICAS);
        var s = new NodeView.PartitionView("s", 0, 1, Observations.REPLICAS, Observations.REPLICAS, null);
        var both = new Observation(at(1), List.of(Observations.answering(1, Set.of(1, 2, 3), t, s),
                Observations.answering(2, Set.of(1, 2, 3), t, s), Observations.answering(3, Set.of(1, 2, 3), t, s)));
        var l = judge(List.of(both, healthy(2), healthy(61)));
        assertEquals(Verdict.VALID, l.verdict(), names(l).toString());
        assertEquals(1.0, l.timings().allRecovered(), "recovered at the first poll; the deletion after it undoes nothing");
        // the same disappearance while a broker does not answer is not known to be a deletion
        var n3Silent = new Observation(at(2), List.of(Observations.answering(1, Set.of(1, 2), t),
                Observations.answering(2, Set.of(1, 2), t), Observations.silent(3)));
        var silent = judge(List.of(both, n3Silent, new Observation(at(61), n3Silent.nodes())));
        assertEquals(Verdict.INVALID, silent.verdict());
        assertTrue(names(silent).contains("liveness/unrecovered-isr partition s-0"), names(silent).toString());
    }

    @Test
    void aBrokerLeftFrozenIsUnresponsiveAndItsPartitionsIsrUnrecoveredWithTheirTimelines() {
        var l = judge(List.of(n3Paused(0), n3Paused(1), n3Paused(30), n3Paused(61)));
        assertEquals(Verdict.INVALID, l.verdict());
        assertEquals(List.of("liveness/unresponsive-broker broker n3", "liveness/unrecovered-isr partition t-0"), names(l));
        var broker = l.anomalies().get(0);
        // one sample when the state first showed, one for the last poll: the timeline of what was seen
        assertEquals(2, broker.timeline().size());
        assertEquals(at(0).toString(), broker.timeline().get(0).at());
        assertEquals(61.0, broker.timeline().get(1).secondsAfterHeal());
        assertFalse(broker.timeline().get(1).ok());
        assertTrue(broker.timeline().get(1).state().contains("no answer"), broker.timeline().toString());
        assertTrue(l.anomalies().get(1).explanation().contains("isr [1, 2] of replicas [1, 2, 3]"), l.anomalies().get(1).explanation());
        assertNull(l.timings().allRecovered());
    }

    @Test
    void brokersThatEachSeeARecoveredPartitionButNotTheSameOneDivergeAndAgreeingAfterAMomentIsFine() {
        // n3 still serves leader 1 in epoch 4 after the controller made 2 the leader in epoch 5
        var current = new NodeView.PartitionView("t", 0, 2, 5, Observations.REPLICAS, Observations.REPLICAS, null);
        var stale = new NodeView.PartitionView("t", 0, 1, 4, Observations.REPLICAS, Observations.REPLICAS, null);
        java.util.function.DoubleFunction<Observation> split = s -> new Observation(at(s), List.of(
                Observations.answering(1, Set.of(1, 2, 3), current), Observations.answering(2, Set.of(1, 2, 3), current),
                Observations.answering(3, Set.of(1, 2, 3), stale)));
        var l = judge(List.of(split.apply(0), split.apply(30), split.apply(61)));
        assertEquals(Verdict.INVALID, l.verdict());
        assertEquals(List.of("liveness/diverged-metadata partition t-0"), names(l));
        String last = l.anomalies().get(0).timeline().get(l.anomalies().get(0).timeline().size() - 1).state();
        assertTrue(last.contains("n3: leader 1 (epoch 4)") && last.contains("n1: leader 2 (epoch 5)"), last);
        // the same epochs differing only for a poll, as metadata spreads: no violation
        var agreed = new Observation(at(1), List.of(Observations.answering(1, Set.of(1, 2, 3), current),
                Observations.answering(2, Set.of(1, 2, 3), current), Observations.answering(3, Set.of(1, 2, 3), current)));
        var settled = judge(List.of(split.apply(0), agreed, split.apply(2), new Observation(at(61), agreed.nodes())));
        assertEquals(Verdict.VALID, settled.verdict(), names(settled).toString());
        // the order of replicas and ISR is no disagreement
        var reordered = new NodeView.PartitionView("t", 0, 2, 5, List.of(3, 2, 1), List.of(2, 1, 3), null);
        var same = judge(List.of(new Observation(at(0), List.of(Observations.answering(1, Set.of(1, 2, 3), current),
                Observations.answering(2, Set.of(1, 2, 3), reordered), Observations.answering(3, Set.of(1, 2, 3), current))),
                new Observation(at(61), List.of(Observations.answering(1, Set.of(1, 2, 3), current),
                Observations.answering(2, Set.of(1, 2, 3), reordered), Observations.answering(3, Set.of(1, 2, 3), current)))));
        assertEquals(Verdict.VALID, same.verdict(), names(same).toString());
    }

    @Test
    void theLifecycleAuditsScratchTopicsBesideTheDrainAreNotTheWorkloadsPartitions() {
        // a topic being created: one broker knows it already, the others not yet, at the last poll
        java.util.function.BiFunction<String, Double, Observation> creating = (topic, s) -> {
            var p = Observations.partition(1, Observations.REPLICAS);
            var fresh = new NodeView.PartitionView(topic, 0, 1, Observations.REPLICAS, Observations.REPLICAS, null);
            return new Observation(at(s), List.of(Observations.answering(1, Set.of(1, 2, 3), p, fresh),
                    Observations.answering(2, Set.of(1, 2, 3), p), Observations.answering(3, Set.of(1, 2, 3), p)));
        };
        var scratch = judge(List.of(healthy(0), creating.apply("fl1-audit-grow", 30.0), creating.apply("fl1-audit-grow", 61.0)));
        assertEquals(Verdict.VALID, scratch.verdict(), names(scratch).toString());
        var workload = judge(List.of(healthy(0), creating.apply("fl1-7", 30.0), creating.apply("fl1-7", 61.0)));
        assertEquals(List.of("liveness/unrecovered-isr partition fl1-7-0"), names(workload));
    }

    @Test
    void aGrayFailureBrokerThatTheClusterStillListsAsLeaderButThatAnswersNothingIsUnresponsive() {
        // n2 heartbeats (n1 and n3 list it, it still leads t-0 with a full ISR) but serves no client request
        var p = Observations.partition(2, List.of(1, 2, 3));
        List<Observation> polls = new ArrayList<>();
        for (double s : new double[]{0, 20, 40, 61}) {
            polls.add(new Observation(at(s), List.of(Observations.answering(1, Set.of(1, 2, 3), p), Observations.silent(2),
                    Observations.answering(3, Set.of(1, 2, 3), p))));
        }
        var l = judge(polls);
        assertEquals(Verdict.INVALID, l.verdict());
        assertEquals(List.of("liveness/unresponsive-broker broker n2"), names(l));
    }

    @Test
    void aBrokerThatAnswersButThatNoOneListsAsUnfencedIsFenced() {
        var p = Observations.partition(1, List.of(1, 2));
        List<Observation> polls = new ArrayList<>();
        for (double s : new double[]{0, 61}) {
            polls.add(new Observation(at(s), List.of(Observations.answering(1, Set.of(1, 2), p),
                    Observations.answering(2, Set.of(1, 2), p), Observations.answering(3, Set.of(1, 2), p))));
        }
        var l = judge(polls);
        assertEquals(List.of("liveness/fenced-broker broker n3", "liveness/unrecovered-isr partition t-0"), names(l));
    }

    @Test
    void aPartitionWithoutALeaderIsNamedSo() {
        var p = Observations.partition(-1, List.of());
        var all = Set.of(1, 2, 3);
        var o = new Observation(at(61), List.of(Observations.answering(1, all, p), Observations.answering(2, all, p),
                Observations.answering(3, all, p)));
        assertEquals(List.of("liveness/no-leader partition t-0"), names(judge(List.of(o))));
    }

    /** Every broker answers; t-0 is led by 1 with a full ISR, and 1 gives its end offsets. */
    private static Observation ends(double seconds, long highWatermark, long lastStable) {
        var all = Set.of(1, 2, 3);
        var follower = Observations.partition(1, List.of(1, 2, 3));
        var leader = follower.withEndOffsets(highWatermark, lastStable);
        return new Observation(at(seconds), List.of(Observations.answering(1, all, leader),
                Observations.answering(2, all, follower), Observations.answering(3, all, follower)));
    }

    @Test
    void aTransactionLeftOpenPastTheBoundIsAHangingTransactionWithTheOffsetsSeen() {
        var l = judge(List.of(ends(0, 120, 80), ends(30, 131, 80), ends(61, 131, 80)));
        assertEquals(Verdict.INVALID, l.verdict());
        assertEquals(List.of("liveness/hanging-transaction transactions on t-0"), names(l));
        String last = l.anomalies().get(0).timeline().get(l.anomalies().get(0).timeline().size() - 1).state();
        assertTrue(last.contains("last stable offset 80, high watermark 131 (leader 1)"), last);
        assertNull(l.timings().allRecovered(), "an open transaction keeps the cluster from counting as recovered");
    }

    @Test
    void aTransactionDecidedWithinTheBoundIsFineAndFollowersViewsAreNotJudged() {
        // open at the heal (a producer's transaction that times out), aborted 25 s later: the LSO reaches the HW
        var l = judge(List.of(ends(0, 120, 80), ends(25, 122, 122), ends(61, 122, 122)));
        assertEquals(Verdict.VALID, l.verdict(), names(l).toString());
        assertEquals(25.0, l.timings().allRecovered());
        // a write between the two answers may put the LSO above the HW first asked: no open transaction
        assertEquals(Verdict.VALID, judge(List.of(ends(0, 40, 41), ends(61, 41, 41))).verdict());
    }

    @Test
    void recoveringOnlyAfterTheBoundIsAViolationThoughTheEndLooksFine() {
        var l = judge(List.of(n3Paused(0), n3Paused(59), healthy(70), healthy(75)));
        assertEquals(Verdict.INVALID, l.verdict());
        assertEquals(List.of("liveness/unresponsive-broker broker n3", "liveness/unrecovered-isr partition t-0"), names(l));
        assertTrue(l.anomalies().get(0).explanation().contains("recovered only 70.0 s after"), l.anomalies().get(0).explanation());
        assertEquals(70.0, l.timings().allRecovered());
    }

    @Test
    void aFlapWithinTheBoundThatEndsWellIsFine() {
        var l = judge(List.of(healthy(0), n3Paused(5), healthy(9), healthy(61)));
        assertEquals(Verdict.VALID, l.verdict(), names(l).toString());
    }

    @Test
    void pollsThatEndBeforeTheBoundWithSomethingNotRecoveredDecideNothing() {
        var l = judge(List.of(n3Paused(0), n3Paused(10)));
        assertEquals(Verdict.UNKNOWN, l.verdict());
        assertTrue(l.reason().contains("before the 60.0 s bound"), l.reason());
    }

    @Test
    void whatCannotBeObservedIsUnknownWithAReasonNeverAnException() {
        assertEquals(Verdict.UNKNOWN, LivenessCheck.judge(null, null, List.of(), true).verdict());
        var none = new RecoveryRecord(BOUNDS, null, 0, null, null, new RecoveryTracker(HEAL).findings(), null);
        assertEquals("the cluster was never polled after the final heal", LivenessCheck.judge(none, null, List.of(), true).reason());
        var failed = new RecoveryRecord(BOUNDS, null, 0, null, null, null, "the recovery check could not start: boom");
        assertEquals("the recovery check could not start: boom", LivenessCheck.judge(failed, null, List.of(), true).reason());
        var f = recorded(List.of(healthy(1))).findings();
        var torn = new RecoveryTracker.Findings("not a time", f.lastPollAt(), 1, null, null, null, f.subjects());
        var l = LivenessCheck.judge(new RecoveryRecord(BOUNDS, null, 0, null, null, torn, null), null, List.of(), true);
        assertEquals(Verdict.UNKNOWN, l.verdict());
        assertTrue(l.reason().startsWith("the recovery check failed"), l.reason());
    }

    private static Op send(OpType type, long nanosAfterHeal, int key, long value, Long offset, String error) {
        return new Op(0, type, 1, HEAL_NANOS + nanosAfterHeal, Op.SEND,
                new OpValue.Txn(List.of(new MicroOp.Send(key, value, offset))), error);
    }

    private static Op poll(long nanosAfterHeal, int key, long offset) {
        var reads = Map.of(key, List.of(new MicroOp.Record(offset, 1)));
        return new Op(0, OpType.OK, 2, HEAL_NANOS + nanosAfterHeal, Op.POLL,
                new OpValue.Txn(List.of(new MicroOp.Poll(reads))), null);
    }

    @Test
    void aKeyNoWriteAfterTheHealReachesIsUnwritableAndOneNoReadReturnsIsUnreadable() {
        var history = List.of(
                send(OpType.OK, -5_000_000_000L, 7, 1, 0L, null),          // before the heal: does not count
                send(OpType.FAIL, 1_000_000_000L, 7, 2, null, "NOT_LEADER_OR_FOLLOWER"),
                send(OpType.INFO, 2_000_000_000L, 7, 3, null, "timeout"),
                send(OpType.OK, 1_000_000_000L, 8, 2, 4L, null),
                send(OpType.OK, 1_000_000_000L, 9, 2, 5L, null),
                poll(3_000_000_000L, 8, 4));
        var l = LivenessCheck.judge(recorded(List.of(healthy(1), healthy(61))), null, history, true);
        assertEquals(Verdict.INVALID, l.verdict());
        assertEquals(List.of("liveness/unwritable-key key 7", "liveness/unreadable-key key 9"), names(l));
        var unwritable = l.anomalies().get(0);
        assertEquals(2, unwritable.timeline().size(), "both attempts after the heal, with their outcomes");
        assertEquals(1.0, unwritable.timeline().get(0).secondsAfterHeal());
        assertTrue(unwritable.timeline().get(0).state().contains("NOT_LEADER_OR_FOLLOWER"));
        // with acks=0 an acknowledged write may be gone by design: key 9 is not called unreadable
        var acks0 = LivenessCheck.judge(recorded(List.of(healthy(1), healthy(61))), null, history, false);
        assertEquals(List.of("liveness/unwritable-key key 7"), names(acks0));
    }

    @Test
    void aWriteInFlightAcrossTheHealIsNotJudgedAsAWriteAfterIt() {
        var invoked = new Op(0, OpType.INVOKE, 3, HEAL_NANOS - 1_000_000_000L, Op.SEND,
                new OpValue.Txn(List.of(new MicroOp.Send(10, 1, null))), null);
        var timedOut = new Op(1, OpType.INFO, 3, HEAL_NANOS + 2_000_000_000L, Op.SEND,
                new OpValue.Txn(List.of(new MicroOp.Send(10, 1, null))), "timeout");
        var l = LivenessCheck.judge(recorded(List.of(healthy(1), healthy(61))), null, List.of(invoked, timedOut), true);
        assertEquals(Verdict.VALID, l.verdict(), names(l).toString());
        assertTrue(l.notes().stream().anyMatch(n -> n.startsWith("no write was attempted after the final heal")), l.notes().toString());
        // the same timeout, invoked after the heal, is a write the healed cluster did not take
        var late = new Op(0, OpType.INVOKE, 3, HEAL_NANOS + 500_000_000L, Op.SEND,
                new OpValue.Txn(List.of(new MicroOp.Send(10, 1, null))), null);
        var l2 = LivenessCheck.judge(recorded(List.of(healthy(1), healthy(61))), null, List.of(late, timedOut), true);
        assertEquals(List.of("liveness/unwritable-key key 10"), names(l2));
    }

    private static Op newGroup(long nanosAfterHeal, int process) {
        var keys = new OpValue.Keys(List.of(8), true);
        return new Op(0, OpType.OK, process, HEAL_NANOS + nanosAfterHeal, Op.SUBSCRIBE, keys, null);
    }

    private static Op pollBy(long nanosAfterHeal, int process, int records) {
        List<MicroOp.Record> recs = new ArrayList<>();
        for (int i = 0; i < records; i++) recs.add(new MicroOp.Record(i, i));
        return new Op(0, OpType.OK, process, HEAL_NANOS + nanosAfterHeal, Op.POLL,
                new OpValue.Txn(List.of(new MicroOp.Poll(records == 0 ? Map.of() : Map.of(8, recs)))), null);
    }

    private static Op side(OpType type, long nanosAfterHeal, int process, String f, String value, String error) {
        return new Op(0, type, process, HEAL_NANOS + nanosAfterHeal, f, new OpValue.Text(value), error);
    }

    @Test
    void aSideOpAfterTheHealRefusedEveryTimeIsRefusedAfterHealButOneThatSucceededOnATryIsNot() {
        String kvWrite = io.faultline.workloads.kv.KvOps.WRITE, kvRead = io.faultline.workloads.kv.KvOps.READ;
        var history = List.of(
                // a write invoked before the heal and cut short by it: not judged here
                side(OpType.INVOKE, -2_000_000_000L, 1, kvWrite, "3 7", null),
                side(OpType.INFO, 1_000_000_000L, 1, kvWrite, "3 7", "timed out"),
                // key 0's final write refused once, then taken
                side(OpType.INVOKE, 2_000_000_000L, 0, kvWrite, "0 9", null),
                side(OpType.FAIL, 2_100_000_000L, 0, kvWrite, "0 9", "NOT_LEADER_OR_FOLLOWER"),
                side(OpType.INVOKE, 4_100_000_000L, 0, kvWrite, "0 9", null),
                side(OpType.OK, 4_200_000_000L, 0, kvWrite, "0 9 41", null),
                // the final read refused on each of its two tries
                side(OpType.INVOKE, 5_000_000_000L, 0, kvRead, "", null),
                side(OpType.FAIL, 6_000_000_000L, 0, kvRead, "", "read stopped at 3 of 41"),
                side(OpType.INVOKE, 8_000_000_000L, 0, kvRead, "", null),
                side(OpType.FAIL, 9_000_000_000L, 0, kvRead, "", "read stopped at 3 of 41"));
        var l = LivenessCheck.judge(recorded(List.of(healthy(1), healthy(61))), null, history, true);
        assertEquals(Verdict.INVALID, l.verdict());
        assertEquals(List.of("liveness/refused-after-heal kv-read"), names(l));
        assertEquals(2, l.anomalies().get(0).timeline().size(), "each try");
        assertTrue(l.anomalies().get(0).timeline().get(1).state().contains("read stopped at 3"), l.anomalies().toString());
    }

    @Test
    void aNewGroupsOnlyMemberThatNeverGetsARecordIsUnreadableGroup() {
        var history = List.of(send(OpType.OK, 1_000_000_000L, 8, 2, 4L, null), poll(3_000_000_000L, 8, 4),
                newGroup(2_000_000_000L, 9), pollBy(2_500_000_000L, 9, 0), pollBy(3_500_000_000L, 9, 0));
        var l = LivenessCheck.judge(recorded(List.of(healthy(1), healthy(61))), null, history, true);
        assertEquals(Verdict.INVALID, l.verdict());
        assertEquals(List.of("liveness/unreadable-group new consumer group"), names(l));
        assertEquals(2, l.anomalies().get(0).timeline().size(), "each of its polls");
    }

    @Test
    void nearMissANewGroupThatReadsOnceOrAnOldGroupMemberIsFine() {
        var reads = List.of(send(OpType.OK, 1_000_000_000L, 8, 2, 4L, null), poll(3_000_000_000L, 8, 4),
                newGroup(2_000_000_000L, 9), pollBy(2_500_000_000L, 9, 0), pollBy(3_500_000_000L, 9, 3));
        assertEquals(Verdict.VALID, LivenessCheck.judge(recorded(List.of(healthy(1), healthy(61))), null, reads, true).verdict());
        // a member of the workload's own group (subscribe without a fresh group) may wait on other members
        var oldGroup = new Op(0, OpType.OK, 9, HEAL_NANOS + 2_000_000_000L, Op.SUBSCRIBE,
                new OpValue.Keys(List.of(8), false), null);
        var waits = List.of(send(OpType.OK, 1_000_000_000L, 8, 2, 4L, null), poll(3_000_000_000L, 8, 4),
                oldGroup, pollBy(2_500_000_000L, 9, 0));
        var l = LivenessCheck.judge(recorded(List.of(healthy(1), healthy(61))), null, waits, true);
        assertEquals(Verdict.VALID, l.verdict());
        assertTrue(l.notes().stream().anyMatch(n -> n.startsWith("no consumer joined a new group")), l.notes().toString());
        // nothing acknowledged after the heal: nothing to read, not judged
        var empty = List.of(newGroup(2_000_000_000L, 9), pollBy(2_500_000_000L, 9, 0));
        assertEquals(Verdict.VALID, LivenessCheck.judge(recorded(List.of(healthy(1), healthy(61))), null, empty, true).verdict());
    }

    private static Op takeover(long nanosAfterHeal, int process) {
        return new Op(0, OpType.OK, process, HEAL_NANOS + nanosAfterHeal, Op.SUBSCRIBE,
                new OpValue.Keys(List.of(8), false, "g-new-1"), null);
    }

    @Test
    void aMemberTakingADepartedOnesPlaceThatGetsNothingForTheBoundIsUnreadableGroup() {
        long s = 1_000_000_000L;
        List<Op> history = new ArrayList<>(List.of(send(OpType.OK, s, 8, 2, 4L, null), poll(3 * s, 8, 4),
                newGroup(2 * s, 9), pollBy(5 * s, 9, 2), takeover(6 * s, 9)));
        for (int t = 7; t <= 27; t += 2) history.add(pollBy(t * s, 9, 0));
        var l = LivenessCheck.judge(recorded(List.of(healthy(1), healthy(61))), null, history, true);
        assertEquals(List.of("liveness/unreadable-group consumer group after a member departed"), names(l));
        assertEquals(11, l.anomalies().get(0).timeline().size(), "the newcomer's polls");

        // near misses: the newcomer served once (its predecessor's session expired), or the drain ended too soon
        var servedAfter = new ArrayList<>(history.subList(0, 5));
        servedAfter.add(pollBy(13 * s, 9, 1));
        assertEquals(Verdict.VALID, LivenessCheck.judge(recorded(List.of(healthy(1), healthy(61))), null, servedAfter, true).verdict());
        var early = LivenessCheck.judge(recorded(List.of(healthy(1), healthy(61))), null, history.subList(0, 9), true);
        assertEquals(Verdict.VALID, early.verdict());
        assertTrue(early.notes().stream().anyMatch(n -> n.contains("before the 20 s bound")), early.notes().toString());
    }

    @Test
    void aHistoryWithoutWritesAfterTheHealSaysSoInsteadOfJudging() {
        var l = judge(List.of(healthy(1), healthy(61)));
        assertEquals(Verdict.VALID, l.verdict());
        assertTrue(l.notes().stream().anyMatch(n -> n.startsWith("no write was attempted after the final heal")), l.notes().toString());
    }

    @Test
    void aNodeWhoseLogsGrowFasterThanTheLimitFloods(@TempDir Path nodes) throws Exception {
        // the cluster ran 180 s (see recorded): 180 s × 256 KiB/s is the most a node may log
        Files.createDirectories(nodes.resolve("n1/logs"));
        Files.write(nodes.resolve("n1/console.log"), new byte[1000]);
        Files.write(nodes.resolve("n1/logs/server.log"), new byte[2000]);
        Files.createDirectories(nodes.resolve("n2/data"));
        Files.write(nodes.resolve("n2/console.log"), new byte[180 * 256 * 1024 + 180 * 1024]);
        Files.write(nodes.resolve("n2/data/00000000000000000000.log"), new byte[50_000_000]); // data, not a log
        var l = LivenessCheck.judge(recorded(List.of(healthy(1), healthy(61))), nodes, List.of(), true);
        assertEquals(List.of("liveness/log-flood node n2"), names(l));
        assertEquals(3000, l.logGrowth().get("n1").bytes());
        assertEquals(180.0, l.logGrowth().get("n1").seconds());
        assertNotNull(l.logGrowth().get("n2"));
        assertTrue(l.logGrowth().get("n2").bytesPerSecond() > 256 * 1024);
    }

    private static void checkpoint(Path nodes, String node, long highWatermark) throws Exception {
        Path dir = Files.createDirectories(nodes.resolve(node).resolve("data/kafka"));
        Files.writeString(dir.resolve("replication-offset-checkpoint"), "0\n2\n__consumer_offsets 0 " + (highWatermark + 7)
                + "\nt 0 " + highWatermark + "\n");
    }

    private static Liveness judgeQuiesced(List<Observation> polls, Path nodes, double quiesced) {
        return LivenessCheck.judge(recorded(polls).withQuiesced(quiesced), nodes, List.of(), true);
    }

    @Test
    void aReplicaWhoseHighWatermarkNeverCaughtUpAfterTheHealIsUnconverged(@TempDir Path nodes) throws Exception {
        checkpoint(nodes, "n1", 120);
        checkpoint(nodes, "n2", 120);
        checkpoint(nodes, "n3", 4);
        var notIdle = judgeQuiesced(List.of(healthy(1), healthy(61)), nodes, 0);
        assertEquals(Verdict.VALID, notIdle.verdict(), "stopped right after the workload: a checkpoint may be a few seconds old");
        assertTrue(notIdle.notes().stream().anyMatch(n -> n.contains("high watermarks and log ends not compared")), notIdle.notes().toString());
        var l = judgeQuiesced(List.of(healthy(1), healthy(61)), nodes, RecoveryRecord.CONVERGED_AFTER_SECONDS);
        assertEquals(Verdict.INVALID, l.verdict());
        assertEquals(List.of("liveness/unconverged-replicas partition t-0"), names(l), "__consumer_offsets is not judged");
        assertTrue(l.anomalies().get(0).explanation().contains("checkpointed high watermarks {n1=120, n2=120, n3=4}"), l.anomalies().get(0).toString());
    }

    @Test
    void equalHighWatermarksOrAPartitionStillOutOfTheIsrAreNotJudgedUnconverged(@TempDir Path nodes) throws Exception {
        checkpoint(nodes, "n1", 120);
        checkpoint(nodes, "n2", 120);
        checkpoint(nodes, "n3", 120);
        assertEquals(Verdict.VALID, judgeQuiesced(List.of(healthy(1), healthy(61)), nodes, 6).verdict());
        checkpoint(nodes, "n3", 4);
        var l = judgeQuiesced(List.of(n3Paused(1), n3Paused(61)), nodes, 6);
        assertFalse(names(l).contains("liveness/unconverged-replicas partition t-0"), names(l).toString());
    }

    /** A segment of empty record batches of format v2 (headers only: all the log-end reader looks at). */
    private static void segment(Path nodes, String node, long... batchBaseAndLast) throws Exception {
        Path dir = Files.createDirectories(nodes.resolve(node).resolve("data/kafka/t-0"));
        var b = java.nio.ByteBuffer.allocate(61 * batchBaseAndLast.length / 2 + 16);
        for (int i = 0; i < batchBaseAndLast.length; i += 2) {
            int start = b.position();
            b.putLong(batchBaseAndLast[i]).putInt(49).putInt(0).put((byte) 2).putInt(0).putShort((short) 0)
                    .putInt((int) (batchBaseAndLast[i + 1] - batchBaseAndLast[i]));
            b.position(start + 61);
        }
        Files.write(dir.resolve("00000000000000000000.log"), b.array()); // a zero-filled tail ends the scan
    }

    @Test
    void anInSyncReplicaWhoseLogEndsElsewhereAfterTheQuietIsUnconverged(@TempDir Path nodes) throws Exception {
        for (String n : List.of("n1", "n2", "n3")) checkpoint(nodes, n, 10);
        segment(nodes, "n1", 0, 4, 5, 9);
        segment(nodes, "n2", 0, 4, 5, 9);
        segment(nodes, "n3", 0, 4, 5, 9);
        assertEquals(Verdict.VALID, judgeQuiesced(List.of(healthy(1), healthy(61)), nodes, 6).verdict());
        segment(nodes, "n3", 0, 4, 5, 9, 10, 12); // a tail the others do not have
        var l = judgeQuiesced(List.of(healthy(1), healthy(61)), nodes, 6);
        assertEquals(List.of("liveness/unconverged-replicas partition t-0"), names(l));
        assertTrue(l.anomalies().get(0).explanation().contains("log ends {n1=10, n2=10, n3=13}"), l.anomalies().get(0).toString());
    }
}
