package io.faultline.lazyfs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one file (one backing inode) held at its last fsync, kept cheaply: the backing file is written through
 * at once (so a process crash keeps everything, like a page cache), and this remembers only the length at the
 * last fsync plus the previous bytes of every range of that durable image overwritten or cut off since.
 * Appends past the durable length cost nothing to remember: forgetting them is a truncate. Kafka-like logs
 * append, so the saved bytes stay small (index pages rewritten after a flush, checkpoint files replaced).
 *
 * <p>Invariants: saved ranges never overlap and all lie inside [0, durableLength). Callers serialise access
 * to one file through this object's monitor ({@link #lock()}).
 */
final class FileState {
    /** Reads the current (still durable) bytes of a range from the backing file. */
    interface Reader {
        byte[] read(long offset, int length);
    }

    /** Writes bytes back into the backing file and sets its length. */
    interface Restorer {
        void write(long offset, byte[] bytes);

        void truncate(long length);
    }

    private long durableLength;
    private final TreeMap<Long, byte[]> saved = new TreeMap<>();

    FileState(long durableLength) {
        if (durableLength < 0) throw new IllegalArgumentException("negative length " + durableLength);
        this.durableLength = durableLength;
    }

    Object lock() {
        return this;
    }

    synchronized long durableLength() {
        return durableLength;
    }

    synchronized long savedBytes() {
        return saved.values().stream().mapToLong(b -> b.length).sum();
    }

    /** Before bytes [offset, offset+length) change: keep the durable bytes of that range not kept yet. */
    synchronized void beforeChange(long offset, long length, Reader reader) {
        long end = Math.min(durableLength, offset + length);
        long pos = Math.max(0, offset);
        while (pos < end) {
            Map.Entry<Long, byte[]> at = saved.floorEntry(pos);
            if (at != null && at.getKey() + at.getValue().length > pos) {
                pos = at.getKey() + at.getValue().length; // already kept
                continue;
            }
            Long next = saved.higherKey(pos);
            long gapEnd = next == null ? end : Math.min(end, next);
            int n = (int) Math.min(gapEnd - pos, 1 << 20);
            byte[] old = reader.read(pos, n);
            if (old.length != n) throw new IllegalStateException("short read of durable bytes at " + pos);
            saved.put(pos, old);
            pos += n;
        }
    }

    /** Before the file is cut to newLength: keep the durable bytes beyond it. */
    synchronized void beforeTruncate(long newLength, Reader reader) {
        if (newLength < durableLength) beforeChange(newLength, durableLength - newLength, reader);
    }

    /** An fsync made the file's current content durable. */
    synchronized void synced(long currentLength) {
        durableLength = currentLength;
        saved.clear();
    }

    /** Puts the durable image back into the backing file. */
    synchronized void restore(Restorer restorer) {
        List<Map.Entry<Long, byte[]>> ranges = new ArrayList<>(saved.entrySet());
        for (var r : ranges) restorer.write(r.getKey(), r.getValue());
        restorer.truncate(durableLength);
        saved.clear();
    }
}
