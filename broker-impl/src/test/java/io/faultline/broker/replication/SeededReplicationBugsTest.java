package io.faultline.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.SeededBugs;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seeded replication bugs on in-JVM brokers over the real fetch path: each scenario asserts the wrong
 * behaviour with its switch on and the right one with it off.
 */
class SeededReplicationBugsTest {
    @TempDir
    Path dir;
    private int clusters;

    private InJvmCluster cluster(int brokers, int minIsr, SeededBug... bugs) {
        return new InJvmCluster(dir.resolve("c" + (++clusters)), brokers, minIsr, ReplicationConfig.DEFAULT
                .withReplicaLagTimeMaxMs(10_000).withBugs(SeededBugs.of(bugs)));
    }

    /** acks=all while both followers cannot fetch: the answer and the leader's HW afterwards. */
    private record AcksAll(Errors answer, long hw) {
    }

    private AcksAll acksAllWithFollowersCut(SeededBug... bugs) {
        try (InJvmCluster c = cluster(3, 2, bugs)) {
            c.elect(1);
            assertEquals(Errors.NONE, c.produceAcksAll("a"));
            c.replicate(2);
            c.node(2).link(1).cut(true);
            c.node(3).link(1).cut(true);
            Errors answer = c.produceAcksAll("b");
            return new AcksAll(answer, c.node(1).log.highWatermark());
        }
    }

    @Test
    void acksAllLeaderOnly() {
        assertEquals(new AcksAll(Errors.NONE, 1), acksAllWithFollowersCut(SeededBug.ACKS_ALL_LEADER_ONLY),
                "acknowledged while only the leader has b (the HW did not cover it)");
        assertEquals(new AcksAll(Errors.REQUEST_TIMED_OUT, 1), acksAllWithFollowersCut(),
                "without the bug, acks=all waits for the followers");
    }

    /**
     * KIP-101 scenario 2: A (1) leads with m1 m2, both replicated to B (2); the power cut takes m2 from B; B leads a
     * new epoch and writes m3 at offset 1, then m4 once A is back as its follower. Returns A's and B's records.
     */
    private List<List<String>> divergedTail(SeededBug... bugs) {
        try (InJvmCluster c = cluster(2, 1, bugs)) {
            c.elect(1);
            assertEquals(Errors.NONE, c.produceAcksAll("m1"));
            c.produce("m2");
            c.replicate(3);
            c.node(2).log.truncateTo(1);
            c.node(1).crash();
            c.node(2).crash();
            c.fence(1);
            c.restart(2);
            c.elect(2);
            c.produce("m3");
            c.restart(1);
            c.replicate(3);
            c.produce("m4");
            c.replicate(3);
            return List.of(c.node(1).values(), c.node(2).values());
        }
    }

    @Test
    void followerNoTruncate() {
        assertEquals(List.of(List.of("m1", "m2", "m4"), List.of("m1", "m3", "m4")),
                divergedTail(SeededBug.FOLLOWER_NO_TRUNCATE), "A kept m2 where the leader has m3");
        assertEquals(List.of(List.of("m1", "m3", "m4"), List.of("m1", "m3", "m4")), divergedTail());
    }

    /**
     * The two logs' batches end at different offsets: A (1) leads with m1 (replicated), then appends m2, and m3 m4 as
     * one batch, alone (crashed before B fetched them); B (2) leads a new epoch and writes n1, n2, then n3 n4 n5 as
     * one batch (offsets 3 to 5, across A's end 4, while A's own batch spans 2 to 3). Returns A's and B's records
     * once A has followed B.
     */
    private List<List<String>> tailEndsInsideABatch(SeededBug... bugs) {
        try (InJvmCluster c = cluster(2, 1, bugs)) {
            c.elect(1);
            assertEquals(Errors.NONE, c.produceAcksAll("m1"));
            c.node(2).crash();
            c.produce("m2");
            c.produce("m3", "m4");
            c.node(1).crash();
            c.fence(1);
            c.restart(2);
            c.elect(2);
            c.produce("n1");
            c.produce("n2");
            c.produce("n3", "n4", "n5");
            c.restart(1);
            c.replicate(4);
            c.produce("n6");
            c.replicate(3);
            return List.of(c.node(1).values(), c.node(2).values());
        }
    }

    @Test
    void followerNoTruncateCutsOnlyToTheLeadersBatchAndKeepsReplicating() {
        List<String> b = List.of("m1", "n1", "n2", "n3", "n4", "n5", "n6");
        assertEquals(List.of(List.of("m1", "m2", "n2", "n3", "n4", "n5", "n6"), b), tailEndsInsideABatch(SeededBug.FOLLOWER_NO_TRUNCATE),
                "A keeps m2 where B has n1; cutting to B's batch at 3 takes A's whole batch m3 m4, so A fetches again "
                        + "from 2, takes n2 there, and replicates on");
        assertEquals(List.of(b, b), tailEndsInsideABatch());
    }

    /** acks=1 "b" while both followers cannot fetch: the leader's HW afterwards, and whether acks=all "c" is acked. */
    private AcksAll hwWithFollowersCut(SeededBug... bugs) {
        try (InJvmCluster c = cluster(3, 2, bugs)) {
            c.elect(1);
            c.produce("a");
            c.replicate(2);
            assertEquals(1, c.node(1).log.highWatermark());
            c.node(2).link(1).cut(true);
            c.node(3).link(1).cut(true);
            c.produce("b");
            long hw = c.node(1).log.highWatermark();
            return new AcksAll(c.produceAcksAll("c"), hw);
        }
    }

    @Test
    void hwFromLeaderLeo() {
        assertEquals(new AcksAll(Errors.NONE, 2), hwWithFollowersCut(SeededBug.HW_FROM_LEADER_LEO),
                "the HW covers b and acks=all c is acknowledged, though no follower has either");
        assertEquals(new AcksAll(Errors.REQUEST_TIMED_OUT, 1), hwWithFollowersCut());
    }

    /**
     * min.insync.replicas=2 and both followers dead: the ISR shrinks to the leader alone. The answer to acks=all
     * before the append, and the answer to one appended while the ISR shrank.
     */
    private List<Errors> acksAllBelowMinIsr(SeededBug... bugs) {
        try (InJvmCluster c = cluster(3, 2, bugs)) {
            c.elect(1);
            assertEquals(Errors.NONE, c.produceAcksAll("a"));
            c.node(2).crash();
            c.node(3).crash();
            long last = c.produce("b"); // appended while the ISR still has three members
            LeaderState ls = c.node(1).leaderState().orElseThrow();
            c.tick(11_000);
            assertEquals(java.util.Set.of(1), c.isr);
            Errors afterAppend = ls.ackStatus(last + 1).orElseThrow();
            return List.of(c.produceAcksAll("c"), afterAppend);
        }
    }

    @Test
    void minIsrIgnored() {
        assertEquals(List.of(Errors.NONE, Errors.NONE), acksAllBelowMinIsr(SeededBug.MIN_ISR_IGNORED),
                "acks=all acknowledged with the leader alone in the ISR");
        assertEquals(List.of(Errors.NOT_ENOUGH_REPLICAS, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND), acksAllBelowMinIsr());
    }

    /** Follower 3 dies and lags out: the ISR the controller holds, the leader's own, and the leader's HW. */
    private List<Object> isrAfterFollowerDies(SeededBug... bugs) {
        try (InJvmCluster c = cluster(3, 1, bugs)) {
            c.elect(1);
            c.produce("a");
            c.replicate(2);
            c.node(3).crash();
            c.produce("b");
            c.replicate(2);
            c.tick(11_000);
            return List.of(c.isr, c.node(1).leaderState().orElseThrow().isrState().isr(), c.node(1).log.highWatermark());
        }
    }

    @Test
    void isrShrinkLocal() {
        assertEquals(List.of(java.util.Set.of(1, 2, 3), java.util.Set.of(1, 2), 2L),
                isrAfterFollowerDies(SeededBug.ISR_SHRINK_LOCAL), "the controller still counts 3 as in sync");
        assertEquals(List.of(java.util.Set.of(1, 2), java.util.Set.of(1, 2), 2L), isrAfterFollowerDies());
    }

    /**
     * Three brokers and the controller: producer 5's batch is replicated, the leader dies and a follower is elected;
     * the producer retries the batch there. Returns whether it was a duplicate and the new leader's records.
     */
    private List<Object> retryAfterFailover(SeededBug... bugs) {
        try (MetadataCluster c = new MetadataCluster(dir.resolve("m" + (++clusters)), 3,
                ReplicationConfig.DEFAULT.withReplicaLagTimeMaxMs(5_000), SeededBugs.of(bugs))) {
            org.apache.kafka.common.TopicPartition tp = c.createTopic("t", 3, 2);
            MetadataCluster.Broker old = c.leaderOf(tp);
            old.partition(tp).appendAsLeader(idempotentX());
            c.replicate(2);
            old.crash();
            c.tick(3_000); // fenced; a follower from the ISR leads
            MetadataCluster.Broker next = c.leaderOf(tp);
            assertEquals(true, next.id != old.id);
            boolean duplicate = next.partition(tp).appendAsLeader(idempotentX()).duplicate();
            return List.of(duplicate, next.values(tp));
        }
    }

    private static org.apache.kafka.common.record.internal.MemoryRecords idempotentX() {
        return org.apache.kafka.common.record.internal.MemoryRecords.withIdempotentRecords(
                org.apache.kafka.common.compress.Compression.NONE, 5L, (short) 0, 0,
                new org.apache.kafka.common.record.internal.SimpleRecord("x".getBytes()));
    }

    @Test
    void dedupNotRebuiltAcrossFailover() {
        assertEquals(List.of(false, List.of("x", "x")), retryAfterFailover(SeededBug.DEDUP_NOT_REBUILT),
                "the new leader wrote the retry a second time");
        assertEquals(List.of(true, List.of("x")), retryAfterFailover());
    }
}
