package io.faultline.broker.network;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The broker-wide budget for request bytes (Kafka's queued.max.request.bytes, but on by default): every byte of a
 * request buffer is reserved here before it is allocated and given back when its request has been answered or its
 * connection closed. A network thread that cannot reserve stops reading that connection (back-pressure through
 * TCP) and retries when memory comes back.
 *
 * <p>Small requests get a reserve on top of the capacity: a request whose whole frame fits one first buffer may use
 * up to an eighth more, while every buffer of a larger frame (its first one included) must fit the capacity. So
 * connections that fill the pool with large frames, sent or half-sent, cannot starve well-behaved clients whose
 * requests fit one first buffer (metadata, heartbeats, small produces): the worst case heap is 9/8 of the capacity.
 *
 * <p>This is accounting, not an allocator: buffers are ordinary heap buffers, so a release must happen only when
 * nothing refers to the bytes any more (see {@link Processor}).
 *
 * <p>Thread-safety: all methods are safe from any thread.
 */
public final class MemoryPool {
    /** Default size: 100 MiB, or a quarter of the maximum heap if that is smaller. */
    public static long defaultCapacity() {
        return Math.min(100L << 20, Runtime.getRuntime().maxMemory() / 4);
    }

    private final long capacity;
    private final long reserve;
    private final List<Runnable> onRelease = new CopyOnWriteArrayList<>();
    private long used;
    private long peak;
    private int waiting;

    public MemoryPool(long capacity) {
        if (capacity <= 0) throw new IllegalArgumentException("memory pool capacity must be > 0: " + capacity);
        this.capacity = capacity;
        this.reserve = capacity / 8;
    }

    public long capacity() {
        return capacity;
    }

    public synchronized long used() {
        return used;
    }

    /** The most ever reserved at once (for tests and metrics). */
    public synchronized long peakUsed() {
        return peak;
    }

    /** Whether a reservation was refused since memory last came back (for tests and metrics). */
    synchronized boolean hasWaiters() {
        return waiting > 0;
    }

    /** Called (from the releasing thread) after memory came back while someone was waiting for it. */
    void onRelease(Runnable listener) {
        onRelease.add(listener);
    }

    /**
     * Reserves {@code bytes} if they fit; otherwise records that a caller waits and returns false.
     *
     * @param smallRequest the buffer of a whole frame that fits one first buffer, which may use the reserve
     * @throws IllegalArgumentException for a negative request or one larger than the whole pool (it could never fit)
     */
    public boolean tryReserve(long bytes, boolean smallRequest) {
        if (bytes < 0 || bytes > capacity) {
            throw new IllegalArgumentException("cannot reserve " + bytes + " bytes of a pool of " + capacity);
        }
        synchronized (this) {
            long limit = smallRequest ? saturatedSum(capacity, reserve) : capacity;
            if (bytes <= limit - used) { // no overflow with an unbounded (Long.MAX_VALUE) pool
                used += bytes;
                peak = Math.max(peak, used);
                return true;
            }
            waiting++;
            return false;
        }
    }

    private static long saturatedSum(long a, long b) {
        long s = a + b;
        return s < 0 ? Long.MAX_VALUE : s;
    }

    /** Gives back bytes reserved earlier. */
    public void release(long bytes) {
        boolean wake;
        synchronized (this) {
            if (bytes < 0 || bytes > used) {
                throw new IllegalStateException("releasing " + bytes + " bytes but only " + used + " are reserved");
            }
            used -= bytes;
            wake = waiting > 0 && bytes > 0;
            if (wake) waiting = 0;
        }
        if (wake) onRelease.forEach(Runnable::run);
    }
}
