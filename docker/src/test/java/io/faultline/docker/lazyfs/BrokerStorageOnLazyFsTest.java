package io.faultline.docker.lazyfs;

import io.faultline.broker.common.Time;
import io.faultline.broker.storage.LogConfig;
import io.faultline.broker.storage.LogManager;
import io.faultline.broker.storage.PartitionLog;
import io.faultline.broker.storage.RecoveryState;
import io.faultline.lazyfs.LazyFs;
import io.faultline.lazyfs.LazyFsMain;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * broker-impl's storage (used as a library) on lazyfs mounted on the host: appends, a flush, more appends over
 * new segments, then power loss (the disk forgets and the process is gone), a fresh mount of the same backing
 * directory (the machine comes back), and recovery from the last recovery point. The log must come back as
 * exactly the flushed prefix, valid to the last batch, and take appends again.
 */
class BrokerStorageOnLazyFsTest {
    private static final LogConfig CONFIG = LogConfig.DEFAULT.toBuilder().segmentBytes(16 * 1024).build();
    private static final Time CLOCK = Time.SYSTEM;

    @Test
    void partitionLogRecoversTheFlushedPrefixAfterPowerLoss() throws Exception {
        Path root = Files.createTempDirectory("lazyfs-broker");
        Path backing = Files.createDirectories(root.resolve("backing"));
        List<LazyFs> mounts = new ArrayList<>();
        try {
            Path first = mount(backing, root.resolve("boot1"), mounts);
            PartitionLog log = PartitionLog.open(first.resolve("t-0"), CONFIG, CLOCK, RecoveryState.UNKNOWN);
            append(log, 40);
            log.flush();
            long flushedEnd = log.logEndOffset();
            int flushedSegments = log.numberOfSegments();
            append(log, 40);
            assertTrue(log.numberOfSegments() > flushedSegments, "later appends rolled new segments");
            long unflushedEnd = log.logEndOffset();
            // Power loss: the disk forgets, the process is gone (the log object is simply abandoned).
            var forgotten = mounts.get(0).forget(true);
            assertTrue(forgotten.directoryOpsUndone() > 0, "the unsynced segment files were undone: " + forgotten);

            Path second = mount(backing, root.resolve("boot2"), mounts);
            PartitionLog recovered = PartitionLog.open(second.resolve("t-0"), CONFIG, CLOCK,
                    new RecoveryState(flushedEnd, 0, 0, false));
            assertEquals(flushedEnd, recovered.logEndOffset(), "exactly the flushed prefix (was " + unflushedEnd + ")");
            assertEquals(flushedSegments, recovered.numberOfSegments());
            assertContiguous(recovered, flushedEnd);
            append(recovered, 5);
            recovered.flush();
            assertContiguous(recovered, recovered.logEndOffset());
            recovered.close();
        } finally {
            for (LazyFs fs : mounts) fs.close();
            try (Stream<Path> walk = Files.walk(root)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            } catch (IOException | java.io.UncheckedIOException stillMounted) {
                // a mount point still being unmounted lazily: only an empty temp directory stays behind
            }
        }
    }

    /**
     * With flush.messages=1 an append is durable when it returns, in a partition created a moment earlier too: power
     * loss right after the appends (before any checkpoint or flush.ms round) keeps the partition and every record
     * (with default flushing this test loses all 30). lazyfs counts a directory fsync as also making that
     * directory's own creation durable, as ext4's journal does, so this does not tell whether the data directory
     * itself was synced after the partition directory was made; LogManager does that too.
     */
    @Test
    void aNewPartitionWithAnFsyncPerMessageSurvivesPowerLoss() throws Exception {
        Path root = Files.createTempDirectory("lazyfs-broker");
        Path backing = Files.createDirectories(root.resolve("backing"));
        List<LazyFs> mounts = new ArrayList<>();
        LogConfig everyMessage = CONFIG.toBuilder().flushMessages(1).build();
        var tp = new TopicPartition("t", 0);
        try {
            Path first = mount(backing, root.resolve("boot1"), mounts);
            LogManager manager = LogManager.open(first.resolve("data"), t -> everyMessage, CLOCK);
            PartitionLog log = manager.getOrCreateLog(tp);
            append(log, 3);
            long end = log.logEndOffset();
            var forgotten = mounts.get(0).forget(true);

            Path second = mount(backing, root.resolve("boot2"), mounts);
            LogManager recovered = LogManager.open(second.resolve("data"), t -> everyMessage, CLOCK);
            assertTrue(recovered.getLog(tp).isPresent(), "the partition survived power loss: " + forgotten);
            assertEquals(end, recovered.getLog(tp).get().logEndOffset(), "every appended (fsynced) batch");
            assertContiguous(recovered.getLog(tp).get(), end);
            recovered.close();
        } finally {
            for (LazyFs fs : mounts) fs.close();
            try (Stream<Path> walk = Files.walk(root)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            } catch (IOException | java.io.UncheckedIOException stillMounted) {
                // a mount point still being unmounted lazily: only an empty temp directory stays behind
            }
        }
    }

    private static Path mount(Path backing, Path at, List<LazyFs> mounts) throws Exception {
        Files.createDirectories(at);
        LazyFs fs = new LazyFs(backing);
        fs.mountInBackground(at, LazyFsMain.mountOptions(), 30_000);
        mounts.add(fs);
        return at;
    }

    private static void append(PartitionLog log, int batches) {
        for (int b = 0; b < batches; b++) {
            SimpleRecord[] rs = new SimpleRecord[10];
            for (int i = 0; i < rs.length; i++) rs[i] = new SimpleRecord(CLOCK.milliseconds(), null, new byte[200]);
            log.appendAsLeader(MemoryRecords.withRecords(0L, Compression.NONE, rs), 0);
        }
    }

    /** Every batch from 0 to end reads back with a valid CRC and offsets without gaps. */
    private static void assertContiguous(PartitionLog log, long end) {
        long next = 0;
        while (next < end) {
            var read = log.read(next, 1 << 20, end);
            int before = (int) next;
            for (MutableRecordBatch batch : read.records().batches()) {
                batch.ensureValid();
                if (batch.lastOffset() < next) continue;
                assertEquals(next, batch.baseOffset(), "no gap");
                next = batch.lastOffset() + 1;
            }
            assertTrue(next > before, "progress reading at " + before);
        }
        assertEquals(end, next);
    }
}
