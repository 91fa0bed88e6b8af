package io.faultline.broker.replication;

import io.faultline.broker.storage.LogReadResult;
import io.faultline.broker.storage.PartitionLog;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Record helpers for replication tests. */
final class Records {
    private Records() {
    }

    static MemoryRecords values(String... values) {
        SimpleRecord[] rs = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) rs[i] = new SimpleRecord(1L, null, values[i].getBytes(StandardCharsets.UTF_8));
        return MemoryRecords.withRecords(0L, Compression.NONE, rs);
    }

    /** "offset:value@epoch" for every record of the log, in order. */
    static List<String> dump(PartitionLog log) {
        List<String> out = new ArrayList<>();
        long next = log.logStartOffset();
        while (next < log.logEndOffset()) {
            LogReadResult r = log.read(next, 1 << 20, Long.MAX_VALUE);
            boolean any = false;
            for (MutableRecordBatch b : r.records().batches()) {
                any = true;
                for (Record rec : b) {
                    ByteBuffer v = rec.value();
                    byte[] bytes = new byte[v.remaining()];
                    v.get(bytes);
                    out.add(rec.offset() + ":" + new String(bytes, StandardCharsets.UTF_8) + "@" + b.partitionLeaderEpoch());
                }
            }
            if (!any) break;
            next = r.nextOffset();
        }
        return out;
    }

    /** Just the values, in offset order. */
    static List<String> valuesOf(PartitionLog log) {
        return dump(log).stream().map(s -> s.substring(s.indexOf(':') + 1, s.lastIndexOf('@'))).toList();
    }
}
