package io.faultline.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.faultline.broker.common.ManualTime;
import io.faultline.broker.storage.EpochEndOffset;
import io.faultline.broker.storage.LogConfig;
import io.faultline.broker.storage.LogManager;
import io.faultline.broker.storage.PartitionLog;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a follower cuts, for each kind of leader answer (Kafka's getOffsetTruncationState cases). */
class FollowerTruncationTest {
    @TempDir
    Path dir;

    /** A follower log with epoch 1 at 0..1 and epoch 2 at 2..3 (LEO 4), HW 1. */
    private ReplicaLog follower() throws Exception {
        LogManager lm = LogManager.open(dir, tp -> LogConfig.DEFAULT, new ManualTime());
        PartitionLog log = lm.getOrCreateLog(new TopicPartition("t", 0));
        log.appendAsLeader(Records.values("a", "b"), 1);
        log.appendAsLeader(Records.values("c", "d"), 2);
        log.updateHighWatermark(1);
        return ReplicaLog.of(log);
    }

    @Test
    void sameEpochTakesTheSmallerEnd() throws Exception {
        ReplicaLog f = follower();
        assertEquals(3, FollowerTruncation.offsetFor(new EpochEndOffset(2, 3), f));
        assertEquals(4, FollowerTruncation.offsetFor(new EpochEndOffset(2, 9), f), "never beyond our own end");
    }

    @Test
    void anEpochWeDoNotKnowCutsToTheEndOfOurLargestSmallerOne() throws Exception {
        // KIP-279: the leader says its largest epoch <= 2 is 1, ending at 3; our epoch 1 ended at 2.
        assertEquals(2, FollowerTruncation.offsetFor(new EpochEndOffset(1, 3), follower()));
    }

    @Test
    void anUnknownAnswerFallsBackToTheHighWatermark() throws Exception {
        assertEquals(1, FollowerTruncation.offsetFor(EpochEndOffset.UNDEFINED, follower()));
    }

    @Test
    void anEpochOlderThanAllOfOursIsBoundedByTheLeadersEnd() throws Exception {
        // Our cache answers (0, start of epoch 1 = 0) for epoch 0: same epoch, smaller end wins.
        assertEquals(0, FollowerTruncation.offsetFor(new EpochEndOffset(0, 5), follower()));
    }
}
