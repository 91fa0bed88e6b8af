package io.faultline.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30: after a follower died, acks=all writes waited the whole replica.lag.time.max.ms although the controller
 * fenced it after its session. Three in-JVM brokers and the controller's logic on a manual clock: the write is
 * acknowledged as soon as the fence (and the ISR removal that goes with it) is committed, long before the lag time.
 */
class FencedFollowerHighWatermarkTest {
    private static final long LAG = 10_000;

    @TempDir
    Path dir;

    private static MemoryRecords value(String v) {
        return MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(v.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void acksAllResumesOnceTheDeadFollowerIsFencedNotAfterTheLagTime() {
        try (MetadataCluster c = new MetadataCluster(dir, 3, ReplicationConfig.DEFAULT.withReplicaLagTimeMaxMs(LAG))) {
            TopicPartition tp = c.createTopic("t", 3, 2);
            MetadataCluster.Broker leader = c.leaderOf(tp);
            List<Integer> followers = c.registration(tp).replicas().stream().filter(r -> r != leader.id).toList();
            MetadataCluster.Broker dead = c.brokers.get(followers.get(0));
            MetadataCluster.Broker live = c.brokers.get(followers.get(1));
            leader.partition(tp).appendAsLeader(value("a"));
            c.replicate(2);
            assertEquals(1, leader.partition(tp).highWatermark(), "all three have a");

            dead.crash();
            long end = leader.partition(tp).appendAsLeader(value("b")).lastOffset() + 1;
            c.replicate(2);
            assertEquals(end, live.partition(tp).log().logEndOffset(), "the live follower has b");
            LeaderState ls = leader.replicas.leader(tp).orElseThrow();
            assertEquals(Optional.empty(), ls.ackStatus(end), "the dead follower is still in the ISR");

            c.tick(3_000); // its 2 s session lapses: fenced and dropped from the ISR by the controller
            assertEquals(Set.of(leader.id, live.id), new HashSet<>(c.registration(tp).isr()));
            assertEquals(end, leader.partition(tp).highWatermark(), "3 s after the kill, not the 10 s lag time");
            assertEquals(Optional.of(Errors.NONE), ls.ackStatus(end), "ISR of 2 meets min.insync.replicas=2");
        }
    }
}
