package io.faultline.broker.common;

/**
 * Runs work later, on the clock of the {@link Time} it belongs to: the system scheduler on real threads, a test's
 * manual scheduler only when the test moves its clock. Everything in the broker that waits or ticks (delayed
 * operations, log maintenance, group deadlines, heartbeats) goes through this seam instead of its own executor.
 *
 * <p>Tasks must be short and must not block: they share a few threads.
 */
public interface Scheduler {
    /** Runs {@code task} once, {@code delayMs} from now (at the next clock move for a delay of zero or less). */
    Cancellable schedule(String name, Runnable task, long delayMs);

    /**
     * Runs {@code task} after {@code initialDelayMs}, then {@code periodMs} after each run ends. A run that throws is
     * logged and the task keeps its schedule.
     */
    Cancellable scheduleWithFixedDelay(String name, Runnable task, long initialDelayMs, long periodMs);

    /** A scheduled task; cancelling a task that already ran (or is running) only stops later runs. */
    @FunctionalInterface
    interface Cancellable {
        void cancel();
    }
}
