package io.faultline.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-101's two scenarios and KIP-279's fast leader changes, replayed on in-JVM brokers over the real fetch path.
 * In high-watermark mode (Kafka before KIP-101) each loses an acknowledged write or leaves the replicas diverged;
 * in leader-epoch mode none does.
 */
class ReplicationScenarioTest {
    @TempDir
    Path dir;

    private InJvmCluster cluster(TruncationMode mode, int brokers, int minIsr) {
        return new InJvmCluster(dir.resolve(mode.configValue()), brokers, minIsr,
                ReplicationConfig.DEFAULT.withTruncation(mode).withReplicaLagTimeMaxMs(10_000));
    }

    /**
     * KIP-101 scenario 1. B (1) leads, A (2) follows, min.insync.replicas 1. m2 is acknowledged once A fetched it,
     * but A never hears the HW that covers it; A restarts (still in the ISR), B dies, A leads.
     */
    private List<String> scenario1(TruncationMode mode) {
        try (InJvmCluster c = cluster(mode, 2, 1)) {
            c.elect(1);
            assertEquals(Errors.NONE, c.produceAcksAll("m1"));
            c.replicate(1); // A learns HW=1
            assertEquals(1, c.node(2).log.highWatermark());
            LoopbackEndpoint aToB = c.node(2).link(1);
            c.produce("m2");
            c.replicate(1); // A fetches m2 (its HW stays 1)
            aToB.dropResponses(true);
            c.replicate(1); // A's next fetch tells B it has m2: HW=2 on B, but the answer never reaches A
            assertEquals(Errors.NONE, c.node(1).leaderState().orElseThrow().ackStatus(2).orElseThrow(), "m2 acked");
            assertEquals(1, c.node(2).log.highWatermark());
            c.node(2).crash();
            aToB.cut(true);
            c.restart(2); // back before any failure detection: still in the ISR
            c.replicate(2);
            c.node(1).crash();
            c.fence(1);
            c.elect(2);
            c.produce("m3");
            return c.node(2).values();
        }
    }

    @Test
    void scenario1HighWatermarkTruncationLosesAnAcknowledgedWrite() {
        assertEquals(List.of("m1", "m3"), scenario1(TruncationMode.HIGH_WATERMARK));
    }

    @Test
    void scenario1LeaderEpochKeepsTheAcknowledgedWrite() {
        assertEquals(List.of("m1", "m2", "m3"), scenario1(TruncationMode.LEADER_EPOCH));
    }

    /**
     * KIP-101 scenario 2. A (1) leads with m1, m2 replicated to B (2). Both lose power; B loses m2 (unflushed),
     * restarts first and leads in a new epoch with m3 at offset 1; A returns as follower.
     */
    private InJvmCluster scenario2(TruncationMode mode) {
        InJvmCluster c = cluster(mode, 2, 1);
        c.elect(1);
        assertEquals(Errors.NONE, c.produceAcksAll("m1"));
        c.produce("m2");
        c.replicate(3);
        assertEquals(2, c.node(1).log.highWatermark());
        c.node(2).log.truncateTo(1); // the power cut takes B's unflushed tail
        c.node(1).crash();
        c.node(2).crash();
        c.fence(1);
        c.restart(2);
        c.elect(2);
        c.produce("m3");
        c.restart(1);
        c.replicate(5);
        return c;
    }

    @Test
    void scenario2HighWatermarkTruncationLeavesReplicasDiverged() {
        try (InJvmCluster c = scenario2(TruncationMode.HIGH_WATERMARK)) {
            assertEquals(List.of("m1", "m3"), c.node(2).values());
            assertEquals(List.of("m1", "m2"), c.node(1).values(), "A kept m2 at the offset where B has m3");
            assertEquals(c.node(1).log.logEndOffset(), c.node(2).log.logEndOffset(), "same length, different data");
        }
    }

    @Test
    void scenario2LeaderEpochTruncatesToTheCommonPrefix() {
        try (InJvmCluster c = scenario2(TruncationMode.LEADER_EPOCH)) {
            assertEquals(List.of("m1", "m3"), c.node(2).values());
            assertEquals(Records.dump(c.node(2).log), Records.dump(c.node(1).log));
        }
    }

    /**
     * KIP-279 fast leader changes. A (1) leads epoch 1 with x1 x2 everywhere and y1 y2 only locally. B (2) takes
     * over alone (A stopped, out of the ISR) and writes z1 z2 at the same offsets (acks=1). B stops; A leads again
     * (unclean: B's epoch never reached it) and writes w1; B comes back as follower.
     */
    private InJvmCluster scenario3(TruncationMode mode) {
        InJvmCluster c = cluster(mode, 2, 1);
        c.elect(1);
        assertEquals(Errors.NONE, c.produceAcksAll("x1", "x2"));
        c.replicate(2);
        c.produce("y1", "y2");
        c.pause(1); // A stops before it hears of the next epoch
        c.forceElect(2, Set.of(2));
        c.produce("z1", "z2");
        assertEquals(4, c.node(2).log.highWatermark(), "B alone in the ISR: its writes are committed");
        c.pause(2);
        c.forceElect(1, Set.of(1)); // A learns of epoch 3 only as it continues: it skipped epoch 2
        c.resume(1);
        c.produce("w1");
        c.resume(2);
        c.tick(10_000); // back-offs expire
        c.replicate(6);
        return c;
    }

    @Test
    void scenario3HighWatermarkTruncationDivergesSilently() {
        try (InJvmCluster c = scenario3(TruncationMode.HIGH_WATERMARK)) {
            assertEquals(List.of("x1", "x2", "y1", "y2", "w1"), c.node(1).values());
            assertEquals(List.of("x1", "x2", "z1", "z2", "w1"), c.node(2).values(),
                    "offsets 2-3 hold different records on the two replicas");
        }
    }

    @Test
    void scenario3LeaderEpochConvergesOnTheLeadersLog() {
        try (InJvmCluster c = scenario3(TruncationMode.LEADER_EPOCH)) {
            assertEquals(List.of("x1", "x2", "y1", "y2", "w1"), c.node(1).values());
            assertEquals(Records.dump(c.node(1).log), Records.dump(c.node(2).log));
        }
    }

    /** acks=all with min.insync.replicas=2 on three brokers: shrink, refuse, expand; the HW never goes down. */
    @Test
    void acksAllWithMinIsrTwo() {
        try (InJvmCluster c = cluster(TruncationMode.LEADER_EPOCH, 3, 2)) {
            c.elect(1);
            assertEquals(Errors.NONE, c.produceAcksAll("a"));
            c.node(3).crash();
            c.produce("b"); // acks=1: the leader moves ahead of the dead follower
            c.replicate(1);
            c.tick(5_000);
            c.replicate(1);
            assertEquals(Set.of(1, 2, 3), c.isr, "not lagging long enough yet");
            assertEquals(1, c.node(1).log.highWatermark(), "3 is in the ISR and holds the HW");
            c.tick(6_000);
            assertEquals(Set.of(1, 2), c.isr, "3 shrunk out after replica.lag.time.max.ms");
            assertEquals(2, c.node(1).log.highWatermark(), "the committed shrink lets the HW move");
            assertEquals(Errors.NONE, c.produceAcksAll("c"), "one follower down: still accepted");
            c.node(2).crash();
            c.produce("d");
            c.tick(11_000);
            assertEquals(Set.of(1), c.isr);
            assertEquals(Errors.NOT_ENOUGH_REPLICAS, c.produceAcksAll("e"), "two down: refused before the append");
            assertEquals(List.of("a", "b", "c", "d"), c.node(1).values());
            c.restart(2);
            c.restart(3);
            c.replicate(3);
            assertEquals(Set.of(1, 2, 3), c.isr, "both expanded back once caught up");
            assertEquals(Errors.NONE, c.produceAcksAll("f"));
            c.replicate(2);
            for (int id : List.of(1, 2, 3)) assertEquals(List.of("a", "b", "c", "d", "f"), c.node(id).values());
            assertEquals(5, c.node(3).log.highWatermark());
        }
    }
}
