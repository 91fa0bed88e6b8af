package io.faultline.broker.common;

import java.util.PriorityQueue;

/**
 * A clock and scheduler that move only when a test says so. {@link #advance(long)} walks the monotonic clock (and
 * the wall clock with it) to each due task's deadline in turn and runs the task on the calling thread, so periodic
 * work runs as often as it would have in real time, deterministically. {@link #skewWallClock(long)} moves the wall
 * clock alone, backward or forward, the way a skewed node's clock jumps.
 *
 * <p>Thread-safety: clock reads and scheduling are safe from any thread; tasks run on the thread that advances.
 */
public final class ManualTime implements Time, Scheduler {
    private record Task(String name, Runnable body, long periodNanos, long seq) {
    }

    private record Due(long atNanos, Task task) {
    }

    private final PriorityQueue<Due> queue = new PriorityQueue<>((a, b) -> a.atNanos != b.atNanos
            ? Long.compare(a.atNanos, b.atNanos) : Long.compare(a.task.seq, b.task.seq));
    private final java.util.Set<Task> cancelled = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private long nanos = 1_000_000_000L;
    private long wallMs;
    private long seq;

    public ManualTime() {
        this(1_700_000_000_000L);
    }

    public ManualTime(long wallStartMs) {
        this.wallMs = wallStartMs;
    }

    @Override
    public synchronized long milliseconds() {
        return wallMs;
    }

    @Override
    public synchronized long nanoseconds() {
        return nanos;
    }

    @Override
    public Scheduler scheduler() {
        return this;
    }

    @Override
    public synchronized Cancellable schedule(String name, Runnable task, long delayMs) {
        return add(new Task(name, task, 0, seq++), delayMs);
    }

    @Override
    public synchronized Cancellable scheduleWithFixedDelay(String name, Runnable task, long initialDelayMs,
                                                           long periodMs) {
        if (periodMs <= 0) throw new IllegalArgumentException(name + ": period must be positive, got " + periodMs);
        return add(new Task(name, task, periodMs * 1_000_000L, seq++), initialDelayMs);
    }

    private Cancellable add(Task t, long delayMs) {
        queue.add(new Due(nanos + Math.max(0, delayMs) * 1_000_000L, t));
        return () -> cancelled.add(t);
    }

    /** Moves both clocks forward by {@code ms}, running every task that falls due on the way, in deadline order. */
    public void advance(long ms) {
        if (ms < 0) throw new IllegalArgumentException("monotonic time cannot go back; use skewWallClock");
        long target;
        synchronized (this) {
            target = nanos + ms * 1_000_000L;
        }
        while (true) {
            Due next;
            synchronized (this) {
                next = queue.peek();
                if (next == null || next.atNanos > target) {
                    moveTo(target);
                    return;
                }
                queue.poll();
                moveTo(Math.max(nanos, next.atNanos));
            }
            if (cancelled.contains(next.task)) continue;
            next.task.body.run();
            if (next.task.periodNanos > 0 && !cancelled.contains(next.task)) {
                synchronized (this) {
                    queue.add(new Due(nanos + next.task.periodNanos, next.task));
                }
            }
        }
    }

    /** Runs the tasks due now (delay zero) without moving the clocks. */
    public void runDue() {
        advance(0);
    }

    private void moveTo(long newNanos) {
        wallMs += (newNanos - nanos) / 1_000_000L;
        nanos = newNanos;
    }

    /** Moves the wall clock alone (negative = backward), as clock skew does; deadlines do not move. */
    public synchronized void skewWallClock(long ms) {
        wallMs += ms;
    }

    /** Sets the wall clock alone. */
    public synchronized void setWallClock(long ms) {
        wallMs = ms;
    }

    /** Tasks still waiting (cancelled ones excluded). */
    public synchronized int pendingTasks() {
        return (int) queue.stream().filter(d -> !cancelled.contains(d.task)).count();
    }
}
