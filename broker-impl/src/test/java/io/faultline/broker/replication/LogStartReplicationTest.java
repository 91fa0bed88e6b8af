package io.faultline.broker.replication;

import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A leader's log start offset (moved by DeleteRecords) reaches its followers through their fetches, and the low
 * watermark a DeleteRecords waits for counts them: found by Faultline's trimmed-log workload, where broker-impl
 * answered a cut at 407 and, after a failover, a follower that had kept its old start served offset 24 again.
 */
class LogStartReplicationTest {
    @TempDir
    Path dir;

    @Test
    void followersTakeTheLeadersLogStartAndTheLowWatermarkWaitsForThem() {
        try (InJvmCluster c = new InJvmCluster(dir, 3, 2, ReplicationConfig.DEFAULT.withReplicaLagTimeMaxMs(10_000))) {
            c.elect(1);
            assertEquals(Errors.NONE, c.produceAcksAll("a", "b", "c", "d", "e", "f"));
            c.replicate(2);
            LeaderState leader = c.node(1).leaderState().orElseThrow();
            assertEquals(0, leader.lowWatermark());

            c.node(1).log.maybeIncrementLogStartOffset(4);
            assertEquals(4, c.node(1).log.logStartOffset());
            assertEquals(0, leader.lowWatermark(), "the followers have not fetched since: they still start at 0");

            c.replicate(2); // the leader's start in the answer; the next fetch reports the follower's own
            assertEquals(4, c.node(2).log.logStartOffset());
            assertEquals(4, c.node(3).log.logStartOffset());
            assertEquals(4, leader.lowWatermark());

            // the next leader serves from the cut, not from what was deleted
            c.node(1).crash();
            c.fence(1);
            c.elect(2);
            assertEquals(4, c.node(2).leaderState().orElseThrow().logStartOffset());
        }
    }

    @Test
    void aFollowerThatIsNotLiveDoesNotHoldTheLowWatermarkBack() {
        try (InJvmCluster c = new InJvmCluster(dir, 3, 2, ReplicationConfig.DEFAULT.withReplicaLagTimeMaxMs(10_000))) {
            c.elect(1);
            assertEquals(Errors.NONE, c.produceAcksAll("a", "b", "c", "d"));
            c.replicate(2);
            LeaderState leader = c.node(1).leaderState().orElseThrow();
            leader.setEligibleForIsr(id -> id != 3); // broker 3 fenced: not live
            c.node(3).crash();
            c.node(1).log.maybeIncrementLogStartOffset(2);
            c.replicate(2);
            assertEquals(2, leader.lowWatermark(), "broker 2 took the start; fenced broker 3 is not counted");
        }
    }
}
