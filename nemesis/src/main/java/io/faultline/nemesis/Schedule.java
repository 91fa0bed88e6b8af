package io.faultline.nemesis;

import java.time.Duration;

/**
 * When faults happen. Ops come one after another with a random stagger: each gap is uniform in
 * [0, 2 × interval), so the mean gap is the interval (Jepsen's stagger). After an op that heals its package the
 * next gap is extended by {@code quietPeriod}, to give the system room to recover between faults. Ops are planned
 * only within {@code duration}; the seed fixes which packages act, with which values, and when.
 */
public record Schedule(Duration interval, Duration quietPeriod, Duration duration, long seed) {
    public Schedule {
        if (interval.isNegative() || interval.isZero()) throw new IllegalArgumentException("interval must be > 0");
        if (quietPeriod.isNegative() || duration.isNegative()) throw new IllegalArgumentException("negative duration");
    }

    public static Schedule of(Duration interval, Duration duration, long seed) {
        return new Schedule(interval, Duration.ZERO, duration, seed);
    }

    public Schedule withQuietPeriod(Duration quiet) {
        return new Schedule(interval, quiet, duration, seed);
    }

    /** One op of a plan: which package does what, this many ms after the schedule starts. */
    public record PlannedOp(long atMillis, String packageName, FaultOp op) {}
}
