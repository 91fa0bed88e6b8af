package io.faultline.docker;

import java.nio.charset.StandardCharsets;

/**
 * The last {@code capacity} bytes written to it, however many were written: how a node log is read back into
 * memory without holding all of it (a flooding node writes hundreds of MB). Not thread-safe.
 */
public final class TailBuffer {
    private final byte[] ring;
    private long written;

    public TailBuffer(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("capacity must be positive, got " + capacity);
        this.ring = new byte[capacity];
    }

    public void write(byte[] bytes) {
        write(bytes, 0, bytes.length);
    }

    public void write(byte[] bytes, int offset, int length) {
        if (length >= ring.length) { // only the end of this chunk survives
            written += length - ring.length;
            offset += length - ring.length;
            length = ring.length;
        }
        int at = (int) (written % ring.length);
        int first = Math.min(length, ring.length - at);
        System.arraycopy(bytes, offset, ring, at, first);
        System.arraycopy(bytes, offset + first, ring, 0, length - first);
        written += length;
    }

    /** Bytes written in all, kept or not. */
    public long written() {
        return written;
    }

    /** Whether the start was dropped. */
    public boolean truncated() {
        return written > ring.length;
    }

    /** The kept bytes in order. */
    public byte[] bytes() {
        int kept = (int) Math.min(written, ring.length);
        byte[] out = new byte[kept];
        int start = (int) ((written - kept) % ring.length);
        int first = Math.min(kept, ring.length - start);
        System.arraycopy(ring, start, out, 0, first);
        System.arraycopy(ring, 0, out, first, kept - first);
        return out;
    }

    /**
     * The kept bytes as text; when the start was dropped, from the first whole line on, so no line or character
     * is shown cut at its start.
     */
    public String text() {
        byte[] b = bytes();
        int from = 0;
        if (truncated()) {
            while (from < b.length && b[from] != '\n') from++;
            from = Math.min(b.length, from + 1);
        }
        return new String(b, from, b.length - from, StandardCharsets.UTF_8);
    }
}
