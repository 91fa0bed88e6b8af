package io.faultline.checker;

import java.util.Set;

/** The outcome of a check. */
public enum Verdict {
    /** No forbidden anomaly was found. */
    VALID,
    /** At least one forbidden anomaly was found. */
    INVALID,
    /** The checker could not decide (internal error, or too little data to judge). */
    UNKNOWN;

    /** The weaker of two verdicts: invalid beats unknown, which beats valid (Jepsen's merge-valid). */
    public Verdict and(Verdict other) {
        if (this == INVALID || other == INVALID) return INVALID;
        if (this == UNKNOWN || other == UNKNOWN) return UNKNOWN;
        return VALID;
    }

    /** Several checks' verdicts merged as {@link #and}; valid when there are none. */
    public static Verdict merge(Iterable<CheckResult> results) {
        return merge(results, Set.of());
    }

    /**
     * Several checks' verdicts merged as {@link #and}, where a result that is invalid only through categories in
     * {@code unproven} (e.g. "unseen" when the final reads did not reach the end) counts as unknown: those
     * anomalies may be real, but the run cannot prove them.
     */
    public static Verdict merge(Iterable<CheckResult> results, Set<String> unproven) {
        Verdict v = VALID;
        for (CheckResult r : results) {
            Verdict rv = r.verdict();
            if (rv == INVALID && !unproven.isEmpty() && unproven.containsAll(r.forbiddenFound())) rv = UNKNOWN;
            v = v.and(rv);
        }
        return v;
    }
}
