package io.faultline.nemesis;

/**
 * One fault operation, as the scheduler invokes it and as the nemesis completes it. {@code value} is what to do
 * (a typed record such as a partition shape or a process target); {@code result} says what was actually done
 * (which nodes, which rules, which files) and is null until completed; {@code error} is set when it failed.
 */
public record FaultOp(String f, Object value, String result, String error) {
    public FaultOp {
        if (f == null || f.isBlank()) throw new IllegalArgumentException("f is required");
    }

    public static FaultOp of(String f, Object value) {
        return new FaultOp(f, value, null, null);
    }

    public static FaultOp of(String f) {
        return new FaultOp(f, null, null, null);
    }

    public FaultOp completed(String what) {
        return new FaultOp(f, value, what, null);
    }

    public FaultOp failed(Throwable t) {
        return new FaultOp(f, value, result, t.getClass().getSimpleName() + ": " + t.getMessage());
    }

    public boolean isFailed() {
        return error != null;
    }

    /** The value as text for the history: records print themselves readably. */
    public String describeValue() {
        return value == null ? "" : value.toString();
    }

    @Override
    public String toString() {
        return f + (value == null ? "" : " " + value) + (result == null ? "" : " -> " + result)
                + (error == null ? "" : " !! " + error);
    }
}
