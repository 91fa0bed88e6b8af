package io.faultline.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.SeededBugs;
import io.faultline.broker.common.Time;
import io.faultline.broker.storage.LogConfig;
import io.faultline.broker.storage.PartitionLog;
import io.faultline.broker.storage.RecoveryState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The seeded bugs of one partition: each shows the wrong behaviour with its switch and the right one without. */
class SeededPartitionBugsTest {
    @TempDir
    Path dir;
    private int opened;
    private final List<PartitionLog> logs = new ArrayList<>();

    private Partition open(SeededBug... bugs) throws Exception {
        PartitionLog log = PartitionLog.open(dir.resolve("p" + (++opened)).resolve("t-0"), LogConfig.DEFAULT,
                Time.SYSTEM, RecoveryState.UNKNOWN);
        logs.add(log);
        return new Partition(new TopicPartition("t", 0), Uuid.ONE_UUID, log, 1, tp -> { }, null,
                SeededBugs.of(bugs));
    }

    @AfterEach
    void closeLogs() {
        logs.forEach(PartitionLog::close);
    }

    private static MemoryRecords values(String... vs) {
        SimpleRecord[] r = new SimpleRecord[vs.length];
        for (int i = 0; i < vs.length; i++) r[i] = new SimpleRecord(vs[i].getBytes());
        return MemoryRecords.withRecords(Compression.NONE, r);
    }

    private static List<String> valuesOf(MemoryRecords records) {
        List<String> out = new ArrayList<>();
        for (RecordBatch b : records.batches()) {
            for (Record r : b) {
                byte[] v = new byte[r.valueSize()];
                r.value().get(v);
                out.add(new String(v));
            }
        }
        return out;
    }

    /** A leader of three replicas whose followers have fetched nothing yet: what a consumer reads from offset 0. */
    private List<String> consumerReadBeforeReplication(SeededBug... bugs) throws Exception {
        Partition p = open(bugs);
        p.replicateWith(() -> { }); // replication owns the HW; no follower has fetched, so it stays at 0
        p.makeLeader(1, 0, List.of(1, 2, 3), Set.of(1, 2, 3));
        p.appendAsLeader(values("a", "b"));
        assertEquals(0, p.highWatermark());
        List<String> read = valuesOf((MemoryRecords) p.read(0, 1 << 20, true, -1).records());
        assertEquals(List.of("a", "b"), valuesOf((MemoryRecords) p.read(0, 1 << 20, false, -1).records()),
                "a follower reads to the log end either way");
        return read;
    }

    @Test
    void readPastHw() throws Exception {
        assertEquals(List.of("a", "b"), consumerReadBeforeReplication(SeededBug.READ_PAST_HW),
                "the consumer sees records above the high watermark");
        assertEquals(List.of(), consumerReadBeforeReplication());
    }

    /**
     * Leads epoch 1 with "a", then metadata makes it a follower of broker 2 in epoch 2. Returns what it answers to a
     * produce of "b" and a consumer fetch from a client still on epoch 1 ("refused" for NOT_LEADER_OR_FOLLOWER or
     * FENCED_LEADER_EPOCH).
     */
    private List<String> afterLosingLeadership(SeededBug... bugs) throws Exception {
        Partition p = open(bugs);
        p.makeLeader(1, 0, List.of(1, 2), Set.of(1));
        p.appendAsLeader(values("a"));
        p.makeFollower(2, 1, 2, List.of(1, 2), Set.of(1, 2));
        List<String> out = new ArrayList<>();
        try {
            out.add("produced at " + p.appendAsLeader(values("b")).firstOffset());
        } catch (org.apache.kafka.common.errors.NotLeaderOrFollowerException e) {
            out.add("refused");
        }
        try {
            out.add("read " + valuesOf((MemoryRecords) p.read(0, 1 << 20, true, 1).records()));
        } catch (org.apache.kafka.common.errors.NotLeaderOrFollowerException
                 | org.apache.kafka.common.errors.FencedLeaderEpochException e) {
            out.add("refused");
        }
        out.add("latest epoch: " + p.log().latestEpoch().orElse(-1));
        return out;
    }

    @Test
    void fencedLeaderServes() throws Exception {
        assertEquals(List.of("produced at 1", "read [a]", "latest epoch: 1"),
                afterLosingLeadership(SeededBug.FENCED_LEADER_SERVES), "the deposed leader still takes and serves");
        assertEquals(List.of("refused", "refused", "latest epoch: 1"), afterLosingLeadership());
    }

    /**
     * A follower gets producer 5's batch (sequence 0) from its leader, then becomes leader; the producer retries
     * the batch. Returns whether the retry was recognised as a duplicate, and the new leader's log end.
     */
    private List<Object> retryOnNewLeader(SeededBug... bugs) throws Exception {
        Partition leader = open();
        leader.makeLeader(1, Set.of(1));
        MemoryRecords batch = MemoryRecords.withIdempotentRecords(Compression.NONE, 5L, (short) 0, 0,
                new SimpleRecord("x".getBytes()));
        leader.appendAsLeader(batch);
        MemoryRecords replicated = (MemoryRecords) leader.log().read(0, 1 << 20, Long.MAX_VALUE).records();
        Partition follower = open(bugs);
        follower.makeFollower(1, 0, 2, List.of(1, 2), Set.of(1, 2));
        follower.appendAsFollower(replicated);
        follower.makeLeader(2, 1, List.of(1, 2), Set.of(2));
        MemoryRecords retry = MemoryRecords.withIdempotentRecords(Compression.NONE, 5L, (short) 0, 0,
                new SimpleRecord("x".getBytes()));
        boolean duplicate = follower.appendAsLeader(retry).duplicate();
        return List.of(duplicate, follower.log().logEndOffset());
    }

    @Test
    void dedupNotRebuilt() throws Exception {
        assertEquals(List.of(false, 2L), retryOnNewLeader(SeededBug.DEDUP_NOT_REBUILT), "the retry was written twice");
        assertEquals(List.of(true, 1L), retryOnNewLeader());
    }
}
