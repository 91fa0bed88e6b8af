package io.faultline.broker.storage;

/**
 * Wall-clock time as the storage engine sees it. Injected everywhere time matters (segment.ms rolls, flush.ms,
 * retention.ms, compaction tombstone horizons, log-append-time) so tests can jump time forward and backward
 * deterministically, the way a skewed node would.
 *
 * <p>Thread-safety: implementations must be safe to call from any thread.
 */
@FunctionalInterface
public interface LogClock {
    /** Milliseconds since the epoch; may jump backward (clock skew) and callers must tolerate that. */
    long milliseconds();

    /** The JVM's wall clock. */
    LogClock SYSTEM = System::currentTimeMillis;
}
