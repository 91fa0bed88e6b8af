package io.faultline.broker.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Sparse offset index of one segment, in Kafka's .index format: 8-byte entries (offset - baseOffset as int32,
 * byte position of the batch in the .log as int32), both strictly increasing. An entry maps the LAST offset of a
 * batch to the position where that batch starts, as Kafka writes it (DumpLogSegments checks exactly that).
 *
 * <p>Entries live in memory; the file is written lazily on {@link #flush()} (and on close/roll), because the index
 * of an unflushed tail is rebuilt by recovery anyway. The file therefore always has exactly entries*8 bytes.
 *
 * <p>Thread-safety: one writer; {@link #lookup} may run concurrently with {@link #append} (entries are published
 * through a volatile count after the arrays are written).
 */
final class OffsetIndex {
    static final int ENTRY_SIZE = 8;

    record Entry(long offset, int position) {
    }

    private final long baseOffset;
    private final int maxEntries;
    private final IndexFile file;
    private volatile long[] entries = new long[16]; // (relativeOffset << 32) | position
    private volatile int count;

    OffsetIndex(Path file, long baseOffset, int maxIndexBytes) {
        this.file = new IndexFile(file, ENTRY_SIZE);
        this.baseOffset = baseOffset;
        this.maxEntries = Math.max(1, maxIndexBytes / ENTRY_SIZE);
    }

    long baseOffset() {
        return baseOffset;
    }

    Path file() {
        return file.path();
    }

    int entries() {
        return count;
    }

    boolean isFull() {
        return count >= maxEntries;
    }

    Entry entry(int i) {
        long e = entries[i];
        return new Entry(baseOffset + (int) (e >>> 32), (int) e);
    }

    Entry lastEntry() {
        int c = count;
        return c == 0 ? new Entry(baseOffset, 0) : entry(c - 1);
    }

    /** @throws IllegalStateException if offset or position does not increase (an index invariant) */
    void append(long offset, int position) {
        int c = count;
        long rel = offset - baseOffset;
        if (rel < 0 || rel > Integer.MAX_VALUE) throw new IllegalStateException("offset " + offset + " out of range of segment " + baseOffset);
        if (c > 0) {
            Entry last = entry(c - 1);
            if (offset <= last.offset() || position <= last.position()) {
                throw new IllegalStateException("non-monotonic offset index entry (" + offset + "," + position
                        + ") after " + last + " in " + file);
            }
        }
        if (c >= maxEntries) throw new IllegalStateException("offset index full: " + file);
        long[] arr = entries;
        if (c == arr.length) {
            arr = Arrays.copyOf(arr, Math.min(maxEntries, arr.length * 2));
            entries = arr;
        }
        arr[c] = (rel << 32) | (position & 0xFFFFFFFFL);
        count = c + 1;
    }

    /** Largest entry with offset &lt;= target, or (baseOffset, 0). */
    Entry lookup(long target) {
        int c = count;
        long[] arr = entries;
        long rel = target - baseOffset;
        if (c == 0 || rel < 0) return new Entry(baseOffset, 0);
        int lo = 0;
        int hi = c - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long midRel = arr[mid] >>> 32;
            if (midRel <= rel) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found < 0 ? new Entry(baseOffset, 0) : new Entry(baseOffset + (arr[found] >>> 32), (int) arr[found]);
    }

    /** Removes entries with offset &gt;= target. */
    void truncateTo(long target) {
        int c = count;
        while (c > 0 && entry(c - 1).offset() >= target) c--;
        count = c;
        file.truncateTo(c);
    }

    void reset() {
        count = 0;
        file.reset();
    }

    /** Writes unpersisted entries; fsyncs when asked. */
    void flush(boolean fsync) {
        file.flush(count, (buf, i) -> buf.putLong(entries[i]), fsync);
    }

    /**
     * Loads the file and checks it against the segment (Kafka's sanity check, stricter): whole entries, strictly
     * increasing, positions inside the log, offsets below {@code nextOffset}. Returns false if it must be rebuilt.
     */
    boolean load(long logSize, long nextOffset) {
        count = 0;
        file.loaded(0);
        ByteBuffer buf = file.read();
        if (buf == null || buf.remaining() / ENTRY_SIZE > maxEntries) return false;
        int n = buf.remaining() / ENTRY_SIZE;
        long prevRel = -1;
        long prevPos = -1;
        long[] arr = new long[Math.max(16, n)];
        for (int i = 0; i < n; i++) {
            long e = buf.getLong();
            long rel = e >>> 32;
            long pos = e & 0xFFFFFFFFL;
            if (rel <= prevRel || pos <= prevPos || pos >= logSize || baseOffset + rel >= nextOffset) return false;
            arr[i] = e;
            prevRel = rel;
            prevPos = pos;
        }
        entries = arr;
        count = n;
        file.loaded(n);
        return true;
    }

    void renameTo(Path target) throws IOException {
        file.renameTo(target);
    }

    void deleteFile() throws IOException {
        file.delete();
    }
}
