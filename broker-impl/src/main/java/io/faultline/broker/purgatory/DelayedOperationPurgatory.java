package io.faultline.broker.purgatory;

import io.faultline.broker.common.Scheduler;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Delayed operations watched by key (a TopicPartition): whoever changes a key's state calls
 * {@link #checkAndComplete(Object)}; the injected scheduler expires the rest at their deadline.
 */
public final class DelayedOperationPurgatory<T extends DelayedOperation> implements AutoCloseable {
    private final String name;
    private final Map<Object, Set<T>> watchers = new ConcurrentHashMap<>();
    private final Scheduler scheduler;
    private final Set<T> pending = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public DelayedOperationPurgatory(String name, Scheduler scheduler) {
        this.name = name;
        this.scheduler = scheduler;
    }

    /**
     * Completes the operation now if it can; otherwise watches it under {@code keys} until a trigger or its
     * deadline. Returns true if it completed immediately.
     */
    public boolean tryCompleteElseWatch(T op, List<?> keys) {
        if (op.safeTryComplete()) return true;
        op.keys = List.copyOf(keys);
        for (Object k : keys) watchers.computeIfAbsent(k, x -> ConcurrentHashMap.newKeySet()).add(op);
        // Re-check: the condition may have become true between the first check and the watch.
        if (op.safeTryComplete()) {
            unwatch(op);
            return true;
        }
        if (closed) return false; // shutting down: the connection closes anyway
        pending.add(op);
        op.timeout = scheduler.schedule(name + "-expiry", () -> {
            unwatch(op); // first, so no trigger evaluates an operation that is expiring anyway
            op.expire();
        }, op.delayMs);
        if (op.isCompleted()) {
            op.timeout.cancel();
            unwatch(op);
        }
        return false;
    }

    /** Re-evaluates the operations watching {@code key}; returns how many completed. */
    public int checkAndComplete(Object key) {
        Set<T> ops = watchers.get(key);
        if (ops == null) return 0;
        int done = 0;
        for (T op : ops) {
            if (op.isCompleted()) {
                unwatch(op);
            } else if (op.safeTryComplete()) {
                // Off every key, not just this one: an operation also watching a key that never changes (a follower
                // fetch naming an idle partition) would otherwise stay reachable there with its whole answer.
                unwatch(op);
                done++;
            }
        }
        return done;
    }

    public int watched() {
        return watchers.values().stream().mapToInt(Set::size).sum();
    }

    private void unwatch(T op) {
        pending.remove(op);
        for (Object k : op.keys) {
            Set<T> ops = watchers.get(k);
            // Empty sets stay: removing them races with a concurrent watch (at most one set per partition).
            if (ops != null) ops.remove(op);
        }
    }

    @Override
    public void close() {
        closed = true;
        for (T op : pending) {
            Scheduler.Cancellable t = op.timeout;
            if (t != null) t.cancel();
        }
        pending.clear();
    }

    @Override
    public String toString() {
        return "purgatory " + name;
    }
}
