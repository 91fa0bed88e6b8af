package io.faultline.broker.network;

import io.faultline.broker.common.Time;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * Logging of bad input that a hostile or broken client can repeat without end: the first event of each interval is
 * logged in full, the rest are only counted and summed up in one line when the interval is over (at the next event
 * or {@link #flush}). 148,000 WARN lines in 200 s become a few lines a minute.
 *
 * <p>Thread-safety: safe from any thread.
 */
public final class RateLimitedLog {
    private final Consumer<String> sink;
    private final Time time;
    private final long intervalNanos;
    private long windowStart;
    private boolean windowOpen;
    private long suppressed;
    private String first;

    /** Writes to {@code log} at WARN. */
    public RateLimitedLog(Logger log, Time time, long intervalMs) {
        this(log::warn, time, intervalMs);
    }

    public RateLimitedLog(Consumer<String> sink, Time time, long intervalMs) {
        if (intervalMs <= 0) throw new IllegalArgumentException("interval must be > 0: " + intervalMs);
        this.sink = sink;
        this.time = time;
        this.intervalNanos = intervalMs * 1_000_000L;
    }

    /** One bad-input event. */
    public synchronized void warn(String message) {
        long now = time.nanoseconds();
        flushIfDue(now);
        if (!windowOpen) {
            windowOpen = true;
            windowStart = now;
            first = message;
            sink.accept(message + " (similar events are counted, not logged, for the next "
                    + intervalNanos / 1_000_000L + " ms)");
        } else {
            suppressed++;
        }
    }

    /** Writes the summary of an interval that is over; call now and then so the last interval is not lost. */
    public synchronized void flush() {
        flushIfDue(time.nanoseconds());
    }

    private void flushIfDue(long now) {
        if (!windowOpen || now - windowStart < intervalNanos) return;
        if (suppressed > 0) {
            sink.accept(suppressed + " more such events in the last " + (now - windowStart) / 1_000_000L
                    + " ms, the first being: " + first);
        }
        windowOpen = false;
        suppressed = 0;
        first = null;
    }

    /** Events counted but not logged in the current interval (for tests). */
    public synchronized long suppressed() {
        return suppressed;
    }
}
