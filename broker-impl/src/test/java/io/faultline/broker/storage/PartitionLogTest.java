package io.faultline.broker.storage;

import io.faultline.broker.common.ManualTime;
import static io.faultline.broker.storage.TestRecords.*;
import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionLogTest {
    @TempDir
    Path tmp;
    final ManualTime clock = new ManualTime(1_000_000L);
    PartitionLog log;

    Path dir() {
        return tmp.resolve("events-3");
    }

    PartitionLog open(LogConfig cfg) throws IOException {
        log = PartitionLog.open(dir(), cfg, clock, RecoveryState.UNKNOWN);
        return log;
    }

    @AfterEach
    void closeLog() {
        if (log != null && !log.isClosed()) log.close();
    }

    @Test
    void leaderAppendAssignsOffsetsAndStampsEpoch() throws IOException {
        open(LogConfig.DEFAULT);
        LogAppendInfo a = log.appendAsLeader(batch(3, 500), 7);
        LogAppendInfo b = log.appendAsLeader(batch(2, 600), 7);
        assertEquals(0, a.firstOffset());
        assertEquals(2, a.lastOffset());
        assertEquals(3, b.firstOffset());
        assertEquals(4, b.lastOffset());
        assertEquals(600, b.maxTimestamp());
        assertEquals(4, b.offsetOfMaxTimestamp());
        assertEquals(-1, b.logAppendTime());
        assertEquals(5, log.logEndOffset());
        assertEquals(TopicPartitionOf.of("events", 3), log.topicPartition());
        List<MutableRecordBatch> all = readAll(log);
        assertEquals(2, all.size());
        assertEquals(7, all.get(0).partitionLeaderEpoch());
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), recordOffsets(log.read(0, 1 << 20, Long.MAX_VALUE).records()));
        assertEquals(Optional.of(7), log.latestEpoch());
    }

    @Test
    void logAppendTimeStampsBrokerClock() throws IOException {
        open(LogConfig.builder().timestampType(TimestampType.LOG_APPEND_TIME).build());
        LogAppendInfo a = log.appendAsLeader(batch(2, 5), 0);
        assertEquals(clock.milliseconds(), a.logAppendTime());
        MutableRecordBatch b = readAll(log).get(0);
        assertEquals(TimestampType.LOG_APPEND_TIME, b.timestampType());
        assertEquals(clock.milliseconds(), b.maxTimestamp());
        b.ensureValid();
    }

    @Test
    void corruptLeaderBatchIsRejectedAndNothingAppended() throws IOException {
        open(LogConfig.DEFAULT);
        MemoryRecords bad = batch(2, 5);
        bad.buffer().put(bad.buffer().limit() - 1, (byte) 0x55); // flips record bytes covered by the CRC
        assertThrows(CorruptRecordException.class, () -> log.appendAsLeader(bad, 0));
        assertEquals(0, log.logEndOffset());
    }

    @Test
    void compactedTopicRequiresKeys() throws IOException {
        open(LogConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT).build());
        MemoryRecords noKey = MemoryRecords.withRecords(org.apache.kafka.common.compress.Compression.NONE,
                new org.apache.kafka.common.record.internal.SimpleRecord(1L, null, "v".getBytes()));
        assertThrows(InvalidRecordException.class, () -> log.appendAsLeader(noKey, 0));
    }

    @Test
    void aFollowerAppendOfMoreBatchesThanTheIndexesHoldSucceedsAndTheNextAppendRolls() throws IOException {
        // 1024-byte indexes: 85 time entries, 128 offset entries; an entry after every batch
        open(LogConfig.builder().segmentIndexBytes(1024).indexIntervalBytes(1).build());
        var buf = java.nio.ByteBuffer.allocate(1 << 20);
        for (int i = 0; i < 100; i++) buf.put(atOffset(i, 2, 1, 10 + i).buffer());
        buf.flip();
        log.appendAsFollower(MemoryRecords.readableRecords(buf)); // one fetch's worth: 100 batches in one append
        assertEquals(100, log.logEndOffset());
        assertEquals(1, log.numberOfSegments());
        assertEquals(List.of(97L, 98L, 99L), recordOffsets(log.read(97, 1 << 20, Long.MAX_VALUE).records()),
                "the batches past the last index entry are found");
        log.appendAsFollower(atOffset(100, 2, 1, 200));
        assertEquals(2, log.numberOfSegments(), "the full segment rolled before the next append");
        assertEquals(101, log.logEndOffset());
    }

    @Test
    void followerAppendKeepsOffsetsAndRejectsGaps() throws IOException {
        open(LogConfig.DEFAULT);
        log.appendAsFollower(atOffset(0, 2, 3, 10));
        log.appendAsFollower(atOffset(3, 4, 2, 10));
        assertEquals(5, log.logEndOffset());
        assertEquals(List.of(new LeaderEpochCache.EpochEntry(2, 0), new LeaderEpochCache.EpochEntry(4, 3)),
                log.epochEntries());
        NonContiguousAppendException gap = assertThrows(NonContiguousAppendException.class,
                () -> log.appendAsFollower(atOffset(7, 4, 1, 10)));
        assertEquals(5, gap.expectedOffset());
        assertThrows(NonContiguousAppendException.class, () -> log.appendAsFollower(atOffset(4, 4, 1, 10)));
        assertEquals(5, log.logEndOffset());
    }

    @Test
    void compactedFollowerMayHaveGapsButNotGoBackwards() throws IOException {
        open(LogConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT).build());
        log.appendAsFollower(atOffset(0, 1, 2, 10));
        log.appendAsFollower(atOffset(10, 1, 2, 10));
        assertEquals(12, log.logEndOffset());
        assertThrows(NonContiguousAppendException.class, () -> log.appendAsFollower(atOffset(11, 1, 1, 10)));
        // a read in the gap starts at the next batch
        LogReadResult r = log.read(5, 1 << 20, Long.MAX_VALUE);
        assertEquals(List.of(10L, 11L), recordOffsets(r.records()));
    }

    @Test
    void readStartingInsideABatchReturnsTheWholeBatch() throws IOException {
        open(LogConfig.DEFAULT);
        log.appendAsLeader(batch(5, 1), 0); // 0..4
        log.appendAsLeader(batch(5, 1), 0); // 5..9
        LogReadResult r = log.read(7, 1 << 20, Long.MAX_VALUE);
        List<MutableRecordBatch> bs = batches(r.records());
        assertEquals(1, bs.size());
        assertEquals(5, bs.get(0).baseOffset());
        assertEquals(10, r.nextOffset());
        assertTrue(r.reachedEnd());
    }

    @Test
    void readReturnsAtLeastOneWholeBatchAndRespectsMaxBytes() throws IOException {
        open(LogConfig.DEFAULT);
        for (int i = 0; i < 4; i++) log.appendAsLeader(batch(10, 1), 0);
        int batchSize = readAll(log).get(0).sizeInBytes();
        LogReadResult tiny = log.read(0, 1, Long.MAX_VALUE);
        assertEquals(1, batches(tiny.records()).size());
        assertFalse(tiny.reachedEnd());
        LogReadResult two = log.read(0, 2 * batchSize + batchSize / 2, Long.MAX_VALUE);
        assertEquals(2, batches(two.records()).size());
        assertEquals(20, two.nextOffset());
    }

    @Test
    void readIsBoundedByMaxOffsetExclusive() throws IOException {
        open(LogConfig.DEFAULT);
        for (int i = 0; i < 3; i++) log.appendAsLeader(batch(10, 1), 0); // 0..29
        LogReadResult r = log.read(0, 1 << 20, 20);
        assertEquals(20, r.nextOffset());
        assertTrue(r.reachedEnd());
        // high watermark inside a batch: that batch is not returned
        LogReadResult mid = log.read(0, 1 << 20, 25);
        assertEquals(20, mid.nextOffset());
        assertTrue(mid.reachedEnd());
        LogReadResult none = log.read(20, 1 << 20, 25);
        assertEquals(0, none.records().sizeInBytes());
        assertTrue(none.reachedEnd());
        LogReadResult atEnd = log.read(30, 1 << 20, Long.MAX_VALUE);
        assertEquals(0, atEnd.records().sizeInBytes());
        assertThrows(OffsetOutOfRangeException.class, () -> log.read(31, 100, Long.MAX_VALUE));
    }

    @Test
    void rollsOnSegmentBytesAndReadsAcrossSegmentEdges() throws IOException {
        MemoryRecords probe = batch(10, 1);
        int size = probe.sizeInBytes();
        open(LogConfig.builder().segmentBytes(size * 3).indexIntervalBytes(1).build());
        for (int i = 0; i < 10; i++) log.appendAsLeader(batch(10, 1), 0);
        assertEquals(List.of(0L, 30L, 60L, 90L), log.segmentBaseOffsets());
        for (long off : new long[] {0, 9, 10, 29, 30, 31, 59, 60, 89, 90, 99}) {
            LogReadResult r = log.read(off, 1, Long.MAX_VALUE);
            MutableRecordBatch b = batches(r.records()).get(0);
            assertTrue(b.baseOffset() <= off && off <= b.lastOffset(), "offset " + off + " in " + b);
        }
        assertTrue(Files.exists(dir().resolve("00000000000000000030.log")));
        assertTrue(Files.exists(dir().resolve("00000000000000000030.index")));
        assertTrue(Files.exists(dir().resolve("00000000000000000030.timeindex")));
    }

    @Test
    void rollsOnSegmentMsAndIndexFull() throws IOException {
        open(LogConfig.builder().segmentMs(1000).build());
        log.appendAsLeader(batch(1, clock.milliseconds()), 0);
        clock.advance(500);
        log.appendAsLeader(batch(1, clock.milliseconds()), 0);
        assertEquals(1, log.numberOfSegments());
        clock.advance(600);
        log.appendAsLeader(batch(1, clock.milliseconds()), 0);
        assertEquals(2, log.numberOfSegments());
        log.close();

        Path d2 = tmp.resolve("full-0");
        log = PartitionLog.open(d2, LogConfig.builder().segmentIndexBytes(2 * TimeIndex.ENTRY_SIZE)
                .indexIntervalBytes(0).build(), clock, RecoveryState.UNKNOWN);
        for (int i = 0; i < 6; i++) log.appendAsLeader(batch(1, 1000 + i), 0);
        // two time index entries fit (the first batch of a segment is never indexed): a segment holds 3 batches
        assertEquals(List.of(0L, 3L), log.segmentBaseOffsets());
    }

    @Test
    void truncateToRemovesTailEpochsAndClampsHighWatermark() throws IOException {
        int size = batch(10, 1).sizeInBytes();
        open(LogConfig.builder().segmentBytes(size * 2).indexIntervalBytes(1).build());
        for (int i = 0; i < 6; i++) log.appendAsLeader(batch(10, 1), i); // epochs 0..5, one per batch
        log.updateHighWatermark(60);
        log.truncateTo(25); // inside batch 20..29: the whole batch goes
        assertEquals(20, log.logEndOffset());
        assertEquals(20, log.highWatermark());
        assertEquals(List.of(0L, 20L), log.segmentBaseOffsets());
        assertEquals(Optional.of(1), log.latestEpoch());
        assertEquals(20, readAll(log).stream().mapToLong(b -> b.lastOffset() + 1).max().orElse(0));
        log.truncateTo(20); // no-op at the end
        log.appendAsLeader(batch(10, 1), 9);
        assertEquals(List.of(0L, 20L), log.segmentBaseOffsets());
        assertEquals(30, log.logEndOffset());
        assertEquals(new EpochEndOffset(1, 20), log.endOffsetForEpoch(1));
        log.truncateTo(1000); // beyond the end: no-op
        assertEquals(30, log.logEndOffset());
    }

    @Test
    void truncateToTheEndDropsAnEpochThatHasNoBatches() throws IOException {
        open(LogConfig.DEFAULT);
        log.appendAsLeader(batch(1, 1), 0);
        log.appendAsLeader(batch(1, 1), 1);
        log.assignEpochStartOffset(2); // leader in epoch 2 at offset 2, then deposed before appending anything
        assertEquals(Optional.of(2), log.latestEpoch());
        // The next leader answers the fetch (offset 2, last fetched epoch 2) with "epoch 1 ends at 2": truncating to
        // 2 removes no record but must forget epoch 2, or the follower asks with epoch 2 again and never moves on.
        log.truncateTo(2);
        assertEquals(2, log.logEndOffset());
        assertEquals(Optional.of(1), log.latestEpoch());
        assertEquals(new EpochEndOffset(1, 2), log.endOffsetForEpoch(1));
    }

    @Test
    void aStaleLeadershipNeitherRewritesNewerEpochsNorAppends() throws IOException {
        open(LogConfig.DEFAULT);
        log.appendAsLeader(batch(2, 1), 1); // epoch 1 at 0
        log.appendAsLeader(batch(2, 1), 2); // epoch 2 at 2
        log.appendAsLeader(batch(2, 1), 5); // epoch 5 at 4
        var before = log.epochEntries();
        // a restarted broker replaying its old leadership in epoch 2 from the metadata log
        assertThrows(IllegalStateException.class, () -> log.assignEpochStartOffset(2));
        assertThrows(org.apache.kafka.common.errors.NotLeaderOrFollowerException.class,
                () -> log.appendAsLeader(batch(1, 1), 2));
        assertEquals(before, log.epochEntries(), "the newer epochs' entries survive");
        assertEquals(6, log.logEndOffset());
        // so a follower that last fetched in epoch 2 is told where epoch 2 really ended
        assertEquals(new EpochEndOffset(2, 4), log.endOffsetForEpoch(2));
        log.assignEpochStartOffset(5); // the current leadership again: fine
        log.assignEpochStartOffset(6);
        assertEquals(Optional.of(6), log.latestEpoch());
    }

    @Test
    void truncateFullyAndStartAt() throws IOException {
        open(LogConfig.DEFAULT);
        log.appendAsLeader(batch(5, 1), 3);
        log.truncateFullyAndStartAt(100);
        assertEquals(100, log.logStartOffset());
        assertEquals(100, log.logEndOffset());
        assertEquals(Optional.empty(), log.latestEpoch());
        assertEquals(List.of(100L), log.segmentBaseOffsets());
        assertThrows(OffsetOutOfRangeException.class, () -> log.read(50, 100, Long.MAX_VALUE));
        LogAppendInfo a = log.appendAsLeader(batch(1, 1), 4);
        assertEquals(100, a.firstOffset());
        assertTrue(Files.exists(dir().resolve("00000000000000000100.log")));
        assertFalse(Files.exists(dir().resolve("00000000000000000000.log")));
    }

    @Test
    void highWatermarkIsMonotonicAndBoundedByLogEnd() throws IOException {
        open(LogConfig.DEFAULT);
        log.appendAsLeader(batch(5, 1), 0);
        log.updateHighWatermark(3);
        assertThrows(IllegalArgumentException.class, () -> log.updateHighWatermark(2));
        assertThrows(IllegalArgumentException.class, () -> log.updateHighWatermark(6));
        log.updateHighWatermark(5);
        assertEquals(5, log.highWatermark());
        log.resetHighWatermark(1);
        assertEquals(1, log.highWatermark());
    }

    @Test
    void offsetForTimestampUsesTimeIndex() throws IOException {
        open(LogConfig.builder().indexIntervalBytes(1).segmentBytes(batch(3, 1).sizeInBytes() * 4).build());
        for (int i = 0; i < 10; i++) log.appendAsLeader(batch(3, 1000 + 100L * i), 2); // batch i at ts 1000+100i
        assertEquals(new TimestampAndOffset(1000, 0, Optional.of(2)), log.offsetForTimestamp(0).orElseThrow());
        assertEquals(new TimestampAndOffset(1500, 15, Optional.of(2)), log.offsetForTimestamp(1450).orElseThrow());
        assertEquals(new TimestampAndOffset(1500, 15, Optional.of(2)), log.offsetForTimestamp(1500).orElseThrow());
        assertEquals(new TimestampAndOffset(1900, 27, Optional.of(2)), log.offsetForTimestamp(1900).orElseThrow());
        assertEquals(Optional.empty(), log.offsetForTimestamp(1901));
        assertEquals(30, log.offsetForTimestamp(PartitionLog.LATEST_TIMESTAMP).orElseThrow().offset());
        assertEquals(0, log.offsetForTimestamp(PartitionLog.EARLIEST_TIMESTAMP).orElseThrow().offset());
        assertEquals(new TimestampAndOffset(1900, 27, Optional.of(2)),
                log.offsetForTimestamp(PartitionLog.MAX_TIMESTAMP).orElseThrow());
    }

    @Test
    void flushAdvancesRecoveryPointOnlyWhenFlushing() throws IOException {
        open(LogConfig.DEFAULT);
        log.appendAsLeader(batch(5, 1), 0);
        assertEquals(0, log.recoveryPoint());
        log.flush();
        assertEquals(5, log.recoveryPoint());
        log.close();

        log = PartitionLog.open(tmp.resolve("msgs-0"), LogConfig.builder().flushMessages(10).build(), clock,
                RecoveryState.UNKNOWN);
        log.appendAsLeader(batch(6, 1), 0);
        assertEquals(0, log.recoveryPoint());
        log.appendAsLeader(batch(6, 1), 0);
        assertEquals(12, log.recoveryPoint());
        log.close();

        log = PartitionLog.open(tmp.resolve("ms-0"), LogConfig.builder().flushMs(1000).build(), clock,
                RecoveryState.UNKNOWN);
        log.appendAsLeader(batch(1, 1), 0);
        log.flushIfDue();
        assertEquals(0, log.recoveryPoint());
        clock.advance(1000);
        log.flushIfDue();
        assertEquals(1, log.recoveryPoint());
        log.close();

        log = PartitionLog.open(tmp.resolve("sync-0"), LogConfig.builder().fsyncEveryAppend(true).build(), clock,
                RecoveryState.UNKNOWN);
        log.appendAsLeader(batch(1, 1), 0);
        assertEquals(1, log.recoveryPoint());
    }

    @Test
    void reopenAfterCleanCloseKeepsEverything() throws IOException {
        LogConfig cfg = LogConfig.builder().segmentBytes(batch(10, 1).sizeInBytes() * 2).indexIntervalBytes(1).build();
        open(cfg);
        for (int i = 0; i < 7; i++) log.appendAsLeader(batch(10, 100 + i), 1 + i / 3);
        List<LeaderEpochCache.EpochEntry> epochs = log.epochEntries();
        log.close();
        log = PartitionLog.open(dir(), cfg, clock, new RecoveryState(70, 0, 70, true));
        assertEquals(70, log.logEndOffset());
        assertEquals(70, log.highWatermark());
        assertEquals(epochs, log.epochEntries());
        assertEquals(7, readAll(log).size());
        assertEquals(new TimestampAndOffset(106, 60, Optional.of(3)), log.offsetForTimestamp(106).orElseThrow());
    }

    @Test
    void recoveryCutsAtFirstCorruptByteAndDropsLaterSegments() throws IOException {
        int size = batch(10, 1).sizeInBytes();
        LogConfig cfg = LogConfig.builder().segmentBytes(size * 3).build();
        open(cfg);
        for (int i = 0; i < 9; i++) log.appendAsLeader(batch(10, 1), 0); // segments 0, 30, 60
        log.closeWithoutFlush();
        // flip a byte in the second batch of segment 30
        Path seg = dir().resolve("00000000000000000030.log");
        try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.WRITE, StandardOpenOption.READ)) {
            ch.write(ByteBuffer.wrap(new byte[] {0x7f}), size + 70);
        }
        log = PartitionLog.open(dir(), cfg, clock, new RecoveryState(30, 0, 0, false));
        assertEquals(40, log.logEndOffset());
        assertEquals(List.of(0L, 30L), log.segmentBaseOffsets());
        assertFalse(Files.exists(dir().resolve("00000000000000000060.log")));
        assertEquals(4, readAll(log).size());
        log.appendAsLeader(batch(1, 1), 0);
        assertEquals(41, log.logEndOffset());
    }

    @Test
    void recoveryOfGarbageTailAndMissingIndexes() throws IOException {
        LogConfig cfg = LogConfig.builder().indexIntervalBytes(1).build();
        open(cfg);
        for (int i = 0; i < 5; i++) log.appendAsLeader(batch(3, 1), 0);
        log.close();
        Files.write(dir().resolve("00000000000000000000.log"), new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13},
                StandardOpenOption.APPEND);
        Files.delete(dir().resolve("00000000000000000000.index"));
        Files.write(dir().resolve("00000000000000000000.timeindex"), new byte[] {9, 9, 9});
        log = PartitionLog.open(dir(), cfg, clock, new RecoveryState(15, 0, 15, true));
        assertEquals(15, log.logEndOffset());
        for (long off = 0; off < 15; off++) {
            MutableRecordBatch b = batches(log.read(off, 1, Long.MAX_VALUE).records()).get(0);
            assertTrue(b.baseOffset() <= off && off <= b.lastOffset());
        }
        assertEquals(4 * OffsetIndex.ENTRY_SIZE, Files.size(dir().resolve("00000000000000000000.index")) );
    }

    @Test
    void closedLogRejectsUse() throws IOException {
        open(LogConfig.DEFAULT);
        log.close();
        assertThrows(RuntimeException.class, () -> log.appendAsLeader(batch(1, 1), 0));
        assertThrows(RuntimeException.class, () -> log.read(0, 10, Long.MAX_VALUE));
    }

    /** Tiny helper so the test reads naturally. */
    static final class TopicPartitionOf {
        static org.apache.kafka.common.TopicPartition of(String t, int p) {
            return new org.apache.kafka.common.TopicPartition(t, p);
        }
    }
}
