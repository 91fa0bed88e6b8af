package io.faultline.broker.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.SeededBugs;
import io.faultline.broker.common.Time;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded bug recovery-keeps-torn-batch: after an unclean stop whose last batch was torn (its length is on disk, its
 * last bytes are not), recovery keeps it with the switch and cuts it without.
 */
class SeededRecoveryBugTest {
    @TempDir
    Path dir;
    private int logs;

    /** Three batches, the last torn; returns the recovered log end and whether every kept batch passes its CRC. */
    private List<Object> recoverTornTail(SeededBug... bugs) throws Exception {
        Path d = dir.resolve("run" + (++logs)).resolve("t-0");
        PartitionLog log = PartitionLog.open(d, LogConfig.DEFAULT, Time.SYSTEM, RecoveryState.UNKNOWN);
        for (String v : List.of("a", "b", "c")) {
            log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(v.getBytes())), 0);
        }
        log.close();
        Path segment = d.resolve(LogFileNames.logFile(d, 0).getFileName());
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            long size = ch.size();
            ch.write(ByteBuffer.wrap(new byte[4]), size - 4); // the page holding the last bytes never reached disk
        }
        PartitionLog recovered = PartitionLog.open(d, LogConfig.DEFAULT, Time.SYSTEM,
                new RecoveryState(0, 0, 0, false), SeededBugs.of(bugs));
        try {
            MemoryRecords all = (MemoryRecords) recovered.read(0, 1 << 20, Long.MAX_VALUE).records();
            boolean allValid = true;
            for (var b : all.batches()) allValid &= b.isValid();
            return List.of(recovered.logEndOffset(), allValid);
        } finally {
            recovered.close();
        }
    }

    @Test
    void recoveryKeepsTornBatch() throws Exception {
        assertEquals(List.of(3L, false), recoverTornTail(SeededBug.RECOVERY_KEEPS_TORN_BATCH),
                "the torn batch is kept and served");
        assertEquals(List.of(2L, true), recoverTornTail());
    }
}
