package io.faultline.broker.purgatory;

import java.util.List;
import io.faultline.broker.common.Scheduler;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An operation that waits for a condition (new data for a fetch, the high watermark for an acks=all produce) or
 * a deadline, whichever comes first. {@link #onComplete()} runs exactly once, on whichever thread wins.
 */
public abstract class DelayedOperation {
    private final AtomicBoolean completed = new AtomicBoolean();
    private final ReentrantLock lock = new ReentrantLock();
    final long delayMs;
    volatile List<Object> keys = List.of();
    volatile Scheduler.Cancellable timeout;

    protected DelayedOperation(long delayMs) {
        this.delayMs = delayMs;
    }

    /** Checks the condition; if satisfied calls {@link #forceComplete()} and returns its result. */
    public abstract boolean tryComplete();

    /** Builds and sends the answer, from the current state (satisfied or expired). */
    protected abstract void onComplete();

    /** Called (before onComplete) when the deadline passes first. */
    protected void onExpiration() {
    }

    /** Completes the operation if no one has; returns whether this call did. */
    public final boolean forceComplete() {
        if (!completed.compareAndSet(false, true)) return false;
        Scheduler.Cancellable t = timeout;
        if (t != null) t.cancel();
        onComplete();
        return true;
    }

    public final boolean isCompleted() {
        return completed.get();
    }

    /** tryComplete under the operation's lock so two triggers never evaluate it concurrently. */
    final boolean safeTryComplete() {
        if (isCompleted()) return true;
        lock.lock();
        try {
            return isCompleted() || tryComplete();
        } finally {
            lock.unlock();
        }
    }

    final void expire() {
        lock.lock();
        try {
            if (isCompleted()) return;
            onExpiration();
            forceComplete();
        } finally {
            lock.unlock();
        }
    }
}
