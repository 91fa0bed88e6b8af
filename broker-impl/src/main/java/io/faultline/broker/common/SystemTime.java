package io.faultline.broker.common;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM's clocks. Its scheduler is one pool of daemon threads shared by every broker in the JVM; owners cancel
 * their own tasks on close, so the pool itself never needs shutting down.
 */
final class SystemTime implements Time, Scheduler {
    static final SystemTime INSTANCE = new SystemTime();
    private static final Logger log = LoggerFactory.getLogger(SystemTime.class);
    /** Log maintenance can take a while (fsync, deletes): enough threads that deadlines are not held up by it. */
    private static final int THREADS = 4;

    private volatile ScheduledThreadPoolExecutor pool;

    private SystemTime() {
    }

    @Override
    public long milliseconds() {
        return System.currentTimeMillis();
    }

    @Override
    public long nanoseconds() {
        return System.nanoTime();
    }

    @Override
    public Scheduler scheduler() {
        return this;
    }

    @Override
    public Cancellable schedule(String name, Runnable task, long delayMs) {
        ScheduledFuture<?> f = pool().schedule(guarded(name, task), Math.max(0, delayMs), TimeUnit.MILLISECONDS);
        return () -> f.cancel(false);
    }

    @Override
    public Cancellable scheduleWithFixedDelay(String name, Runnable task, long initialDelayMs, long periodMs) {
        if (periodMs <= 0) throw new IllegalArgumentException(name + ": period must be positive, got " + periodMs);
        ScheduledFuture<?> f = pool().scheduleWithFixedDelay(guarded(name, task), Math.max(0, initialDelayMs),
                periodMs, TimeUnit.MILLISECONDS);
        return () -> f.cancel(false);
    }

    /** A periodic task that throws would silently stop running: log instead. */
    private static Runnable guarded(String name, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                log.warn("Scheduled task {} failed", name, e);
            } catch (Error e) {
                // An Error (OutOfMemoryError included) leaves the broker half-working: halt so a supervisor restarts it.
                FatalErrorHandler.halting().fatal("scheduled task " + name, e);
                throw e;
            }
        };
    }

    private ScheduledThreadPoolExecutor pool() {
        ScheduledThreadPoolExecutor p = pool;
        if (p != null) return p;
        synchronized (this) {
            if (pool == null) {
                AtomicInteger n = new AtomicInteger();
                ScheduledThreadPoolExecutor created = new ScheduledThreadPoolExecutor(THREADS, r -> {
                    Thread t = new Thread(r, "scheduler-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
                created.setRemoveOnCancelPolicy(true);
                pool = created;
            }
            return pool;
        }
    }
}
