package io.faultline.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.SeededBugs;
import io.faultline.broker.metadata.PartitionRegistration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The seeded controller bugs: each election shown with its switch (wrong) and without (right). */
class SeededControllerBugsTest {

    private static LogicHarness threeReplicas(SeededBug... bugs) {
        LogicHarness h = new LogicHarness(ControllerSettings.DEFAULTS.withSessionTimeout(2000, 500)
                .withBugs(SeededBugs.of(bugs)));
        h.brokers(1, 2, 3);
        assertEquals(0, h.createTopic("t", 1, 3).errorCode());
        return h;
    }

    private static void killAndExpire(LogicHarness h, int victim) {
        h.time.advance(2000);
        for (int s : List.of(1, 2, 3)) if (s != victim) h.heartbeat(s);
        assertEquals(List.of(victim), h.tick());
    }

    /**
     * The first follower in replica order falls out of the ISR; then the leader dies. Returns whether the new
     * leader is that out-of-sync replica.
     */
    private static boolean outOfSyncReplicaElected(SeededBug... bugs) {
        LogicHarness h = threeReplicas(bugs);
        PartitionRegistration p = h.partition("t", 0);
        int leader = p.leader();
        List<Integer> followers = p.replicas().stream().filter(r -> r != leader).toList();
        int outOfSync = followers.get(0);
        h.alterIsr("t", 0, leader, p.leaderEpoch(), p.partitionEpoch(), leader, followers.get(1));
        killAndExpire(h, leader);
        PartitionRegistration after = h.partition("t", 0);
        return after.leader() == outOfSync;
    }

    @Test
    void electionIgnoresIsr() {
        assertEquals(true, outOfSyncReplicaElected(SeededBug.ELECTION_IGNORES_ISR),
                "a replica outside the ISR was elected in a clean election");
        assertEquals(false, outOfSyncReplicaElected());
    }

    /** The leader epoch before and after the leader dies and another is elected. */
    private static List<Integer> epochsAcrossElection(SeededBug... bugs) {
        LogicHarness h = threeReplicas(bugs);
        PartitionRegistration before = h.partition("t", 0);
        killAndExpire(h, before.leader());
        PartitionRegistration after = h.partition("t", 0);
        assertEquals(true, after.hasLeader() && after.leader() != before.leader());
        return List.of(after.leaderEpoch() - before.leaderEpoch(), after.partitionEpoch() - before.partitionEpoch());
    }

    @Test
    void epochNotBumped() {
        assertEquals(List.of(0, 1), epochsAcrossElection(SeededBug.EPOCH_NOT_BUMPED),
                "new leader, same leader epoch");
        assertEquals(List.of(1, 1), epochsAcrossElection());
    }
}
