package io.faultline.broker.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Sparse time index of one segment, in Kafka's .timeindex format: 12-byte entries (timestamp int64, offset -
 * baseOffset int32). Timestamps strictly increase; an entry's offset is the last offset of the batch that carried
 * the largest timestamp so far. Written lazily like {@link OffsetIndex}.
 *
 * <p>Thread-safety: one writer, concurrent lookups (volatile count published after the arrays).
 */
final class TimeIndex {
    static final int ENTRY_SIZE = 12;

    record Entry(long timestamp, long offset) {
    }

    private final long baseOffset;
    private final int maxEntries;
    private final IndexFile file;
    private volatile long[] timestamps = new long[16];
    private volatile int[] offsets = new int[16];
    private volatile int count;

    TimeIndex(Path file, long baseOffset, int maxIndexBytes) {
        this.file = new IndexFile(file, ENTRY_SIZE);
        this.baseOffset = baseOffset;
        this.maxEntries = Math.max(1, maxIndexBytes / ENTRY_SIZE);
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
        return new Entry(timestamps[i], baseOffset + offsets[i]);
    }

    /** Last entry, or (NO_TIMESTAMP, baseOffset) when empty. */
    Entry lastEntry() {
        int c = count;
        return c == 0 ? new Entry(RecordBatchAdapter.NO_TIMESTAMP, baseOffset) : entry(c - 1);
    }

    /**
     * Appends (timestamp, offset) if timestamp is newer than the last entry. {@code skipFullCheck} lets the final
     * entry written when the segment becomes inactive go in even if the index is full, as Kafka does.
     *
     * @throws IllegalStateException if offset goes backward
     */
    void maybeAppend(long timestamp, long offset, boolean skipFullCheck) {
        int c = count;
        if (timestamp < 0) return;
        if (c > 0) {
            Entry last = entry(c - 1);
            if (offset < last.offset()) {
                throw new IllegalStateException("time index offset " + offset + " < last " + last.offset() + " in " + file);
            }
            if (timestamp <= last.timestamp()) return;
        }
        if (!skipFullCheck && c >= maxEntries) throw new IllegalStateException("time index full: " + file);
        long[] ts = timestamps;
        int[] offs = offsets;
        if (c == ts.length) {
            ts = Arrays.copyOf(ts, ts.length * 2);
            offs = Arrays.copyOf(offs, offs.length * 2);
            timestamps = ts;
            offsets = offs;
        }
        ts[c] = timestamp;
        offs[c] = (int) (offset - baseOffset);
        count = c + 1;
    }

    /** Largest entry with timestamp &lt;= target, or (NO_TIMESTAMP, baseOffset). */
    Entry lookup(long target) {
        int c = count;
        long[] ts = timestamps;
        int[] offs = offsets;
        int lo = 0;
        int hi = c - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (ts[mid] <= target) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found < 0 ? new Entry(RecordBatchAdapter.NO_TIMESTAMP, baseOffset) : new Entry(ts[found], baseOffset + offs[found]);
    }

    /** Removes entries whose offset is &gt;= target. */
    void truncateTo(long target) {
        int c = count;
        while (c > 0 && baseOffset + offsets[c - 1] >= target) c--;
        count = c;
        file.truncateTo(c);
    }

    void reset() {
        count = 0;
        file.reset();
    }

    void flush(boolean fsync) {
        file.flush(count, (buf, i) -> buf.putLong(timestamps[i]).putInt(offsets[i]), fsync);
    }

    /** Loads and sanity-checks the file; false means rebuild. Entries may allow one over max (the final entry). */
    boolean load(long nextOffset) {
        ByteBuffer buf = file.read();
        if (buf == null || buf.remaining() / ENTRY_SIZE > maxEntries + 1) return false;
        int n = buf.remaining() / ENTRY_SIZE;
        long[] ts = new long[Math.max(16, n)];
        int[] offs = new int[Math.max(16, n)];
        long prevTs = -1;
        long prevOff = -1;
        for (int i = 0; i < n; i++) {
            long t = buf.getLong();
            int rel = buf.getInt();
            if (t <= prevTs || rel < prevOff || rel < 0 || baseOffset + rel >= nextOffset) return false;
            ts[i] = t;
            offs[i] = rel;
            prevTs = t;
            prevOff = rel;
        }
        timestamps = ts;
        offsets = offs;
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
