package io.faultline.broker.storage;

import java.nio.ByteBuffer;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * How much memory validating a client's batches will take beyond their own bytes: the decoder buffers of a
 * compressed batch (see {@link BatchScanner#decodeMemory}), read from the batch headers before anything is
 * decompressed, so the API layer can reserve it in the broker's request memory first.
 *
 * <p>Thread-safety: stateless.
 */
public final class DecompressionMemory {
    private static final int LENGTH_OFFSET = 8;
    private static final int ATTRIBUTES_OFFSET = 21;
    private static final int HEADER_SIZE = 61;
    private static final int CODEC_MASK = 0x07;

    private DecompressionMemory() {
    }

    /**
     * The largest decoder working memory over the batches (they are validated one after the other); 0 when nothing
     * is compressed. Malformed framing ends the walk: validation refuses it before decoding.
     */
    public static long of(MemoryRecords records) {
        ByteBuffer buf = records.buffer();
        long largest = 0;
        int pos = buf.position();
        while (buf.limit() - pos >= HEADER_SIZE) {
            int length = buf.getInt(pos + LENGTH_OFFSET);
            if (length < HEADER_SIZE - 12 || length > buf.limit() - pos - 12) break;
            int codec = buf.getShort(pos + ATTRIBUTES_OFFSET) & CODEC_MASK;
            ByteBuffer body = buf.duplicate().limit(pos + 12 + length).position(pos + HEADER_SIZE).slice();
            largest = Math.max(largest, BatchScanner.decodeMemory(body, codec));
            pos += 12 + length;
        }
        return largest;
    }
}
