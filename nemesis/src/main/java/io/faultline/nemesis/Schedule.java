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
 * <p>{@code overlap} is the chance that the next cycle does not wait for the heal: its fault starts while this one
 * still holds (between a fifth and four fifths of the way through the hold), from a package not holding a fault
 * then, as Jepsen's mixed package generators overlap a partition with a kill. After a cycle that is not overlapped
 * the healthy window follows the last heal of every fault in force. At 0 no cycle overlaps and the plan is the one
 * this schedule has always made for the seed.
 *
 * <p>{@code onlyCycles}, when not null, keeps the faults of those cycles (numbered from 0) and drops the others,
 * leaving every kept fault at its original time with its original value: the same seed's schedule with a subset
 * of its faults, which is what shrinking a failing run needs.
 */
public record Schedule(Duration interval, Duration quietPeriod, Duration duration, long seed, SortedSet<Integer> onlyCycles,
                       double overlap) {
    public Schedule {
        if (interval.isNegative() || interval.isZero()) throw new IllegalArgumentException("interval must be > 0");
        if (!(overlap >= 0 && overlap <= 1)) throw new IllegalArgumentException("overlap must be in [0, 1], got " + overlap);
        if (quietPeriod.isNegative() || duration.isNegative()) throw new IllegalArgumentException("negative duration");
        if (onlyCycles != null) {
            for (int c : onlyCycles) if (c < 0) throw new IllegalArgumentException("negative cycle " + c);
            onlyCycles = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(onlyCycles));
        }
    }

    /** Every cycle. */
    public Schedule(Duration interval, Duration quietPeriod, Duration duration, long seed) {
        this(interval, quietPeriod, duration, seed, null, 0);
    }

    public static Schedule of(Duration interval, Duration duration, long seed) {
        return new Schedule(interval, Duration.ZERO, duration, seed);
    }

    public Schedule withQuietPeriod(Duration quiet) {
        return new Schedule(interval, quiet, duration, seed, onlyCycles, overlap);
    }

    /** The same schedule where each cycle overlaps the one before with this chance. */
    public Schedule withOverlap(double chance) {
        return new Schedule(interval, quietPeriod, duration, seed, onlyCycles, chance);
    }

    /** The same schedule keeping only the faults of these cycles. */
    public Schedule withOnlyCycles(Set<Integer> cycles) {
        return new Schedule(interval, quietPeriod, duration, seed, new TreeSet<>(cycles), overlap);
    }

    public boolean keeps(int cycle) {
        return onlyCycles == null || onlyCycles.contains(cycle);
    }

    /** Whether an op begins a cycle's fault or heals it. */
    public enum Role { FAULT, HEAL }

    /** One op of a plan: which package does what, this many ms after the schedule starts, in which cycle. */
    public record PlannedOp(long atMillis, String packageName, FaultOp op, int cycle, Role role) {}
}
