package io.faultline.broker.storage;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.utils.internals.BufferSupplier;

/**
 * Reads every record of one v2 batch from a client, decompressing if needed, and checks that the records parse
 * exactly: offset deltas 0..n-1, as many records as the header says, every length inside its record, no trailing
 * bytes. No record is materialized: keys, values and headers are skipped, so memory stays bounded whatever the
 * batch declares, and the decompressed size is capped at {@link #MAX_DECOMPRESSED_BYTES} (a zip bomb costs CPU for
 * that many bytes, no more).
 *
 * <p>Error mapping: an undefined codec, records that do not add up, or a zstd window over {@link #MAX_ZSTD_WINDOW}
 * are INVALID_RECORD (the batch is well-formed and its CRC matched, but it is not a batch this broker accepts); compressed bytes that the codec cannot read are CORRUPT_MESSAGE;
 * too much decompressed data is MESSAGE_TOO_LARGE.
 *
 * <p>Thread-safety: stateless.
 */
final class BatchScanner {
    /** Upper bound on the decompressed records of one batch. */
    static final long MAX_DECOMPRESSED_BYTES = 64L << 20;
    /** Highest codec id Kafka defines (zstd). */
    static final int MAX_CODEC_ID = 4;
    private static final int SNAPPY_CODEC_ID = 2;
    /** Header of xerial's framed snappy stream, which Kafka's producer writes. */
    private static final byte[] SNAPPY_MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
    private static final int SNAPPY_HEADER_SIZE = 16;
    private static final int ZSTD_CODEC_ID = 4;
    /**
     * Largest zstd window accepted (8 MiB, window log 23: what compression level 19 uses). The decoder allocates the
     * window a frame declares, natively and before reading any data, up to 128 MiB by default.
     */
    static final long MAX_ZSTD_WINDOW = 8L << 20;
    private static final int ZSTD_MAGIC = 0xFD2FB528;

    /** What the scan learned: the largest record timestamp and whether every record has a key. */
    record Summary(long maxTimestamp, boolean allKeyed) {
    }

    private BatchScanner() {
    }

    /**
     * Scans the records area of a batch.
     *
     * @param records        the bytes after the 61-byte header (position..limit), not modified
     * @param codec          the attributes' codec bits
     * @param count          the header's record count (already checked to be positive and to match the offsets)
     * @param baseTimestamp  the header's base timestamp
     */
    static Summary scan(ByteBuffer records, int codec, int count, long baseTimestamp) {
        if (codec < 0 || codec > MAX_CODEC_ID) {
            throw new InvalidRecordException("Unknown compression type id: " + codec);
        }
        if (codec == SNAPPY_CODEC_ID) checkSnappy(records.duplicate());
        if (codec == ZSTD_CODEC_ID) checkZstdWindows(records.duplicate());
        InputStream raw;
        try {
            raw = codec == 0 ? new BufferStream(records.duplicate())
                    : Compression.of(CompressionType.forId(codec)).build()
                    .wrapForInput(records.duplicate(), (byte) 2, BufferSupplier.NO_CACHING);
        } catch (RuntimeException e) {
            throw new CorruptRecordException("cannot read the " + CompressionType.forId(codec).name
                    + " data of the batch: " + e.getMessage());
        }
        try (Reader in = new Reader(raw)) {
            return readAll(in, count, baseTimestamp);
        } catch (InvalidRecordException | RecordTooLargeException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            if (codec == 0) throw new InvalidRecordException("records do not parse: " + e);
            throw new CorruptRecordException("compressed records do not decompress and parse: " + e);
        }
    }

    private static Summary readAll(Reader in, int count, long baseTimestamp) throws IOException {
        long maxTimestamp = RecordBatchAdapter.NO_TIMESTAMP;
        boolean allKeyed = true;
        for (int i = 0; i < count; i++) {
            int length = in.varint();
            if (length < 6) throw new InvalidRecordException("record " + i + " has length " + length);
            long start = in.consumed;
            in.readByte(); // attributes: unused in v2
            long timestamp = baseTimestamp + in.varlong();
            if (timestamp > maxTimestamp) maxTimestamp = timestamp;
            int offsetDelta = in.varint();
            if (offsetDelta != i) {
                throw new InvalidRecordException("record " + i + " has offset delta " + offsetDelta);
            }
            int keyLength = in.varint();
            if (keyLength < 0) allKeyed = false;
            in.skipField(keyLength, start + length, "key");
            in.skipField(in.varint(), start + length, "value");
            int headers = in.varint();
            if (headers < 0) throw new InvalidRecordException("record " + i + " has " + headers + " headers");
            for (int h = 0; h < headers; h++) {
                int keySize = in.varint();
                if (keySize < 0) throw new InvalidRecordException("record " + i + " has a null header key");
                in.skipField(keySize, start + length, "header key");
                in.skipField(in.varint(), start + length, "header value");
            }
            if (in.consumed - start != length) {
                throw new InvalidRecordException("record " + i + " declares " + length + " bytes but holds "
                        + (in.consumed - start));
            }
        }
        if (in.read() >= 0) throw new InvalidRecordException("bytes after the last of " + count + " records");
        return new Summary(maxTimestamp, allKeyed);
    }

    /**
     * xerial's SnappyInputStream allocates each chunk's declared length before reading it, and falls back to one raw
     * snappy block (what librdkafka and sarama write, and Kafka accepts) when the framed-stream header is missing,
     * allocating the length that block declares. Check the declared lengths first, so that none exceeds
     * {@link #MAX_DECOMPRESSED_BYTES} and no chunk claims more than the bytes actually sent.
     */
    private static long checkSnappy(ByteBuffer b) {
        if (!hasSnappyMagic(b.duplicate())) {
            long uncompressed = rawVarint(b);
            if (uncompressed > MAX_DECOMPRESSED_BYTES) {
                throw new RecordTooLargeException("raw snappy block decompresses to " + uncompressed + " bytes, more"
                        + " than the limit of " + MAX_DECOMPRESSED_BYTES);
            }
            return uncompressed;
        }
        if (b.remaining() < SNAPPY_HEADER_SIZE) throw new CorruptRecordException("snappy data without its header");
        b.position(b.position() + SNAPPY_HEADER_SIZE); // magic, version, compatible version
        long largest = 0;
        while (b.hasRemaining()) {
            if (b.remaining() < 4) throw new CorruptRecordException("truncated snappy chunk header");
            int chunk = b.getInt();
            if (chunk < 0 || chunk > b.remaining()) {
                throw new CorruptRecordException("snappy chunk of " + chunk + " bytes, " + b.remaining() + " left");
            }
            long uncompressed = rawVarint(b.duplicate());
            if (uncompressed > MAX_DECOMPRESSED_BYTES) {
                throw new RecordTooLargeException("snappy chunk decompresses to " + uncompressed + " bytes");
            }
            largest = Math.max(largest, uncompressed);
            b.position(b.position() + chunk);
        }
        return largest;
    }

    /**
     * Walks the zstd frames (headers and block sizes, without decompressing) and refuses any whose window, or for a
     * single-segment frame whose content size, exceeds {@link #MAX_ZSTD_WINDOW}. Skippable frames are stepped over.
     */
    private static long checkZstdWindows(ByteBuffer in) {
        ByteBuffer b = in.slice().order(java.nio.ByteOrder.LITTLE_ENDIAN);
        if (!b.hasRemaining()) throw new CorruptRecordException("empty zstd data");
        long largest = 0;
        while (b.hasRemaining()) {
            if (b.remaining() < 4) throw new CorruptRecordException("truncated zstd frame");
            int magic = b.getInt();
            if ((magic & 0xFFFFFFF0) == 0x184D2A50) { // skippable frame: 4-byte size, then that many bytes
                if (b.remaining() < 4) throw new CorruptRecordException("truncated zstd skippable frame");
                long size = b.getInt() & 0xFFFFFFFFL;
                if (size > b.remaining()) throw new CorruptRecordException("zstd skippable frame overruns");
                b.position(b.position() + (int) size);
                continue;
            }
            if (magic != ZSTD_MAGIC) throw new CorruptRecordException("not zstd data");
            if (!b.hasRemaining()) throw new CorruptRecordException("truncated zstd frame header");
            int descriptor = b.get() & 0xff;
            int fcsFlag = descriptor >>> 6;
            boolean singleSegment = (descriptor & 0x20) != 0;
            boolean checksum = (descriptor & 0x04) != 0;
            int dictFlag = descriptor & 0x03;
            long window = -1;
            if (!singleSegment) {
                if (!b.hasRemaining()) throw new CorruptRecordException("truncated zstd frame header");
                int wd = b.get() & 0xff;
                long base = 1L << (10 + (wd >>> 3));
                window = base + (base / 8) * (wd & 7);
            }
            int dictBytes = new int[] {0, 1, 2, 4}[dictFlag];
            int fcsBytes = fcsFlag == 0 ? (singleSegment ? 1 : 0) : new int[] {0, 2, 4, 8}[fcsFlag];
            if (b.remaining() < dictBytes + fcsBytes) throw new CorruptRecordException("truncated zstd frame header");
            b.position(b.position() + dictBytes);
            long contentSize = -1;
            switch (fcsBytes) {
                case 1 -> contentSize = b.get() & 0xff;
                case 2 -> contentSize = (b.getShort() & 0xffff) + 256;
                case 4 -> contentSize = b.getInt() & 0xFFFFFFFFL;
                case 8 -> contentSize = b.getLong();
                default -> { }
            }
            long needed = singleSegment ? contentSize : window;
            if (needed < 0 || needed > MAX_ZSTD_WINDOW) {
                // Not corrupt (that is retriable: the producer would retry until its delivery timeout) but refused:
                // zstd levels 20-22 use larger windows than this broker decodes.
                throw new InvalidRecordException("zstd frame needs a window of " + needed + " bytes; this broker"
                        + " accepts at most " + MAX_ZSTD_WINDOW + " (zstd compression levels up to 19)");
            }
            largest = Math.max(largest, needed);
            boolean last = false;
            while (!last) {
                if (b.remaining() < 3) throw new CorruptRecordException("truncated zstd block header");
                int header = (b.get() & 0xff) | (b.get() & 0xff) << 8 | (b.get() & 0xff) << 16;
                last = (header & 1) != 0;
                int type = (header >>> 1) & 3;
                int size = header >>> 3;
                if (type == 3) throw new CorruptRecordException("reserved zstd block type");
                int stored = type == 1 ? 1 : size; // an RLE block stores one byte repeated size times
                if (stored > b.remaining()) throw new CorruptRecordException("zstd block overruns the batch");
                b.position(b.position() + stored);
            }
            if (checksum) {
                if (b.remaining() < 4) throw new CorruptRecordException("truncated zstd checksum");
                b.position(b.position() + 4);
            }
        }
        return largest;
    }

    /** Memory a codec's decoder needs besides its window or chunk (stream buffers, zstd's block buffer...). */
    static final long DECODER_OVERHEAD = 256 * 1024;
    /** lz4 block sizes by the frame descriptor's block-maximum-size id (4..7). */
    private static final long[] LZ4_BLOCK_SIZES = {64 << 10, 256 << 10, 1 << 20, 4 << 20};

    /**
     * An upper bound of the memory the decoder allocates while {@link #scan} reads these records: the largest snappy
     * chunk (or raw block) plus the compressed bytes it copies, the zstd window, the lz4 block size, plus
     * {@link #DECODER_OVERHEAD}; 0 for uncompressed records. Only headers are read. Data that the checks of
     * {@link #scan} refuse before decompressing gets 0: nothing is allocated for it.
     */
    static long decodeMemory(ByteBuffer records, int codec) {
        try {
            return switch (codec) {
                case 1 -> DECODER_OVERHEAD; // gzip: inflater state and stream buffers, fixed
                case SNAPPY_CODEC_ID -> checkSnappy(records.duplicate()) + records.remaining() + DECODER_OVERHEAD;
                case 3 -> lz4BlockSize(records.duplicate()) + DECODER_OVERHEAD;
                case ZSTD_CODEC_ID -> checkZstdWindows(records.duplicate()) + DECODER_OVERHEAD;
                default -> 0;
            };
        } catch (RuntimeException refusedBeforeDecoding) {
            return 0;
        }
    }

    /** The block maximum size of an lz4 frame (byte 5 of the frame: BD); the largest when unreadable. */
    private static long lz4BlockSize(ByteBuffer b) {
        if (b.remaining() < 6) return LZ4_BLOCK_SIZES[3];
        int id = (b.get(b.position() + 5) >>> 4) & 7;
        return id >= 4 ? LZ4_BLOCK_SIZES[id - 4] : LZ4_BLOCK_SIZES[3];
    }

    private static boolean hasSnappyMagic(ByteBuffer b) {
        if (b.remaining() < SNAPPY_MAGIC.length) return false;
        for (byte m : SNAPPY_MAGIC) {
            if (b.get() != m) return false;
        }
        return true;
    }

    /** Snappy's block preamble: the uncompressed length as an unsigned little-endian base-128 varint. */
    private static long rawVarint(ByteBuffer b) {
        long v = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (!b.hasRemaining()) throw new CorruptRecordException("truncated snappy block");
            int x = b.get() & 0xff;
            v |= (long) (x & 0x7f) << shift;
            if (x < 0x80) return v;
        }
        throw new CorruptRecordException("malformed snappy block length");
    }

    /** Counting reader over the (decompressed) records, enforcing the decompressed-size cap. */
    private static final class Reader implements AutoCloseable {
        private final InputStream in;
        private final byte[] skipBuf = new byte[8192];
        long consumed;

        Reader(InputStream in) {
            this.in = in;
        }

        int read() throws IOException {
            int b = in.read();
            if (b >= 0) count(1);
            return b;
        }

        byte readByte() throws IOException {
            int b = read();
            if (b < 0) throw new EOFException("records end early");
            return (byte) b;
        }

        private void count(long n) {
            consumed += n;
            if (consumed > MAX_DECOMPRESSED_BYTES) {
                throw new RecordTooLargeException("batch decompresses to more than " + MAX_DECOMPRESSED_BYTES
                        + " bytes");
            }
        }

        int varint() throws IOException {
            int raw = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                int b = readByte() & 0xff;
                raw |= (b & 0x7f) << shift;
                if (b < 0x80) return (raw >>> 1) ^ -(raw & 1);
            }
            throw new InvalidRecordException("varint longer than 5 bytes");
        }

        long varlong() throws IOException {
            long raw = 0;
            for (int shift = 0; shift < 70; shift += 7) {
                long b = readByte() & 0xff;
                raw |= (b & 0x7f) << shift;
                if (b < 0x80) return (raw >>> 1) ^ -(raw & 1);
            }
            throw new InvalidRecordException("varlong longer than 10 bytes");
        }

        /** Skips a length-prefixed field (-1 = null) that must end inside its record. */
        void skipField(int length, long recordEnd, String what) throws IOException {
            if (length < -1 || consumed + length > recordEnd) {
                throw new InvalidRecordException(what + " of " + length + " bytes overruns its record");
            }
            long left = length;
            while (left > 0) {
                int n = in.read(skipBuf, 0, (int) Math.min(skipBuf.length, left));
                if (n < 0) throw new EOFException("records end early");
                count(n);
                left -= n;
            }
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /** An InputStream over a buffer, for uncompressed records. */
    private static final class BufferStream extends InputStream {
        private final ByteBuffer b;

        BufferStream(ByteBuffer b) {
            this.b = b;
        }

        @Override
        public int read() {
            return b.hasRemaining() ? b.get() & 0xff : -1;
        }

        @Override
        public int read(byte[] dst, int off, int len) {
            if (!b.hasRemaining()) return -1;
            int n = Math.min(len, b.remaining());
            b.get(dst, off, n);
            return n;
        }
    }
}
