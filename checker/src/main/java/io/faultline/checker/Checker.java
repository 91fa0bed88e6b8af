package io.faultline.checker;

import io.faultline.checker.history.Op;

import java.util.List;

/**
 * Judges a history. Implementations put their logic in {@link #analyze}; callers use {@link #check}, which never
 * throws: an internal error becomes an UNKNOWN result with the error attached.
 */
public interface Checker {

    String name();

    /** The analysis proper; may throw. */
    CheckResult analyze(List<Op> history) throws Exception;

    default CheckResult check(List<Op> history) {
        try {
            CheckResult r = analyze(history);
            return r != null ? r : CheckResult.failure(name(), new IllegalStateException("checker returned null"));
        } catch (Throwable t) { // deliberately everything, OutOfMemoryError included: a verdict must come back
            return CheckResult.failure(name(), t);
        }
    }
}
