package io.faultline.broker.storage;

import io.faultline.broker.common.ManualTime;
import static io.faultline.broker.storage.TestRecords.*;
import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Retention and compaction end to end, with a clock that jumps forward and backward. */
class RetentionAndCompactionTest {
    static final long HOUR = 3_600_000L;
    @TempDir
    Path tmp;
    final ManualTime clock = new ManualTime(100 * HOUR);
    PartitionLog log;

    @AfterEach
    void close() {
        if (log != null && !log.isClosed()) log.close();
    }

    List<String> files() throws IOException {
        try (Stream<Path> s = Files.list(log.dir())) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void timeRetentionDeletesOldSegmentsBelowHighWatermarkOnly() throws IOException {
        int size = batch(10, 0).sizeInBytes();
        log = PartitionLog.open(tmp.resolve("t-0"), LogConfig.builder().segmentBytes(size).retentionMs(HOUR)
                .fileDeleteDelayMs(60_000).build(), clock, RecoveryState.UNKNOWN);
        for (int i = 0; i < 4; i++) {
            log.appendAsLeader(batch(10, clock.milliseconds()), 0); // one batch per segment
            clock.advance(HOUR / 2);
        }
        // segment timestamps: 100h, 100.5h, 101h, 101.5h; now = 102h
        assertEquals(List.of(0L, 10L, 20L, 30L), log.segmentBaseOffsets());
        assertEquals(0, log.deleteOldSegments(), "nothing is below the high watermark yet");
        log.updateHighWatermark(40);
        assertEquals(2, log.deleteOldSegments()); // 100h and 100.5h are older than 1h
        assertEquals(20, log.logStartOffset());
        assertTrue(files().contains("00000000000000000000.log.deleted"));
        // clock jumps backward: nothing more is old, and .deleted files wait for their delay
        clock.skewWallClock(-10 * HOUR);
        assertEquals(0, log.deleteOldSegments());
        log.removeDeletedFiles();
        assertTrue(files().contains("00000000000000000000.log.deleted"));
        // clock jumps far forward: even the active segment goes (a new empty one is rolled first)
        clock.advance(20 * HOUR);
        log.removeDeletedFiles();
        assertFalse(files().stream().anyMatch(f -> f.endsWith(".deleted")));
        assertEquals(2, log.deleteOldSegments());
        assertEquals(40, log.logStartOffset());
        assertEquals(40, log.logEndOffset());
        assertEquals(List.of(40L), log.segmentBaseOffsets());
        assertEquals(40, log.appendAsLeader(batch(1, clock.milliseconds()), 0).firstOffset());
    }

    @Test
    void futureTimestampsAreKeptUntilTheClockCatchesUp() throws IOException {
        int size = batch(10, 0).sizeInBytes();
        log = PartitionLog.open(tmp.resolve("f-0"), LogConfig.builder().segmentBytes(size).retentionMs(HOUR).build(),
                clock, RecoveryState.UNKNOWN);
        log.appendAsLeader(batch(10, clock.milliseconds() + 5 * HOUR), 0); // producer clock ahead
        log.appendAsLeader(batch(10, clock.milliseconds()), 0);
        log.updateHighWatermark(20);
        clock.advance(2 * HOUR);
        assertEquals(0, log.deleteOldSegments());
        clock.advance(5 * HOUR);
        assertEquals(2, log.deleteOldSegments());
    }

    @Test
    void sizeRetentionKeepsNewestSegmentsWithinLimit() throws IOException {
        int size = batch(10, 0).sizeInBytes();
        log = PartitionLog.open(tmp.resolve("s-0"), LogConfig.builder().segmentBytes(size).retentionMs(-1)
                .retentionBytes(2L * size).build(), clock, RecoveryState.UNKNOWN);
        for (int i = 0; i < 5; i++) log.appendAsLeader(batch(10, 1), 0);
        log.updateHighWatermark(50);
        assertEquals(3, log.deleteOldSegments());
        assertEquals(List.of(30L, 40L), log.segmentBaseOffsets());
        assertEquals(2L * size, log.size());
    }

    @Test
    void deleteRecordsMovesLogStartAndRetentionDropsSegmentsBelowIt() throws IOException {
        int size = batch(10, 0).sizeInBytes();
        log = PartitionLog.open(tmp.resolve("d-0"), LogConfig.builder().segmentBytes(size).retentionMs(-1).build(),
                clock, RecoveryState.UNKNOWN);
        for (int i = 0; i < 3; i++) log.appendAsLeader(batch(10, 1), i);
        log.updateHighWatermark(25);
        assertThrows(RuntimeException.class, () -> log.maybeIncrementLogStartOffset(26));
        log.maybeIncrementLogStartOffset(15);
        assertEquals(15, log.logStartOffset());
        assertEquals(List.of(new LeaderEpochCache.EpochEntry(1, 15), new LeaderEpochCache.EpochEntry(2, 20)),
                log.epochEntries());
        assertEquals(1, log.deleteOldSegments());
        assertEquals(List.of(10L, 20L), log.segmentBaseOffsets());
        assertEquals(15, log.logStartOffset());
    }

    Map<String, String> latestValues() {
        Map<String, String> out = new HashMap<>();
        for (MutableRecordBatch b : readAll(log)) {
            for (Record r : b) {
                String k = new String(org.apache.kafka.common.utils.Utils.toArray(r.key()));
                out.put(k, value(r));
            }
        }
        return out;
    }

    @Test
    void compactionKeepsLatestPerKeyPreservesOffsetsAndExpiresTombstones() throws IOException {
        LogConfig cfg = LogConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT).segmentBytes(300)
                .deleteRetentionMs(HOUR).build();
        log = PartitionLog.open(tmp.resolve("c-0"), cfg, clock, RecoveryState.UNKNOWN);
        String[][] writes = {{"a", "1"}, {"b", "1"}, {"a", "2"}, {"c", "1"}, {"b", null}, {"a", "3"}, {"d", "1"},
            {"c", "2"}, {"e", "1"}, {"e", "2"}, {"f", "1"}, {"g", "1"}};
        for (String[] w : writes) log.appendAsLeader(keyed(clock.milliseconds(), w[0], w[1]), 0);
        log.roll();
        log.appendAsLeader(keyed(clock.milliseconds(), "z", "1"), 0);
        Map<String, String> before = latestValues();
        long end = log.logEndOffset();
        log.updateHighWatermark(end);
        long sizeBefore = log.size();
        assertTrue(log.compact() > 0);
        assertTrue(log.size() < sizeBefore);
        assertEquals(end, log.logEndOffset());
        assertEquals(before, latestValues());
        // every key appears once; offsets are preserved and increasing
        List<Long> offsets = readAll(log).stream().map(MutableRecordBatch::lastOffset).toList();
        assertEquals(offsets.stream().sorted().distinct().toList(), offsets);
        assertTrue(offsets.contains(5L)); // a=3 kept at its original offset
        assertFalse(offsets.contains(0L));
        assertTrue(latestValues().containsKey("b"), "tombstone kept within delete.retention.ms");
        // clock goes backward: the tombstone horizon is not reached
        clock.skewWallClock(-2 * HOUR);
        log.compact();
        assertTrue(latestValues().containsKey("b"));
        clock.advance(4 * HOUR);
        log.compact();
        assertFalse(latestValues().containsKey("b"), "tombstone dropped after delete.retention.ms");
        readAll(log).forEach(MutableRecordBatch::ensureValid);
        // survives a restart (indexes rebuilt, offsets intact)
        log.close();
        log = PartitionLog.open(tmp.resolve("c-0"), cfg, clock, new RecoveryState(0, 0, end, false));
        assertEquals(end, log.logEndOffset());
        Map<String, String> expected = new HashMap<>(before);
        expected.remove("b");
        assertEquals(expected, latestValues());
    }

    /**
     * Found by the nightly mix's compacted topic (6 December 2026): at start-up a broker opens its logs before it
     * has replayed the metadata, so with the defaults (cleanup.policy=delete); a compacted log, which has gaps, was
     * then recovered as a damaged dense log and cut at its first gap, every later segment deleted.
     */
    @Test
    void aCompactedLogRecoveredBeforeItsTopicConfigIsKnownKeepsItsData() throws IOException {
        LogConfig cfg = LogConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT).segmentBytes(300).build();
        log = PartitionLog.open(tmp.resolve("k-0"), cfg, clock, RecoveryState.UNKNOWN);
        for (int i = 0; i < 30; i++) log.appendAsLeader(keyed(clock.milliseconds(), "k" + (i % 3), "v" + i), 0);
        log.roll();
        log.appendAsLeader(keyed(clock.milliseconds(), "z", "1"), 0);
        long end = log.logEndOffset();
        log.updateHighWatermark(end);
        assertTrue(log.compact() > 0);
        Map<String, String> before = latestValues();
        log.close();
        // an unclean restart, recovering from offset 0, with the broker's defaults: not compacted
        LogConfig defaults = LogConfig.builder().segmentBytes(300).build();
        log = PartitionLog.open(tmp.resolve("k-0"), defaults, clock, new RecoveryState(0, 0, end, false));
        assertEquals(end, log.logEndOffset(), "nothing cut");
        assertEquals(before, latestValues());
        // once the topic's config arrives and says delete, the log is recovered as a dense one again
        log.updateConfig(defaults);
        assertFalse(Files.exists(tmp.resolve("k-0").resolve(PartitionLog.COMPACTED_MARKER)));
    }

    @Test
    void interruptedCompactionSwapIsCompletedAndCleanedFileDiscarded() throws IOException {
        LogConfig cfg = LogConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT).build();
        log = PartitionLog.open(tmp.resolve("x-0"), cfg, clock, RecoveryState.UNKNOWN);
        log.appendAsLeader(keyed(1, "a", "1"), 0);
        log.appendAsLeader(keyed(1, "a", "2"), 0);
        log.close();
        Path dir = tmp.resolve("x-0");
        Path logFile = dir.resolve("00000000000000000000.log");
        // a swap holding only the second batch, as compaction would have produced
        byte[] all = Files.readAllBytes(logFile);
        int firstSize = keyed(1, "a", "1").sizeInBytes();
        Files.write(dir.resolve("00000000000000000000.log.swap"), java.util.Arrays.copyOfRange(all, firstSize, all.length));
        Files.write(dir.resolve("00000000000000000000.log.cleaned"), new byte[] {1, 2, 3});
        log = PartitionLog.open(dir, cfg, clock, RecoveryState.UNKNOWN);
        assertEquals(2, log.logEndOffset());
        assertEquals(List.of(1L), readAll(log).stream().map(MutableRecordBatch::baseOffset).toList());
        assertFalse(files().stream().anyMatch(f -> f.endsWith(".swap") || f.endsWith(".cleaned")));
    }
}
