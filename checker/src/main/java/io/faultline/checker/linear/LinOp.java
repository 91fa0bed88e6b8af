package io.faultline.checker.linear;

/**
 * One operation on one object: when it was invoked and completed, what went in and what came out.
 *
 * @param id       the history index (of its completion, or invocation if none), for reports
 * @param process  the process that ran it
 * @param invoke   invocation time (any monotonic unit, e.g. ns since the test started)
 * @param complete completion time, or {@link #NEVER} for an indeterminate op (it may take effect any time after
 *                 its invocation, or not at all)
 * @param output   what it returned; null when indeterminate
 */
public record LinOp<I, O>(long id, int process, long invoke, long complete, I input, O output) {
    public static final long NEVER = Long.MAX_VALUE;

    public LinOp {
        if (complete < invoke) {
            throw new IllegalArgumentException("op " + id + " completes (" + complete + ") before it is invoked ("
                    + invoke + ")");
        }
    }

    public boolean indeterminate() {
        return complete == NEVER;
    }
}
