package io.faultline.broker.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.faultline.broker.common.ManualTime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compaction with transactions: an aborted transaction's record never supersedes a committed value of its key. */
class CompactionTransactionsTest {
    @TempDir
    Path tmp;

    private static MemoryRecords txn(long pid, int seq, String key, String value) {
        return MemoryRecords.withTransactionalRecords(Compression.NONE, pid, (short) 0, seq,
                new SimpleRecord(0L, key.getBytes(), value.getBytes()));
    }

    private static MemoryRecords marker(long pid, boolean commit) {
        return MemoryRecords.withEndTransactionMarker(0L, pid, (short) 0,
                new EndTransactionMarker(commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, 0));
    }

    @Test
    void abortedAndOpenTransactionsDoNotShadowCommittedValues() throws Exception {
        ManualTime clock = new ManualTime();
        LogConfig cfg = LogConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT).build();
        try (PartitionLog log = PartitionLog.open(tmp.resolve("c-0"), cfg, clock, RecoveryState.UNKNOWN)) {
            log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                    new SimpleRecord(0L, "k".getBytes(), "plain".getBytes())), 0);      // 0
            log.appendAsLeader(txn(5, 0, "k", "aborted"), 0);                       // 1
            log.appendAsLeader(marker(5, false), 0, true);                          // 2
            log.appendAsLeader(txn(6, 0, "j", "committed-old"), 0);                 // 3
            log.appendAsLeader(marker(6, true), 0, true);                           // 4
            log.appendAsLeader(txn(6, 1, "j", "committed-new"), 0);                 // 5
            log.appendAsLeader(marker(6, true), 0, true);                           // 6
            log.appendAsLeader(txn(7, 0, "k", "open"), 0);                          // 7, never decided
            log.roll();
            log.updateHighWatermark(log.logEndOffset());
            log.compact();
            List<String> values = new ArrayList<>();
            for (MutableRecordBatch b : MemoryRecords.readableRecords(log.read(0, 1 << 20, Long.MAX_VALUE).records()
                    .buffer()).batches()) {
                if (b.isControlBatch()) continue;
                for (Record r : b) values.add(new String(org.apache.kafka.common.utils.Utils.toArray(r.value())));
            }
            assertEquals(List.of("plain", "aborted", "committed-new", "open"), values,
                    "the committed plain value of k stays; the older committed j goes; markers keep their batches");
        }
    }
}
