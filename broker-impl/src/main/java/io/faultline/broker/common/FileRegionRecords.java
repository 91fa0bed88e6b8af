package io.faultline.broker.common;

import java.nio.channels.FileChannel;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * Whole record batches that stay in a log segment file: {@code size} bytes from {@code position} of
 * {@code channel}. Set as a response's records, they are not copied into the response buffer;
 * the network layer leaves a gap for them when it serializes the response, and its threads send them from the file
 * with {@link FileChannel#transferTo} (sendfile on Linux), as Kafka does for plaintext fetches.
 *
 * <p>The bytes must not change until the response is written: the log hands out only ranges below the high
 * watermark, which are never truncated. If the segment is deleted or cut meanwhile (retention, compaction), the
 * write fails and the connection is closed; the client fetches again.
 */
public record FileRegionRecords(FileChannel channel, long position, int size, String file) implements BaseRecords {
    public FileRegionRecords {
        if (position < 0 || size < 0) throw new IllegalArgumentException("bad region " + position + "+" + size);
    }

    @Override
    public int sizeInBytes() {
        return size;
    }

    /** Not used: the broker writes responses with its own network threads. */
    @Override
    public RecordsSend<? extends BaseRecords> toSend() {
        throw new UnsupportedOperationException("file regions are sent by the broker's network threads");
    }

    @Override
    public String toString() {
        return "FileRegionRecords(" + file + ", " + position + "+" + size + ")";
    }
}
