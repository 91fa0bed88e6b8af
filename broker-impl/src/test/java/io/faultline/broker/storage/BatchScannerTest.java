package io.faultline.broker.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

/** Direct tests of the produce-side record scan, per codec. */
class BatchScannerTest {
    private static final int HEADER = 61;
    private static final int SNAPPY = 2;

    /** The records area (after the batch header) of an uncompressed batch of {@code n} keyed records. */
    private static byte[] plainRecords(int n, long timestamp) {
        SimpleRecord[] rs = new SimpleRecord[n];
        for (int i = 0; i < n; i++) rs[i] = new SimpleRecord(timestamp + i, ("k" + i).getBytes(), ("v" + i).getBytes());
        ByteBuffer b = MemoryRecords.withRecords(Compression.NONE, rs).buffer();
        byte[] out = new byte[b.remaining() - HEADER];
        b.duplicate().position(HEADER).get(out);
        return out;
    }

    @Test
    void rawSnappyAsLibrdkafkaWritesItIsAccepted() throws Exception {
        byte[] raw = Snappy.compress(plainRecords(3, 1000));
        BatchScanner.Summary s = BatchScanner.scan(ByteBuffer.wrap(raw), SNAPPY, 3, 1000);
        assertEquals(1002, s.maxTimestamp());
        assertTrue(s.allKeyed());
    }

    @Test
    void xerialFramedSnappyIsStillAccepted() {
        ByteBuffer b = MemoryRecords.withRecords(Compression.snappy().build(),
                new SimpleRecord(5L, "k".getBytes(), "v".getBytes())).buffer();
        assertEquals(5, BatchScanner.scan(b.duplicate().position(HEADER), SNAPPY, 1, 5).maxTimestamp());
    }

    @Test
    void rawSnappyDeclaringMoreThanTheCapIsRefusedBeforeAllocating() {
        // preamble: uncompressed length 2^31 - 1 (varint), then a literal that is far too short
        byte[] lie = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 0x00, 0x61};
        RecordTooLargeException e = assertThrows(RecordTooLargeException.class,
                () -> BatchScanner.scan(ByteBuffer.wrap(lie), SNAPPY, 1, 0));
        assertTrue(e.getMessage().contains(String.valueOf(BatchScanner.MAX_DECOMPRESSED_BYTES)), e.getMessage());
    }

    @Test
    void aZstdWindowOverTheCapIsAnInvalidRecordNamingTheLimit() {
        byte[] plain = plainRecords(1, 0);
        // one frame, window descriptor exponent 14 (16 MiB, what level 22 uses), one raw last block of the records
        ByteBuffer z = ByteBuffer.allocate(4 + 2 + 3 + plain.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        z.putInt(0xFD2FB528).put((byte) 0).put((byte) (14 << 3));
        int header = 1 | (plain.length << 3);
        z.put((byte) header).put((byte) (header >>> 8)).put((byte) (header >>> 16)).put(plain).flip();
        InvalidRecordException e = assertThrows(InvalidRecordException.class, () -> BatchScanner.scan(z, 4, 1, 0));
        assertTrue(e.getMessage().contains(String.valueOf(BatchScanner.MAX_ZSTD_WINDOW)), e.getMessage());
    }
}
