package io.faultline.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.partition.Partition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three brokers and the controller in one JVM, roles from committed metadata: acks=all with min.insync.replicas=2
 * through an ISR shrink (lag, via AlterPartition), a fenced follower, and the expansion back; a leader failover
 * that keeps every acknowledged write and the idempotent producer's deduplication.
 */
class MetadataDrivenReplicationTest {
    private static final long LAG = 5_000;

    @TempDir
    Path dir;
    private long lastHw = -1;
    private int lastEpoch = -1;

    private MetadataCluster cluster() {
        return new MetadataCluster(dir, 3, ReplicationConfig.DEFAULT.withReplicaLagTimeMaxMs(LAG));
    }

    /** acks=all the way ProduceApi does it: min ISR before the append, then the leader state's answer. */
    private Errors produce(MetadataCluster c, TopicPartition tp, short acks, MemoryRecords records) {
        MetadataCluster.Broker leader = c.leaderOf(tp);
        LeaderState ls = leader.replicas.leader(tp).orElseThrow();
        Partition p = leader.partition(tp);
        long last;
        try {
            ls.checkEnoughReplicasForAppend(acks);
            last = p.appendAsLeader(records).lastOffset();
        } catch (ApiException e) {
            return Errors.forException(e);
        }
        for (int i = 0; acks == -1 && i < 10; i++) {
            Optional<Errors> done = ls.ackStatus(last + 1);
            if (done.isPresent()) return done.get();
            c.replicate(1);
            checkHw(c, tp);
        }
        return acks == -1 ? Errors.REQUEST_TIMED_OUT : Errors.NONE;
    }

    private Errors produce(MetadataCluster c, TopicPartition tp, short acks, String value) {
        return produce(c, tp, acks, MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(value.getBytes(StandardCharsets.UTF_8))));
    }

    /** The leader's HW never goes down within a leadership. */
    private void checkHw(MetadataCluster c, TopicPartition tp) {
        MetadataCluster.Broker leader = c.leaderOf(tp);
        if (leader == null || !leader.alive) return;
        int epoch = c.registration(tp).leaderEpoch();
        long hw = leader.partition(tp).highWatermark();
        if (epoch == lastEpoch) assertTrue(hw >= lastHw, "HW went down from " + lastHw + " to " + hw);
        lastEpoch = epoch;
        lastHw = hw;
    }

    private static Set<Integer> isr(MetadataCluster c, TopicPartition tp) {
        return new HashSet<>(c.registration(tp).isr());
    }

    @Test
    void acksAllWithMinIsrTwoThroughShrinkFenceAndExpand() {
        try (MetadataCluster c = cluster()) {
            TopicPartition tp = c.createTopic("t", 3, 2);
            MetadataCluster.Broker leader = c.leaderOf(tp);
            List<Integer> followers = c.registration(tp).replicas().stream().filter(r -> r != leader.id).toList();
            MetadataCluster.Broker f1 = c.brokers.get(followers.get(0));
            MetadataCluster.Broker f2 = c.brokers.get(followers.get(1));
            assertEquals(Set.of(1, 2, 3), isr(c, tp));
            assertEquals(Errors.NONE, produce(c, tp, (short) -1, "a"));

            f2.link(leader.id).cut(true); // f2 keeps heartbeating but cannot fetch
            assertEquals(Errors.NONE, produce(c, tp, (short) 1, "b"));
            int partitionEpoch = c.registration(tp).partitionEpoch();
            for (int i = 0; i < 4; i++) {
                c.replicate(1);
                c.tick(2_000); // the leader's ISR check runs every LAG/2 on the scheduler
                checkHw(c, tp);
            }
            assertEquals(Set.of(leader.id, f1.id), isr(c, tp), "f2 shrunk out through AlterPartition");
            assertTrue(c.registration(tp).partitionEpoch() > partitionEpoch);
            assertEquals(Set.of(leader.id, f1.id), leader.replicas.leader(tp).orElseThrow().isrState().isr());
            assertEquals(Errors.NONE, produce(c, tp, (short) -1, "c"), "one follower out: accepted");

            f1.crash();
            c.tick(3_000); // f1's session expires: fenced, out of the ISR
            assertEquals(Set.of(leader.id), isr(c, tp));
            assertEquals(Errors.NOT_ENOUGH_REPLICAS, produce(c, tp, (short) -1, "d"), "two out: refused");

            f2.link(leader.id).cut(false);
            f1.start();
            for (int i = 0; i < 3; i++) {
                c.tick(1_000); // fetch back-offs expire
                c.replicate(2);
                checkHw(c, tp);
            }
            assertEquals(Set.of(1, 2, 3), isr(c, tp), "both caught up and were added back");
            assertEquals(Errors.NONE, produce(c, tp, (short) -1, "e"));
            c.replicate(2);
            for (MetadataCluster.Broker b : c.brokers.values()) {
                assertEquals(List.of("a", "b", "c", "e"), b.values(tp), "broker " + b.id);
            }
        }
    }

    private static MemoryRecords idempotent(long pid, int seq, String value) {
        return MemoryRecords.withIdempotentRecords(Compression.NONE, pid, (short) 0, seq,
                new SimpleRecord(value.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void leaderFailoverKeepsAcknowledgedWritesAndDeduplication() {
        try (MetadataCluster c = cluster()) {
            TopicPartition tp = c.createTopic("t", 3, 2);
            MetadataCluster.Broker old = c.leaderOf(tp);
            int epoch = c.registration(tp).leaderEpoch();
            assertEquals(Errors.NONE, produce(c, tp, (short) -1, idempotent(5, 0, "x")));
            c.replicate(2);
            old.crash();
            c.tick(3_000); // fenced; the controller elects from the ISR
            MetadataCluster.Broker next = c.leaderOf(tp);
            assertNotEquals(old.id, next.id);
            assertTrue(c.registration(tp).leaderEpoch() > epoch);
            Partition.AppendResult retry = next.partition(tp).appendAsLeader(idempotent(5, 0, "x"));
            assertTrue(retry.duplicate(), "the new leader rebuilt the producer state from replicated batches");
            assertEquals(0, retry.firstOffset());
            assertEquals(Errors.NONE, produce(c, tp, (short) -1, idempotent(5, 1, "y")));

            old.start(); // comes back as a follower of the new leader
            for (int i = 0; i < 3; i++) {
                c.tick(1_000);
                c.replicate(2);
            }
            assertEquals(Set.of(1, 2, 3), isr(c, tp));
            for (MetadataCluster.Broker b : c.brokers.values()) {
                assertEquals(List.of("x", "y"), b.values(tp), "broker " + b.id);
                assertEquals(next.partition(tp).log().epochEntries(), b.partition(tp).log().epochEntries());
            }
        }
    }

    /**
     * Issue 25 (2a): a follower elected leader and deposed before it appended anything keeps its own epoch's entry
     * at its log end. Its first fetch from the next leader gets "the epoch before ends at your log end": truncating to
     * the end cuts no record but must drop that entry, or every later fetch carries the same last fetched epoch, gets
     * the same answer, and the replica never catches up or rejoins the ISR.
     */
    @Test
    void aLeaderDeposedBeforeAppendingInItsEpochCatchesUpAndRejoinsTheIsr() {
        try (MetadataCluster c = cluster()) {
            TopicPartition tp = c.createTopic("t", 3, 2);
            assertEquals(Errors.NONE, produce(c, tp, (short) -1, "a"));
            c.replicate(2);
            MetadataCluster.Broker first = c.leaderOf(tp);
            first.crash();
            c.tick(3_000);
            MetadataCluster.Broker deposed = c.leaderOf(tp); // leads one epoch, appends nothing in it
            int emptyEpoch = c.registration(tp).leaderEpoch();
            assertEquals(Optional.of(emptyEpoch), deposed.partition(tp).log().latestEpoch());
            deposed.pause(); // its session expires: fenced, and the last replica leads (a restart would reload the
            c.tick(3_000);   // log and forget the empty epoch; a paused node keeps it in memory)
            MetadataCluster.Broker last = c.leaderOf(tp);
            assertNotEquals(deposed.id, last.id);
            assertEquals(Errors.NONE, produce(c, tp, (short) 1, "b"));

            deposed.resume(); // learns it follows now, and fetches with its empty epoch as the last fetched one
            first.start();
            for (int i = 0; i < 5; i++) {
                c.tick(1_000);
                c.replicate(2);
            }
            assertEquals(List.of("a", "b"), deposed.values(tp), "the deposed leader fetched past its empty epoch");
            assertEquals(last.partition(tp).log().epochEntries(), deposed.partition(tp).log().epochEntries());
            assertEquals(Set.of(1, 2, 3), isr(c, tp), "and rejoined the ISR");
            ReplicaFetcher f = deposed.replicas.fetchers().fetcherFor(tp).orElseThrow();
            assertEquals(0, f.repeatedDivergences(tp).orElseThrow());
        }
    }
}
