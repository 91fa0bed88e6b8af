package io.faultline.checker;

/** The outcome of a check. */
public enum Verdict {
    /** No forbidden anomaly was found. */
    VALID,
    /** At least one forbidden anomaly was found. */
    INVALID,
    /** The checker could not decide (internal error, or too little data to judge). */
    UNKNOWN
}
