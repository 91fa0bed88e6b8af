package io.faultline.broker.storage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Builders and readers of record batches for tests. */
final class TestRecords {
    private TestRecords() {
    }

    /** One producer-style batch (base offset 0) of {@code n} records "v0".. with the given timestamp. */
    static MemoryRecords batch(int n, long timestamp) {
        SimpleRecord[] rs = new SimpleRecord[n];
        for (int i = 0; i < n; i++) rs[i] = new SimpleRecord(timestamp, ("k" + i).getBytes(), ("v" + i).getBytes());
        return MemoryRecords.withRecords(0L, Compression.NONE, rs);
    }

    static MemoryRecords batchWithValueSize(int n, int valueSize, long timestamp) {
        SimpleRecord[] rs = new SimpleRecord[n];
        for (int i = 0; i < n; i++) rs[i] = new SimpleRecord(timestamp, ("k" + i).getBytes(), new byte[valueSize]);
        return MemoryRecords.withRecords(0L, Compression.NONE, rs);
    }

    static MemoryRecords keyed(long timestamp, String key, String value) {
        return MemoryRecords.withRecords(0L, Compression.NONE, new SimpleRecord(timestamp,
                key.getBytes(StandardCharsets.UTF_8), value == null ? null : value.getBytes(StandardCharsets.UTF_8)));
    }

    /** A follower-style batch with explicit offsets and epoch. */
    static MemoryRecords atOffset(long baseOffset, int epoch, int n, long timestamp) {
        SimpleRecord[] rs = new SimpleRecord[n];
        for (int i = 0; i < n; i++) rs[i] = new SimpleRecord(timestamp, ("k" + i).getBytes(), ("v" + (baseOffset + i)).getBytes());
        return MemoryRecords.withRecords(RecordBatch.CURRENT_MAGIC_VALUE, baseOffset, Compression.NONE,
                TimestampType.CREATE_TIME, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH,
                RecordBatch.NO_SEQUENCE, epoch, false, rs);
    }

    static List<MutableRecordBatch> batches(MemoryRecords records) {
        List<MutableRecordBatch> out = new ArrayList<>();
        records.batches().forEach(out::add);
        return out;
    }

    static List<Long> recordOffsets(MemoryRecords records) {
        List<Long> out = new ArrayList<>();
        for (MutableRecordBatch b : records.batches()) for (Record r : b) out.add(r.offset());
        return out;
    }

    static String value(Record r) {
        if (!r.hasValue()) return null;
        ByteBuffer v = r.value();
        byte[] b = new byte[v.remaining()];
        v.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    /** Reads the whole log (from log start) as batches. */
    static List<MutableRecordBatch> readAll(PartitionLog log) {
        List<MutableRecordBatch> out = new ArrayList<>();
        long next = log.logStartOffset();
        while (next < log.logEndOffset()) {
            LogReadResult r = log.read(next, 1 << 20, Long.MAX_VALUE);
            List<MutableRecordBatch> bs = batches(r.records());
            if (bs.isEmpty()) break;
            out.addAll(bs);
            next = r.nextOffset();
        }
        return out;
    }
}
