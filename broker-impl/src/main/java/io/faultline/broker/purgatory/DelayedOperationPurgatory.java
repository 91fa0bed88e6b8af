package io.faultline.broker.purgatory;

import io.faultline.broker.common.FatalErrorHandler;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Delayed operations watched by key (a TopicPartition): whoever changes a key's state calls
 * {@link #checkAndComplete(Object)}; a timer thread expires the rest at their deadline.
 */
public final class DelayedOperationPurgatory<T extends DelayedOperation> implements AutoCloseable {
    private final String name;
    private final Map<Object, Set<T>> watchers = new ConcurrentHashMap<>();
    private final ScheduledThreadPoolExecutor timer;

    public DelayedOperationPurgatory(String name) {
        this.name = name;
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name + "-purgatory-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
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
        op.timeout = timer.schedule(FatalErrorHandler.halting().guard("purgatory-timer", () -> {
            unwatch(op); // first, so no trigger evaluates an operation that is expiring anyway
            op.expire();
        }), op.delayMs, TimeUnit.MILLISECONDS);
        if (op.isCompleted()) op.timeout.cancel(false);
        return false;
    }

    /** Re-evaluates the operations watching {@code key}; returns how many completed. */
    public int checkAndComplete(Object key) {
        Set<T> ops = watchers.get(key);
        if (ops == null) return 0;
        int done = 0;
        for (T op : ops) {
            if (op.isCompleted()) {
                ops.remove(op);
            } else if (op.safeTryComplete()) {
                ops.remove(op);
                done++;
            }
        }
        return done;
    }

    public int watched() {
        return watchers.values().stream().mapToInt(Set::size).sum();
    }

    private void unwatch(T op) {
        for (Object k : op.keys) {
            Set<T> ops = watchers.get(k);
            // Empty sets stay: removing them races with a concurrent watch (at most one set per partition).
            if (ops != null) ops.remove(op);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    @Override
    public String toString() {
        return "purgatory " + name;
    }
}
