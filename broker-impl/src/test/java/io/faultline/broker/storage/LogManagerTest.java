package io.faultline.broker.storage;

import io.faultline.broker.common.ManualTime;
import static io.faultline.broker.storage.TestRecords.*;
import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogManagerTest {
    @TempDir
    Path dataDir;
    final ManualTime clock = new ManualTime(1_000L);

    @Test
    void cleanShutdownWritesCheckpointsAndMarker() throws Exception {
        TopicPartition a = new TopicPartition("orders", 0);
        TopicPartition b = new TopicPartition("my-topic", 11);
        LogManager lm = LogManager.open(dataDir, tp -> LogConfig.DEFAULT, clock);
        assertFalse(lm.hadCleanShutdown());
        lm.getOrCreateLog(a).appendAsLeader(batch(5, 1), 0);
        lm.getLog(a).orElseThrow().updateHighWatermark(3);
        lm.getOrCreateLog(b).appendAsLeader(batch(2, 1), 0);
        assertTrue(Files.isDirectory(dataDir.resolve("orders-0")));
        assertTrue(Files.isDirectory(dataDir.resolve("my-topic-11")));
        lm.close();
        assertTrue(Files.exists(dataDir.resolve(".kafka_cleanshutdown")));
        String hw = Files.readString(dataDir.resolve("replication-offset-checkpoint"));
        assertTrue(hw.startsWith("0\n2\n"), hw);
        assertTrue(hw.contains("orders 0 3\n"), hw);
        assertTrue(hw.contains("my-topic 11 0\n"), hw);
        assertTrue(Files.readString(dataDir.resolve("recovery-point-offset-checkpoint")).contains("orders 0 5\n"));
        assertTrue(Files.readString(dataDir.resolve("log-start-offset-checkpoint")).contains("my-topic 11 0\n"));

        LogManager again = LogManager.open(dataDir, tp -> LogConfig.DEFAULT, clock);
        assertTrue(again.hadCleanShutdown());
        assertFalse(Files.exists(dataDir.resolve(".kafka_cleanshutdown")), "marker removed while running");
        assertEquals(2, again.allLogs().size());
        assertEquals(5, again.getLog(a).orElseThrow().logEndOffset());
        assertEquals(3, again.getLog(a).orElseThrow().highWatermark());
        again.deleteLog(b);
        assertFalse(Files.exists(dataDir.resolve("my-topic-11")));
        again.close();
    }

    @Test
    void uncleanShutdownRecoversUnflushedTail() throws Exception {
        TopicPartition a = new TopicPartition("t", 0);
        LogManager lm = LogManager.open(dataDir, tp -> LogConfig.DEFAULT, clock);
        PartitionLog pl = lm.getOrCreateLog(a);
        pl.appendAsLeader(batch(5, 1), 0);
        pl.flush();
        lm.checkpoint();
        pl.appendAsLeader(batch(5, 1), 0);
        pl.closeWithoutFlush(); // "crash": no marker, page cache kept (process crash, not power loss)
        Files.write(dataDir.resolve("t-0/00000000000000000000.log"), new byte[] {0, 0, 0}, java.nio.file.StandardOpenOption.APPEND);
        LogManager after = LogManager.open(dataDir, tp -> LogConfig.DEFAULT, clock);
        assertFalse(after.hadCleanShutdown());
        assertEquals(10, after.getLog(a).orElseThrow().logEndOffset());
        after.close();
    }

    @Test
    void maintenanceAppliesRetentionAndIgnoresBadCheckpoints() throws Exception {
        Files.createDirectories(dataDir);
        Files.writeString(dataDir.resolve("recovery-point-offset-checkpoint"), "garbage");
        LogConfig cfg = LogConfig.builder().segmentBytes(batch(5, 1).sizeInBytes()).retentionMs(10).build();
        LogManager lm = LogManager.open(dataDir, tp -> cfg, clock);
        PartitionLog pl = lm.getOrCreateLog(new TopicPartition("r", 0));
        pl.appendAsLeader(batch(5, clock.milliseconds()), 0);
        pl.appendAsLeader(batch(5, clock.milliseconds()), 0);
        pl.updateHighWatermark(10);
        clock.advance(100);
        lm.runMaintenance();
        assertEquals(10, pl.logStartOffset());
        assertTrue(Files.readString(dataDir.resolve("log-start-offset-checkpoint")).contains("r 0 10\n"));
        lm.close();
    }
}
