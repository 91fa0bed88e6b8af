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

    @Test
    void decodeMemoryBoundsWhatEachCodecAllocates() throws Exception {
        long overhead = BatchScanner.DECODER_OVERHEAD;
        byte[] records = plainRecords(3, 0);
        assertEquals(0, BatchScanner.decodeMemory(ByteBuffer.wrap(records), 0), "uncompressed: nothing");
        assertEquals(overhead, BatchScanner.decodeMemory(ByteBuffer.wrap(new byte[10]), 1), "gzip: fixed");
        byte[] raw = Snappy.compress(records);
        assertEquals(records.length + raw.length + overhead, BatchScanner.decodeMemory(ByteBuffer.wrap(raw), SNAPPY),
                "raw snappy: the declared block plus the compressed copy");
        ByteBuffer lz4 = MemoryRecords.withRecords(Compression.lz4().build(), new SimpleRecord("v".getBytes())).buffer();
        assertEquals((64 << 10) + overhead, BatchScanner.decodeMemory(lz4.duplicate().position(HEADER).slice(), 3),
                "lz4: the 64 KiB blocks Kafka's producer writes");
        ByteBuffer z = ByteBuffer.allocate(4 + 2 + 3 + records.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        z.putInt(0xFD2FB528).put((byte) 0).put((byte) (13 << 3)); // window 8 MiB
        int header = 1 | (records.length << 3);
        z.put((byte) header).put((byte) (header >>> 8)).put((byte) (header >>> 16)).put(records).flip();
        assertEquals((8 << 20) + overhead, BatchScanner.decodeMemory(z, 4), "zstd: the frame's window");
        byte[] lie = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 0x00, 0x61};
        assertEquals(0, BatchScanner.decodeMemory(ByteBuffer.wrap(lie), SNAPPY), "refused before decoding: nothing");
        assertEquals(0, BatchScanner.decodeMemory(ByteBuffer.wrap(records), 6), "unknown codec: refused");
    }
}
