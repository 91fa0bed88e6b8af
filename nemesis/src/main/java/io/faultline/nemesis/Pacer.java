package io.faultline.nemesis;

/**
 * Time as a fault schedule sees it: when an op is due and how to wait for it. Runs use {@link #SYSTEM}; tests
 * pass a manual pacer so that a schedule's behaviour does not depend on how busy the machine is.
 */
public interface Pacer {
    /** A monotonic time in nanoseconds. */
    long nanoTime();

    /** Waits up to {@code nanos} (it may return sooner; callers loop). */
    void sleep(long nanos) throws InterruptedException;

    /**
     * Sleeps until the nanoTime deadline; false if {@code stopped} turns true or the thread is interrupted first
     * (the interrupt flag is set again).
     */
    default boolean sleepUntil(long deadlineNanos, java.util.function.BooleanSupplier stopped) {
        while (!stopped.getAsBoolean()) {
            long left = deadlineNanos - nanoTime();
            if (left <= 0) return true;
            try {
                sleep(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    /** The real monotonic clock; naps of at most 200 ms so that a stop request is seen soon. */
    Pacer SYSTEM = new Pacer() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void sleep(long nanos) throws InterruptedException {
            Thread.sleep(Math.min(nanos / 1_000_000 + 1, 200));
        }
    };
}
