package io.faultline.broker.storage;

import java.nio.ByteBuffer;
import java.util.Iterator;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The one place that touches kafka-clients' internal record classes (which move between releases: in 4.4.0 they
 * live in {@code org.apache.kafka.common.record.internal}) and the raw v2 batch layout. Everything else in the
 * storage engine works with {@link BatchHeader}s and byte buffers.
 *
 * <p>v2 batch header layout (big-endian): baseOffset 8 @0, length 4 @8, partitionLeaderEpoch 4 @12, magic 1 @16,
 * crc 4 @17, attributes 2 @21, lastOffsetDelta 4 @23, baseTimestamp 8 @27, maxTimestamp 8 @35, producerId 8 @43,
 * producerEpoch 2 @51, baseSequence 4 @53, recordsCount 4 @57, records @61. {@code length} counts the bytes after
 * the length field; the CRC-32C covers attributes..end, so offsets and the leader epoch can be rewritten in place.
 *
 * <p>Thread-safety: stateless.
 */
final class RecordBatchAdapter {
    /** baseOffset + length. */
    static final int LOG_OVERHEAD = 12;
    /** Full v2 header size (61). */
    static final int HEADER_SIZE = 61;
    static final byte MAGIC_V2 = 2;
    static final long NO_TIMESTAMP = RecordBatch.NO_TIMESTAMP;
    static final int NO_PARTITION_LEADER_EPOCH = RecordBatch.NO_PARTITION_LEADER_EPOCH;

    private static final int LENGTH_OFFSET = 8;
    private static final int EPOCH_OFFSET = 12;
    private static final int MAGIC_OFFSET = 16;
    private static final int ATTRIBUTES_OFFSET = 21;
    private static final int LAST_OFFSET_DELTA_OFFSET = 23;
    private static final int BASE_TIMESTAMP_OFFSET = 27;
    private static final int MAX_TIMESTAMP_OFFSET = 35;
    private static final int RECORDS_COUNT_OFFSET = 57;
    private static final int TIMESTAMP_TYPE_MASK = 0x08;
    private static final int COMPRESSION_MASK = 0x07;

    private RecordBatchAdapter() {
    }

    /**
     * The fields of one batch header we need, read without touching the records.
     *
     * @param position byte position of the batch in its buffer or file
     */
    record BatchHeader(long baseOffset, long lastOffset, int sizeInBytes, int partitionLeaderEpoch, byte magic,
                       long maxTimestamp, int recordCount, int position) {
        long nextOffset() {
            return lastOffset + 1;
        }
    }

    /** Total batch size (header included) from the first 12 bytes at {@code pos}, without checks. */
    static int batchSize(ByteBuffer buf, int pos) {
        return buf.getInt(pos + LENGTH_OFFSET) + LOG_OVERHEAD;
    }

    /**
     * Reads the header at absolute {@code pos} of {@code buf} (at least {@link #HEADER_SIZE} bytes must be there).
     * Checks magic and size sanity only; the CRC is checked by {@link #ensureValid}.
     *
     * @param remaining bytes available from pos (in the buffer or the file), to reject sizes running past the end
     * @throws CorruptRecordException for a header that cannot be a v2 batch
     */
    static BatchHeader readHeader(ByteBuffer buf, int pos, long remaining, int filePosition) {
        if (remaining < HEADER_SIZE) {
            throw new CorruptRecordException("only " + remaining + " bytes left, less than a batch header");
        }
        long baseOffset = buf.getLong(pos);
        int length = buf.getInt(pos + LENGTH_OFFSET);
        byte magic = buf.get(pos + MAGIC_OFFSET);
        if (magic != MAGIC_V2) {
            throw new CorruptRecordException("batch at position " + filePosition + " has magic " + magic + ", expected 2");
        }
        long size = (long) length + LOG_OVERHEAD;
        if (size < HEADER_SIZE || size > remaining) {
            throw new CorruptRecordException("batch at position " + filePosition + " has size " + size
                    + " but " + remaining + " bytes remain");
        }
        int lastOffsetDelta = buf.getInt(pos + LAST_OFFSET_DELTA_OFFSET);
        if (lastOffsetDelta < 0 || baseOffset < 0) {
            throw new CorruptRecordException("batch at position " + filePosition + " has baseOffset " + baseOffset
                    + " and lastOffsetDelta " + lastOffsetDelta);
        }
        return new BatchHeader(baseOffset, baseOffset + lastOffsetDelta, (int) size, buf.getInt(pos + EPOCH_OFFSET),
                magic, buf.getLong(pos + MAX_TIMESTAMP_OFFSET), buf.getInt(pos + RECORDS_COUNT_OFFSET), filePosition);
    }

    /** Verifies the CRC of the batch occupying {@code batch} (position..limit). */
    static void ensureValid(ByteBuffer batch) {
        MutableRecordBatch b = firstBatch(batch);
        b.ensureValid();
        if (b.sizeInBytes() != batch.remaining()) {
            throw new CorruptRecordException("batch size mismatch: " + b.sizeInBytes() + " vs " + batch.remaining());
        }
    }

    static boolean isValid(ByteBuffer batch) {
        try {
            ensureValid(batch);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static MutableRecordBatch firstBatch(ByteBuffer batch) {
        Iterator<MutableRecordBatch> it = MemoryRecords.readableRecords(batch.slice()).batches().iterator();
        if (!it.hasNext()) throw new CorruptRecordException("no complete batch");
        return it.next();
    }

    static Iterable<MutableRecordBatch> batches(MemoryRecords records) {
        return records.batches();
    }

    /**
     * Checks one batch of a client append as Kafka's LogValidator does for v2, and more: magic, size, CRC, base
     * offset 0, offset range consistent with the record count, no control batches, a sequence with a producer id,
     * no client-set LogAppendTime, a known codec, and every record parsed (decompressed within bounded memory, see
     * {@link BatchScanner}). A CREATE_TIME batch whose header max timestamp disagrees with its records gets the
     * records' value (as Kafka rewrites it).
     *
     * @param buf the buffer holding the batch at absolute position {@code pos}
     * @return what the record scan found
     */
    static BatchScanner.Summary validateForLeader(MutableRecordBatch batch, ByteBuffer buf, int pos,
                                                  int maxMessageBytes, boolean fromCoordinator) {
        if (batch.magic() != MAGIC_V2) {
            throw new InvalidRecordException("only magic v2 batches are supported, got " + batch.magic());
        }
        if (batch.sizeInBytes() > maxMessageBytes) {
            throw new org.apache.kafka.common.errors.RecordTooLargeException("batch of " + batch.sizeInBytes()
                    + " bytes exceeds max.message.bytes " + maxMessageBytes);
        }
        batch.ensureValid();
        if (batch.baseOffset() != 0) {
            throw new InvalidRecordException("the base offset of a client batch must be 0, not " + batch.baseOffset());
        }
        Integer count = batch.countOrNull();
        long countFromOffsets = batch.lastOffset() - batch.baseOffset() + 1;
        if (count == null || count <= 0 || countFromOffsets != count) {
            throw new InvalidRecordException("inconsistent batch: count " + count + ", offset range "
                    + countFromOffsets);
        }
        if (batch.isControlBatch() && !fromCoordinator) {
            throw new InvalidRecordException("clients may not send control batches");
        }
        if (batch.hasProducerId() && batch.baseSequence() < 0 && !fromCoordinator) {
            throw new InvalidRecordException("invalid sequence " + batch.baseSequence() + " with producer id "
                    + batch.producerId());
        }
        if (isLogAppendTime(buf, pos)) {
            throw new org.apache.kafka.common.errors.InvalidTimestampException(
                    "producers may not set the timestamp type to LogAppendTime");
        }
        int codec = buf.getShort(pos + ATTRIBUTES_OFFSET) & COMPRESSION_MASK;
        ByteBuffer records = buf.duplicate().limit(pos + batch.sizeInBytes()).position(pos + HEADER_SIZE);
        BatchScanner.Summary summary = BatchScanner.scan(records, codec, count, buf.getLong(pos + BASE_TIMESTAMP_OFFSET));
        if (summary.maxTimestamp() != batch.maxTimestamp()) {
            batch.setMaxTimestamp(TimestampType.CREATE_TIME, summary.maxTimestamp()); // recomputes the CRC
        }
        return summary;
    }

    /** Checks a batch of a follower append: magic and CRC (offsets are checked by the caller). */
    static void validateForFollower(MutableRecordBatch batch) {
        if (batch.magic() != MAGIC_V2) {
            throw new InvalidRecordException("only magic v2 batches are supported, got " + batch.magic());
        }
        batch.ensureValid();
    }

    /** Rewrites offsets and leader epoch in place (outside the CRC), and the append time if configured. */
    static void assignForLeader(MutableRecordBatch batch, long baseOffset, int leaderEpoch,
                                TimestampType timestampType, long now) {
        batch.setLastOffset(baseOffset + (batch.lastOffset() - batch.baseOffset()));
        batch.setPartitionLeaderEpoch(leaderEpoch);
        if (timestampType == TimestampType.LOG_APPEND_TIME) {
            batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, now); // recomputes the CRC
        }
    }

    static boolean isCompressed(ByteBuffer buf, int pos) {
        return (buf.getShort(pos + ATTRIBUTES_OFFSET) & COMPRESSION_MASK) != 0;
    }

    static boolean isLogAppendTime(ByteBuffer buf, int pos) {
        return (buf.getShort(pos + ATTRIBUTES_OFFSET) & TIMESTAMP_TYPE_MASK) != 0;
    }

    /** Kafka's shallow record iteration of a stored batch, for timestamp lookups and compaction. */
    static MutableRecordBatch asBatch(ByteBuffer batch) {
        return firstBatch(batch);
    }
}
