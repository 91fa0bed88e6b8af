package io.faultline.broker.storage;

import io.faultline.broker.storage.RecordBatchAdapter.BatchHeader;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/**
 * Checks an append before any byte reaches the log (the role of Kafka's LogValidator, for v2 batches only): CRCs,
 * sizes, offset ranges, keys on compacted topics; for leaders also assigns offsets and stamps the epoch in place.
 * An append either passes whole or throws; nothing is written before validation ends.
 *
 * <p>Thread-safety: stateless.
 */
final class AppendValidator {
    /** A validated append: the header of every batch, in order, and the number of records. */
    record ValidatedAppend(List<BatchHeader> headers, int recordCount) {
    }

    private AppendValidator() {
    }

    static ValidatedAppend validateForLeader(MemoryRecords records, long nextOffset, int leaderEpoch, LogConfig cfg,
                                             long now, TopicPartition tp, boolean fromCoordinator) {
        long next = nextOffset;
        int bytes = 0;
        int count = 0;
        ByteBuffer buf = records.buffer();
        for (MutableRecordBatch batch : RecordBatchAdapter.batches(records)) {
            var summary = RecordBatchAdapter.validateForLeader(batch, buf, buf.position() + bytes,
                    cfg.maxMessageBytes(), fromCoordinator);
            if (cfg.compact() && !summary.allKeyed()) {
                throw new InvalidRecordException("compacted topic " + tp + " requires keys");
            }
            RecordBatchAdapter.assignForLeader(batch, next, leaderEpoch, cfg.timestampType(), now);
            next = batch.lastOffset() + 1;
            count += batch.countOrNull();
            bytes += batch.sizeInBytes();
        }
        return new ValidatedAppend(wholeBatches(records.buffer(), bytes), count);
    }

    /**
     * Follower batches keep their offsets: the first must start at the log end offset and the rest follow without
     * gaps, except on compacted topics where compaction leaves gaps between batches (but never goes backward).
     */
    static ValidatedAppend validateForFollower(MemoryRecords records, long logEndOffset, LogConfig cfg,
                                               TopicPartition tp) {
        long expected = logEndOffset;
        int bytes = 0;
        int count = 0;
        for (MutableRecordBatch batch : RecordBatchAdapter.batches(records)) {
            RecordBatchAdapter.validateForFollower(batch);
            boolean ok = cfg.compact() ? batch.baseOffset() >= expected : batch.baseOffset() == expected;
            if (!ok) {
                throw new NonContiguousAppendException("follower append to " + tp + " at offset "
                        + batch.baseOffset() + ", expected " + expected, expected, batch.baseOffset());
            }
            if (batch.lastOffset() < batch.baseOffset()) {
                throw new InvalidRecordException("batch last offset below base offset");
            }
            if (batch.sizeInBytes() > Math.max(cfg.maxMessageBytes(), cfg.segmentBytes())) {
                throw new RecordTooLargeException("batch of " + batch.sizeInBytes() + " bytes");
            }
            expected = batch.lastOffset() + 1;
            Integer c = batch.countOrNull();
            count += c == null ? (int) (batch.lastOffset() - batch.baseOffset() + 1) : c;
            bytes += batch.sizeInBytes();
        }
        return new ValidatedAppend(wholeBatches(records.buffer(), bytes), count);
    }

    /** Headers of the batches in buf; the buffer must hold exactly {@code validBytes} of whole batches. */
    private static List<BatchHeader> wholeBatches(ByteBuffer buf, int validBytes) {
        if (validBytes != buf.remaining()) {
            throw new CorruptRecordException("append of " + buf.remaining() + " bytes has only " + validBytes
                    + " bytes of whole batches");
        }
        List<BatchHeader> out = new ArrayList<>(1);
        int pos = buf.position();
        while (pos < buf.limit()) {
            BatchHeader h = RecordBatchAdapter.readHeader(buf, pos, buf.limit() - pos, pos - buf.position());
            out.add(h);
            pos += h.sizeInBytes();
        }
        return out;
    }
}
