package io.faultline.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.metadata.PartitionRegistration;
import java.util.List;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Leader elections (clean, offline, unclean) and AlterPartition's epoch checks. */
class ElectionTest {

    /** Brokers 1..3 up, topic "t" with one partition of RF 3. */
    private static LogicHarness threeReplicas() {
        LogicHarness h = new LogicHarness();
        h.brokers(1, 2, 3);
        assertEquals(0, h.createTopic("t", 1, 3).errorCode());
        return h;
    }

    private static void killAndExpire(LogicHarness h, int victim, int... survivors) {
        h.time.advance(2000);
        for (int s : survivors) h.heartbeat(s);
        assertEquals(List.of(victim), h.tick());
    }

    private static int[] others(int leader, int... all) {
        return java.util.Arrays.stream(all).filter(b -> b != leader).toArray();
    }

    @Test
    void cleanElectionPicksALiveIsrMemberAndBumpsTheEpochs() {
        LogicHarness h = threeReplicas();
        PartitionRegistration before = h.partition("t", 0);
        assertEquals(List.of(1, 2, 3), before.isr().stream().sorted().toList());
        int leader = before.leader();
        killAndExpire(h, leader, others(leader, 1, 2, 3));
        PartitionRegistration after = h.partition("t", 0);
        assertTrue(after.hasLeader());
        assertTrue(before.isr().contains(after.leader()));
        assertFalse(after.isr().contains(leader));
        assertEquals(before.leaderEpoch() + 1, after.leaderEpoch());
        assertEquals(before.partitionEpoch() + 1, after.partitionEpoch());
    }

    @Test
    void withUncleanElectionOffNoReplicaOutsideTheIsrLeadsThePartitionGoesOffline() {
        LogicHarness h = threeReplicas();
        PartitionRegistration p = h.partition("t", 0);
        int leader = p.leader();
        h.alterIsr("t", 0, leader, p.leaderEpoch(), p.partitionEpoch(), leader); // ISR shrinks to the leader
        killAndExpire(h, leader, others(leader, 1, 2, 3));
        PartitionRegistration offline = h.partition("t", 0);
        assertEquals(PartitionRegistration.NO_LEADER, offline.leader());
        assertEquals(List.of(leader), offline.isr(), "the last ISR member stays in the ISR");
        assertEquals(p.leaderEpoch() + 1, offline.leaderEpoch());

        // The last ISR member comes back: it leads again (clean).
        h.heartbeat(leader);
        PartitionRegistration back = h.partition("t", 0);
        assertEquals(leader, back.leader());
        assertEquals(offline.leaderEpoch() + 1, back.leaderEpoch());
    }

    @Test
    void uncleanElectionPicksALiveReplicaWithAnIsrOfJustItself() {
        LogicHarness h = threeReplicas();
        assertEquals(Errors.NONE, h.setTopicConfig("t", TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "true"));
        PartitionRegistration p = h.partition("t", 0);
        int leader = p.leader();
        h.alterIsr("t", 0, leader, p.leaderEpoch(), p.partitionEpoch(), leader);
        killAndExpire(h, leader, others(leader, 1, 2, 3));
        PartitionRegistration after = h.partition("t", 0);
        assertTrue(after.hasLeader());
        assertFalse(after.leader() == leader);
        assertEquals(List.of(after.leader()), after.isr());
    }

    @Test
    void theControllersStaticUncleanSettingIsTheDefaultBelowTopicAndClusterConfigs() {
        for (boolean topicSaysNo : new boolean[] {false, true}) {
            LogicHarness h = new LogicHarness(ControllerSettings.DEFAULTS.withSessionTimeout(2000, 500).withUncleanLeaderElection(true));
            h.brokers(1, 2, 3);
            assertEquals(0, h.createTopic("t", 1, 3).errorCode());
            if (topicSaysNo) {
                assertEquals(Errors.NONE, h.setTopicConfig("t", TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false"));
            }
            PartitionRegistration p = h.partition("t", 0);
            int leader = p.leader();
            h.alterIsr("t", 0, leader, p.leaderEpoch(), p.partitionEpoch(), leader);
            killAndExpire(h, leader, others(leader, 1, 2, 3));
            PartitionRegistration after = h.partition("t", 0);
            if (topicSaysNo) {
                assertEquals(PartitionRegistration.NO_LEADER, after.leader(), "the topic's false overrides the default");
            } else {
                assertTrue(after.hasLeader() && after.leader() != leader, "server.properties' true allows it");
                assertEquals(List.of(after.leader()), after.isr());
            }
        }
    }

    @Test
    void alterPartitionChecksBrokerLeaderAndPartitionEpochs() {
        LogicHarness h = threeReplicas();
        PartitionRegistration p = h.partition("t", 0);
        int leader = p.leader();
        int follower = others(leader, 1, 2, 3)[0];

        AlterPartitionResponseData.PartitionData ok = h.alterIsr("t", 0, leader, p.leaderEpoch(), p.partitionEpoch(), leader, follower);
        assertEquals(0, ok.errorCode());
        assertEquals(p.partitionEpoch() + 1, ok.partitionEpoch());
        assertEquals(List.of(leader, follower), ok.isr());
        assertEquals(h.partition("t", 0).isr(), ok.isr());

        // Same request again: its partition epoch is now stale.
        assertEquals(Errors.INVALID_UPDATE_VERSION.code(),
                h.alterIsr("t", 0, leader, p.leaderEpoch(), p.partitionEpoch(), leader).errorCode());
        // An old leader epoch is fenced.
        assertEquals(Errors.FENCED_LEADER_EPOCH.code(),
                h.alterIsr("t", 0, leader, p.leaderEpoch() - 1, ok.partitionEpoch(), leader).errorCode());
        // Only the leader may change the ISR.
        assertEquals(Errors.INVALID_REQUEST.code(),
                h.alterIsr("t", 0, follower, p.leaderEpoch(), ok.partitionEpoch(), follower).errorCode());

        // A stale broker epoch fails the whole request.
        AlterPartitionRequestData req = new AlterPartitionRequestData().setBrokerId(leader).setBrokerEpoch(12345);
        AlterPartitionResponseData resp = h.run(req);
        assertEquals(Errors.STALE_BROKER_EPOCH.code(), resp.errorCode());
    }

    @Test
    void aFencedBrokerCannotBeAddedToTheIsr() {
        LogicHarness h = threeReplicas();
        PartitionRegistration p = h.partition("t", 0);
        int leader = p.leader();
        int[] rest = others(leader, 1, 2, 3);
        killAndExpire(h, rest[0], leader, rest[1]);
        PartitionRegistration now = h.partition("t", 0);
        assertEquals(Errors.INELIGIBLE_REPLICA.code(), h.alterIsr("t", 0, leader, now.leaderEpoch(), now.partitionEpoch(),
                leader, rest[1], rest[0]).errorCode());
        assertEquals(now, h.partition("t", 0));
    }
}
