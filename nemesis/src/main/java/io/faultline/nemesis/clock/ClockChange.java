package io.faultline.nemesis.clock;

import io.faultline.nemesis.process.Target;

/** The closed set of clock faults; offsets are milliseconds relative to real time. */
public sealed interface ClockChange {
    Target target();

    /** Moves each target's clock by {@code deltaMillis} from where it is now (positive: ahead). */
    record Bump(Target target, long deltaMillis) implements ClockChange {}

    /**
     * Flips each target's clock between two offsets, holding each for half the period, for the duration; then puts
     * back the offset it had before. libfaketime re-reads its file about once a second, so halves under ~1 s blur.
     */
    record Strobe(Target target, long offsetAMillis, long offsetBMillis, long periodMillis, long durationMillis)
            implements ClockChange {
        public Strobe {
            if (periodMillis < 2 || durationMillis < 0) throw new IllegalArgumentException("bad strobe timing");
        }
    }

    /** Back to real time. */
    record Reset(Target target) implements ClockChange {}
}
