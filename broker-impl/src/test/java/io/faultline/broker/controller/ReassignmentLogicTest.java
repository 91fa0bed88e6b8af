package io.faultline.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataSerde;
import io.faultline.broker.metadata.PartitionRegistration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Reassignment (start, catch-up through AlterPartition, completion with leader hand-over, cancel, refusals) and
 * leader elections (preferred, unclean, periodic rebalance on the injected clock) as the controller decides them.
 */
class ReassignmentLogicTest {

    /** Brokers 1..5 up; topic "t" with one partition on replicas 1, 2 (leader 1). */
    private static LogicHarness twoOfFive() {
        LogicHarness h = new LogicHarness();
        h.brokers(1, 2, 3, 4, 5);
        assertEquals(0, h.createTopic("t", 1, 2).errorCode());
        // Pin the placement: move to [1, 2] whatever the placement chose, and let it complete.
        PartitionRegistration p = h.partition("t", 0);
        if (!p.replicas().equals(List.of(1, 2))) {
            assertEquals(Errors.NONE, reassign(h, 1, 2));
            catchUp(h);
            p = h.partition("t", 0);
        }
        if (p.leader() != 1) assertEquals(Errors.NONE, elect(h, ElectionType.PREFERRED));
        assertEquals(List.of(1, 2), h.partition("t", 0).replicas());
        assertEquals(1, h.partition("t", 0).leader());
        return h;
    }

    static Errors reassign(LogicHarness h, Integer... target) {
        AlterPartitionReassignmentsRequestData req = new AlterPartitionReassignmentsRequestData();
        req.topics().add(new AlterPartitionReassignmentsRequestData.ReassignableTopic().setName("t")
                .setPartitions(new ArrayList<>(List.of(new AlterPartitionReassignmentsRequestData.ReassignablePartition()
                        .setPartitionIndex(0).setReplicas(target == null ? null : new ArrayList<>(Arrays.asList(target)))))));
        AlterPartitionReassignmentsResponseData resp = h.run(req);
        return Errors.forCode(resp.responses().get(0).partitions().get(0).errorCode());
    }

    static Errors elect(LogicHarness h, ElectionType type) {
        ElectLeadersRequestData req = new ElectLeadersRequestData().setElectionType(type.value);
        req.topicPartitions().add(new ElectLeadersRequestData.TopicPartitions().setTopic("t")
                .setPartitions(new ArrayList<>(List.of(0))));
        ElectLeadersResponseData resp = h.run(req);
        return Errors.forCode(resp.replicaElectionResults().get(0).partitionResult().get(0).errorCode());
    }

    /** The leader reports every replica in sync (what it does once they caught up). */
    private static void catchUp(LogicHarness h) {
        PartitionRegistration p = h.partition("t", 0);
        h.alterIsr("t", 0, p.leader(), p.leaderEpoch(), p.partitionEpoch(), p.replicas().toArray(Integer[]::new));
    }

    @Test
    void aMoveAddsTheTargetWaitsForItToCatchUpThenDropsTheOldReplicasAndTheirLeader() {
        LogicHarness h = twoOfFive();
        PartitionRegistration before = h.partition("t", 0);
        assertEquals(Errors.NONE, reassign(h, 3, 4));

        PartitionRegistration moving = h.partition("t", 0);
        assertEquals(List.of(3, 4, 1, 2), moving.replicas(), "target first, then the replicas that leave");
        assertEquals(List.of(3, 4), moving.addingReplicas());
        assertEquals(List.of(1, 2), moving.removingReplicas());
        assertEquals(1, moving.leader(), "the old leader leads until the new replicas are in sync");
        assertEquals(before.leaderEpoch() + 1, moving.leaderEpoch());
        assertEquals(before.partitionEpoch() + 1, moving.partitionEpoch());

        // One new replica in sync is not enough.
        h.alterIsr("t", 0, 1, moving.leaderEpoch(), moving.partitionEpoch(), 1, 2, 3);
        assertTrue(h.partition("t", 0).isReassigning());
        PartitionRegistration half = h.partition("t", 0);
        h.alterIsr("t", 0, 1, half.leaderEpoch(), half.partitionEpoch(), 1, 2, 3, 4);

        PartitionRegistration done = h.partition("t", 0);
        assertFalse(done.isReassigning());
        assertEquals(List.of(3, 4), done.replicas());
        assertEquals(List.of(3, 4), done.isr());
        assertEquals(3, done.leader(), "the removed leader hands over to the first target replica in the ISR");
        assertEquals(half.leaderEpoch() + 1, done.leaderEpoch());
    }

    @Test
    void cancelRevertsToTheOriginalReplicasAndListShowsOnlyMovesInProgress() {
        LogicHarness h = twoOfFive();
        assertEquals(Errors.NO_REASSIGNMENT_IN_PROGRESS, reassign(h, (Integer[]) null));
        assertTrue(list(h).topics().isEmpty());

        assertEquals(Errors.NONE, reassign(h, 1, 5));
        ListPartitionReassignmentsResponseData.OngoingPartitionReassignment ongoing =
                list(h).topics().get(0).partitions().get(0);
        assertEquals(List.of(1, 5, 2), ongoing.replicas());
        assertEquals(List.of(5), ongoing.addingReplicas());
        assertEquals(List.of(2), ongoing.removingReplicas());

        assertEquals(Errors.NONE, reassign(h, (Integer[]) null));
        PartitionRegistration back = h.partition("t", 0);
        assertEquals(List.of(1, 2), back.replicas());
        assertFalse(back.isReassigning());
        assertEquals(1, back.leader());
        assertTrue(list(h).topics().isEmpty());
    }

    @Test
    void badTargetsAreRefusedWithKafkasErrors() {
        LogicHarness h = twoOfFive();
        assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT, reassign(h, 1, 9), "unknown broker");
        assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT, reassign(h, 3, 3), "duplicate replicas");
        assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT, reassign(h), "empty target");
        assertEquals(List.of(1, 2), h.partition("t", 0).replicas());
        assertFalse(h.partition("t", 0).isReassigning());
    }

    @Test
    void aShrinkCompletesAtOnceAndAMoveInProgressSurvivesASnapshot() {
        LogicHarness h = twoOfFive();
        assertEquals(Errors.NONE, reassign(h, 2));
        assertEquals(List.of(2), h.partition("t", 0).replicas());
        assertEquals(2, h.partition("t", 0).leader());

        assertEquals(Errors.NONE, reassign(h, 2, 5));
        MetadataImage restored = MetadataSerde.deserializeImage(MetadataSerde.serializeImage(h.image));
        PartitionRegistration p = restored.topic("t").orElseThrow().partition(0);
        assertEquals(h.partition("t", 0), p);
        assertEquals(List.of(5), p.addingReplicas());
        // And the batch that started it replays the same way on another node.
        MetadataImage replayed = MetadataImage.EMPTY.apply(MetadataSerde.deserializeBatch(MetadataSerde.serializeBatch(h.log)));
        assertEquals(h.partition("t", 0), replayed.topic("t").orElseThrow().partition(0));
    }

    @Test
    void preferredElectionReturnsLeadershipOnlyToAnInSyncPreferredReplica() {
        LogicHarness h = twoOfFive();
        assertEquals(Errors.ELECTION_NOT_NEEDED, elect(h, ElectionType.PREFERRED));
        h.heartbeat(1, true); // controlled shutdown of 1: leadership moves to 2, 1 leaves the ISR
        assertEquals(2, h.partition("t", 0).leader());
        assertEquals(Errors.PREFERRED_LEADER_NOT_AVAILABLE, elect(h, ElectionType.PREFERRED));

        h.register(1, new org.apache.kafka.common.Uuid(7, 1));
        h.heartbeat(1);
        PartitionRegistration p = h.partition("t", 0);
        h.alterIsr("t", 0, 2, p.leaderEpoch(), p.partitionEpoch(), 2, 1);
        assertEquals(Errors.NONE, elect(h, ElectionType.PREFERRED));
        assertEquals(1, h.partition("t", 0).leader());
    }

    @Test
    void uncleanElectionIsRefusedWhileTheIsrLeadsAndElectsAnOutOfSyncReplicaWhenItCannot() {
        LogicHarness h = twoOfFive();
        assertEquals(Errors.ELECTION_NOT_NEEDED, elect(h, ElectionType.UNCLEAN));
        PartitionRegistration p = h.partition("t", 0);
        h.alterIsr("t", 0, 1, p.leaderEpoch(), p.partitionEpoch(), 1); // 2 falls behind
        h.time.advance(2000);
        for (int b : new int[] {2, 3, 4, 5}) h.heartbeat(b);
        assertEquals(List.of(1), h.tick());
        assertEquals(PartitionRegistration.NO_LEADER, h.partition("t", 0).leader());

        assertEquals(Errors.NONE, elect(h, ElectionType.UNCLEAN));
        PartitionRegistration after = h.partition("t", 0);
        assertEquals(2, after.leader());
        assertEquals(List.of(2), after.isr());
    }

    @Test
    void theRebalanceRunsOnTheInjectedClockAndMovesLeadershipBackToPreferredReplicas() {
        LogicHarness h = new LogicHarness(ControllerSettings.DEFAULTS.withSessionTimeout(2000, 500)
                .withLeaderRebalance(true, 60_000, 10));
        h.brokers(1, 2);
        assertEquals(0, h.createTopic("t", 1, 2).errorCode());
        PartitionRegistration p = h.partition("t", 0);
        int preferred = p.replicas().get(0);
        int other = p.replicas().get(1);
        h.heartbeat(preferred, true);
        assertEquals(other, h.partition("t", 0).leader());
        h.register(preferred, new org.apache.kafka.common.Uuid(7, preferred));
        h.heartbeat(preferred);
        PartitionRegistration q = h.partition("t", 0);
        h.alterIsr("t", 0, other, q.leaderEpoch(), q.partitionEpoch(), other, preferred);

        assertTrue(h.logic.rebalanceLeaders(h.image).response().isEmpty(), "not due yet");
        h.time.advance(60_000);
        h.heartbeat(other);
        h.heartbeat(preferred);
        ControllerResult<List<TopicPartition>> r = h.logic.rebalanceLeaders(h.image);
        h.commit(r.records());
        assertEquals(List.of(new TopicPartition("t", 0)), r.response());
        assertEquals(preferred, h.partition("t", 0).leader());

        LogicHarness off = new LogicHarness(ControllerSettings.DEFAULTS.withLeaderRebalance(false, 60_000, 10));
        off.time.advance(120_000);
        assertTrue(off.logic.rebalanceLeaders(off.image).records().isEmpty());
    }

    private static ListPartitionReassignmentsResponseData list(LogicHarness h) {
        return Reassignments.list(h.image, new ListPartitionReassignmentsRequestData().setTopics(null));
    }
}
