package io.faultline.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.UnknownLeaderEpochException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionTest {
    @TempDir
    Path dir;

    private final List<TopicPartition> wakeups = new ArrayList<>();

    private Partition open() throws Exception {
        PartitionLog log = PartitionLog.open(dir.resolve("t-0"), LogConfig.DEFAULT, Time.SYSTEM, RecoveryState.UNKNOWN);
        return new Partition(new TopicPartition("t", 0), Uuid.randomUuid(), log, 1, wakeups::add);
    }

    private static MemoryRecords idempotent(int seq, int n) {
        return idempotentOf(5L, seq, n);
    }

    private static MemoryRecords idempotentOf(long producerId, int seq, int n) {
        SimpleRecord[] r = new SimpleRecord[n];
        for (int i = 0; i < n; i++) r[i] = new SimpleRecord(("v" + i).getBytes());
        return MemoryRecords.withIdempotentRecords(Compression.NONE, producerId, (short) 0, seq, r);
    }

    @Test
    void leaderAppendsAdvanceTheHighWatermarkAndWakeWaiters() throws Exception {
        Partition p = open();
        p.makeLeader(3, Set.of(1));
        wakeups.clear();
        Partition.AppendResult r = p.appendAsLeader(idempotent(0, 4));
        assertEquals(0, r.firstOffset());
        assertEquals(3, r.lastOffset());
        assertEquals(4, p.highWatermark());
        assertEquals(1, wakeups.size());
        assertTrue(p.appendAsLeader(idempotent(0, 4)).duplicate());
        assertEquals(4, p.log().logEndOffset());
        assertEquals(1, wakeups.size(), "a duplicate changes nothing and wakes no one");
        assertEquals(3, p.log().latestEpoch().orElseThrow(), "batches carry the leader epoch");
        p.log().close();
    }

    @Test
    void roleTransitionsAreOwnedByThePartitionAndEpochsOnlyMoveForward() throws Exception {
        Partition p = open();
        p.makeLeader(2, Set.of(1));
        assertThrows(FencedLeaderEpochException.class, () -> p.validateLeaderEpoch(1));
        assertThrows(UnknownLeaderEpochException.class, () -> p.validateLeaderEpoch(3));
        p.validateLeaderEpoch(-1);
        p.makeFollower(3, 2);
        assertFalse(p.isLeader());
        assertThrows(NotLeaderOrFollowerException.class, () -> p.appendAsLeader(idempotent(0, 1)));
        assertThrows(NotLeaderOrFollowerException.class, () -> p.read(0, 1000, true, -1));
        assertThrows(IllegalStateException.class, () -> p.makeLeader(2, Set.of(1)), "stale epoch");
        p.makeLeader(4, Set.of(1));
        assertTrue(p.isLeader());
        p.log().close();
    }

    /**
     * A partition is opened before the metadata gives it a role; a fetch that finds it in between (seen in a nightly run
     * of 7 December 2026: a NullPointerException for a consumer's fetch carrying its leader epoch) is told to retry.
     */
    @Test
    void aPartitionWithoutARoleYetRefusesRequestsRetriably() throws Exception {
        Partition p = open();
        assertEquals(-1, p.leaderEpoch());
        assertThrows(NotLeaderOrFollowerException.class, () -> p.validateLeaderEpoch(0));
        assertThrows(NotLeaderOrFollowerException.class, () -> p.read(0, 1000, true, 0));
        assertThrows(NotLeaderOrFollowerException.class, () -> p.read(0, 1000, true, -1));
        p.makeLeader(0, Set.of(1));
        assertEquals(0, p.read(0, 1000, true, 0).highWatermark());
        p.log().close();
    }

    @Test
    void producerStateIsRebuiltFromTheLog() throws Exception {
        Partition p = open();
        p.makeLeader(0, Set.of(1));
        p.appendAsLeader(idempotent(0, 2));
        p.appendAsLeader(idempotent(2, 2));
        p.log().close();
        Partition reopened = open();
        reopened.makeLeader(0, Set.of(1));
        Partition.AppendResult dup = reopened.appendAsLeader(idempotent(2, 2));
        assertTrue(dup.duplicate());
        assertEquals(2, dup.firstOffset());
        assertThrows(org.apache.kafka.common.errors.OutOfOrderSequenceException.class,
                () -> reopened.appendAsLeader(idempotent(9, 1)));
        reopened.log().close();
    }

    private Partition openWithSnapshots(Uuid topicId) throws Exception {
        PartitionLog log = PartitionLog.open(dir.resolve("t-0"), LogConfig.DEFAULT, Time.SYSTEM, RecoveryState.UNKNOWN);
        return new Partition(new TopicPartition("t", 0), topicId, log, 1, wakeups::add,
                new ProducerStateSnapshots(dir));
    }

    @Test
    void producerStateComesBackFromASnapshotPlusTheLogAfterIt() throws Exception {
        Uuid id = Uuid.randomUuid();
        Partition p = openWithSnapshots(id);
        p.makeLeader(0, Set.of(1));
        p.appendAsLeader(idempotent(0, 2));
        p.appendAsLeader(idempotent(2, 2));
        p.snapshotProducerStateIfChanged(); // covers offsets < 4
        p.appendAsLeader(idempotent(4, 2)); // only in the log
        p.log().close();
        assertTrue(java.nio.file.Files.exists(dir.resolve("faultline-producer-state/t-0.snapshot")));

        Partition reopened = openWithSnapshots(id);
        reopened.makeLeader(0, Set.of(1));
        assertEquals(2, reopened.appendAsLeader(idempotent(2, 2)).firstOffset(), "from the snapshot");
        assertEquals(4, reopened.appendAsLeader(idempotent(4, 2)).firstOffset(), "replayed after the snapshot");
        assertEquals(6, reopened.log().logEndOffset());
        reopened.snapshotProducerStateIfChanged(); // covers offsets < 6
        reopened.log().truncateTo(2); // as an unclean shutdown could: the snapshot is now beyond the log end
        reopened.log().close();

        Partition rebuilt = openWithSnapshots(id);
        rebuilt.makeLeader(0, Set.of(1));
        assertFalse(java.nio.file.Files.exists(dir.resolve("faultline-producer-state/t-0.snapshot")),
                "an unusable snapshot is deleted");
        assertTrue(rebuilt.appendAsLeader(idempotent(0, 2)).duplicate(), "rebuilt from the log");
        Partition.AppendResult again = rebuilt.appendAsLeader(idempotent(2, 2));
        assertFalse(again.duplicate(), "batches cut from the log are not remembered");
        assertEquals(2, again.firstOffset());
        rebuilt.snapshotProducerStateIfChanged();
        rebuilt.log().close();

        Partition otherTopic = openWithSnapshots(Uuid.randomUuid()); // same name, new topic id
        otherTopic.makeLeader(0, Set.of(1));
        assertTrue(otherTopic.appendAsLeader(idempotent(2, 2)).duplicate(), "still rebuilt from this log");
        otherTopic.log().close();
    }

    /**
     * A snapshot's state is taken under the append lock but written outside it. A truncation in between, then a log
     * that grows back past the snapshot's offset, made the next load trust a state of batches the log had lost and
     * miss the ones written since the cut: a producer's retry of such a batch was appended a second time.
     */
    @Test
    void aSnapshotTakenBeforeATruncationIsNotInstalledAfterIt() throws Exception {
        Uuid id = Uuid.randomUuid();
        Partition p = openWithSnapshots(id);
        p.makeFollower(0, 2);
        p.appendAsFollower(replicated(0, 0, 7L, 0)); // producer 7, offsets 0-1
        p.appendAsFollower(replicated(0, 2, 7L, 2)); // producer 7, offsets 2-3
        p.beforeSnapshotInstall(() -> {
            // while the file is written: the deposed leader's tail is cut and the new leader's batches replicated
            p.truncateTo(2);
            p.appendAsFollower(replicated(1, 2, 8L, 0)); // producer 8, offsets 2-3
            p.appendAsFollower(replicated(1, 4, 9L, 0)); // producer 9, offsets 4-5
        });
        p.snapshotProducerStateIfChanged(); // the state of offsets < 4 before the cut
        p.beforeSnapshotInstall(() -> { });
        p.log().close();

        Partition reopened = openWithSnapshots(id);
        reopened.makeLeader(2, Set.of(1));
        Partition.AppendResult retry = reopened.appendAsLeader(idempotentOf(8L, 0, 2));
        assertTrue(retry.duplicate(), "producer 8's batch at offsets 2-3 is known after the restart");
        assertEquals(2, retry.firstOffset());
        assertEquals(6, reopened.log().logEndOffset());
        reopened.log().close();
    }

    /**
     * A new producer pipelines its batches 0 and 1; batch 0 meets a deposed leader, batch 1 the new one first. Kafka
     * accepts any sequence from a producer it does not know, so batch 1 went in first, batch 0's retry was out of
     * sequence, and the client's recovery (a new epoch, renumbered from 0) appended batch 1 a second time (a duplicate
     * with idempotence seen in a CI run). Where the log holds everything ever appended, an unknown producer starts at 0.
     */
    @Test
    void aProducerThisLogNeverSawMustStartAtSequenceZeroUnlessRecordsWereRemoved() throws Exception {
        Partition p = open();
        p.makeLeader(0, Set.of(1));
        assertThrows(org.apache.kafka.common.errors.OutOfOrderSequenceException.class,
                () -> p.appendAsLeader(idempotentOf(9L, 2, 2)), "its second batch before its first");
        assertEquals(0, p.log().logEndOffset());
        assertEquals(0, p.appendAsLeader(idempotentOf(9L, 0, 2)).firstOffset());
        assertEquals(2, p.appendAsLeader(idempotentOf(9L, 2, 2)).firstOffset(), "then in order");
        p.log().maybeIncrementLogStartOffset(2); // DeleteRecords: what was below is gone, producer states with it
        assertEquals(4, p.appendAsLeader(idempotentOf(11L, 7, 1)).firstOffset(),
                "a producer whose records may have been removed is taken at any sequence, as Kafka does");
        p.log().close();
    }

    /** A leader's batch of two records as a follower fetches it: producer id, sequence, offset and leader epoch set. */
    private static MemoryRecords replicated(int leaderEpoch, long offset, long producerId, int seq) {
        return MemoryRecords.withIdempotentRecords(offset, Compression.NONE, producerId, (short) 0, seq, leaderEpoch,
                new SimpleRecord("a".getBytes()), new SimpleRecord("b".getBytes()));
    }

    @Test
    void aFollowerRebuildsProducerStateFromReplicatedBatchesSoDedupSurvivesALeaderChange() throws Exception {
        Path leaderDir = dir.resolve("leader");
        PartitionLog leaderLog = PartitionLog.open(leaderDir.resolve("t-0"), LogConfig.DEFAULT, Time.SYSTEM,
                RecoveryState.UNKNOWN);
        Partition leader = new Partition(new TopicPartition("t", 0), Uuid.ONE_UUID, leaderLog, 1, wakeups::add);
        leader.makeLeader(0, Set.of(1));
        leader.appendAsLeader(idempotent(0, 2));
        leader.appendAsLeader(idempotent(2, 2));
        Partition follower = open();
        follower.makeFollower(0, 1);
        follower.appendAsFollower(leaderLog.read(0, 1 << 20, Long.MAX_VALUE).records());
        assertEquals(4, follower.log().logEndOffset());
        follower.makeLeader(1, Set.of(1));
        Partition.AppendResult retry = follower.appendAsLeader(idempotent(2, 2));
        assertTrue(retry.duplicate(), "the new leader knows the batch it replicated");
        assertEquals(2, retry.firstOffset());
        assertEquals(4, follower.log().logEndOffset());
        follower.makeFollower(2, 1);
        follower.truncateTo(2);
        follower.makeLeader(3, Set.of(1));
        assertFalse(follower.appendAsLeader(idempotent(2, 2)).duplicate(), "truncated away: appended again");
        assertThrows(NotLeaderOrFollowerException.class, () -> follower.appendAsFollower(idempotent(0, 1)));
        leaderLog.close();
        follower.log().close();
    }
}
