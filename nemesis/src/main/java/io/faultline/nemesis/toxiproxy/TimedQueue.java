package io.faultline.nemesis.toxiproxy;

import java.util.ArrayDeque;
import java.util.concurrent.Future;

/**
 * Chunks (and an end of stream) released to an {@link Stage.Out} at given times, strictly in the order queued:
 * the shared core of the latency, bandwidth and slicer toxics.
 */
final class TimedQueue {
    private record Item(long dueNanos, byte[] data) {} // data null: end of stream

    private final Stage.Out out;
    private final ArrayDeque<Item> items = new ArrayDeque<>();
    private Future<?> timer;
    private long lastDue = Long.MIN_VALUE;

    TimedQueue(Stage.Out out) {
        this.out = out;
    }

    /** Queues a chunk due at {@code dueNanos}, or later when an earlier chunk is due later (order is kept). */
    void add(byte[] data, long dueNanos) {
        long due = Math.max(dueNanos, lastDue);
        lastDue = due;
        items.add(new Item(due, data));
        if (items.size() == 1) arm();
    }

    void addEof() {
        add(null, out.nanoTime());
    }

    /** The due time of the last item queued (never earlier than now). */
    long lastDue() {
        return Math.max(lastDue, out.nanoTime());
    }

    /** Releases everything now, in order. */
    void flush() {
        if (timer != null) timer.cancel(false);
        timer = null;
        while (!items.isEmpty()) emit(items.poll());
    }

    private void arm() {
        Item head = items.peek();
        if (head == null) return;
        timer = out.schedule(this::release, Math.max(0, head.dueNanos() - out.nanoTime()));
    }

    private void release() {
        timer = null;
        long now = out.nanoTime();
        while (!items.isEmpty() && items.peek().dueNanos() <= now) emit(items.poll());
        arm();
    }

    private void emit(Item item) {
        if (item.data() == null) out.eof();
        else out.data(item.data());
    }
}
