package io.faultline.nemesis;

import java.time.Duration;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * When faults happen, as in Jepsen's fault cycles: a healthy window, then one fault that holds for a window and
 * is healed, then the next healthy window, and so on. Each window is uniform in [interval/2, 3·interval/2), so
 * about half of a run is healthy; after every heal the next healthy window is extended by {@code quietPeriod}.
 * Cycles are planned only within {@code duration}; the seed fixes which package acts in each cycle, with which
 * value, and when.
 *
 * <p>{@code onlyCycles}, when not null, keeps the faults of those cycles (numbered from 0) and drops the others,
 * leaving every kept fault at its original time with its original value: the same seed's schedule with a subset
 * of its faults, which is what shrinking a failing run needs.
 */
public record Schedule(Duration interval, Duration quietPeriod, Duration duration, long seed, SortedSet<Integer> onlyCycles) {
    public Schedule {
        if (interval.isNegative() || interval.isZero()) throw new IllegalArgumentException("interval must be > 0");
        if (quietPeriod.isNegative() || duration.isNegative()) throw new IllegalArgumentException("negative duration");
        if (onlyCycles != null) {
            for (int c : onlyCycles) if (c < 0) throw new IllegalArgumentException("negative cycle " + c);
            onlyCycles = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(onlyCycles));
        }
    }

    /** Every cycle. */
    public Schedule(Duration interval, Duration quietPeriod, Duration duration, long seed) {
        this(interval, quietPeriod, duration, seed, null);
    }

    public static Schedule of(Duration interval, Duration duration, long seed) {
        return new Schedule(interval, Duration.ZERO, duration, seed);
    }

    public Schedule withQuietPeriod(Duration quiet) {
        return new Schedule(interval, quiet, duration, seed, onlyCycles);
    }

    /** The same schedule keeping only the faults of these cycles. */
    public Schedule withOnlyCycles(Set<Integer> cycles) {
        return new Schedule(interval, quietPeriod, duration, seed, new TreeSet<>(cycles));
    }

    public boolean keeps(int cycle) {
        return onlyCycles == null || onlyCycles.contains(cycle);
    }

    /** Whether an op begins a cycle's fault or heals it. */
    public enum Role { FAULT, HEAL }

    /** One op of a plan: which package does what, this many ms after the schedule starts, in which cycle. */
    public record PlannedOp(long atMillis, String packageName, FaultOp op, int cycle, Role role) {}
}
