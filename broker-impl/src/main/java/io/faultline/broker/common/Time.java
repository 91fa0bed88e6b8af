package io.faultline.broker.common;

/**
 * Time as the broker sees it, and the scheduler that runs on it. Injected everywhere time matters (session expiry,
 * purgatory deadlines, idle connections, segment rolls, retention, log-append-time) so tests drive it by hand.
 *
 * <p>Thread-safety: implementations must be safe to call from any thread.
 */
public interface Time {
    /** Wall-clock milliseconds since the epoch; may jump backward (clock skew) and callers must tolerate that. */
    long milliseconds();

    /** Monotonic nanoseconds, for durations and deadlines. */
    long nanoseconds();

    default long hiResMillis() {
        return nanoseconds() / 1_000_000L;
    }

    /** Runs delayed and periodic work when this clock reaches its deadline. */
    Scheduler scheduler();

    /** The JVM's clocks and a small shared pool of daemon threads. */
    Time SYSTEM = SystemTime.INSTANCE;
}
