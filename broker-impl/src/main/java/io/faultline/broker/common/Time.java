package io.faultline.broker.common;

import io.faultline.broker.storage.LogClock;

/**
 * Time as the broker sees it. Injected everywhere time matters (session expiry, purgatory deadlines, idle
 * connections) so tests can drive it deterministically.
 */
public interface Time {
    /** Wall-clock milliseconds since the epoch (may jump under clock skew). */
    long milliseconds();

    /** Monotonic nanoseconds, for durations and deadlines. */
    long nanoseconds();

    default long hiResMillis() {
        return nanoseconds() / 1_000_000L;
    }

    default LogClock asLogClock() {
        return this::milliseconds;
    }

    Time SYSTEM = new Time() {
        @Override
        public long milliseconds() {
            return System.currentTimeMillis();
        }

        @Override
        public long nanoseconds() {
            return System.nanoTime();
        }
    };
}
