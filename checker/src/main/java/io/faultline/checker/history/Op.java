package io.faultline.checker.history;

import java.util.List;

/**
 * One history entry. {@code time} is nanoseconds since the test started. {@code process} is a client process id
 * (≥ 0) or {@link #NEMESIS}. {@code f} is the operation's function name without a colon ("send", "poll", ...).
 * {@code error} is null unless the op failed or is indeterminate.
 */
public record Op(long index, OpType type, int process, long time, String f, OpValue value, String error) {

    public static final String SEND = "send";
    public static final String POLL = "poll";
    public static final String TXN = "txn";
    public static final String ASSIGN = "assign";
    public static final String SUBSCRIBE = "subscribe";
    public static final String CRASH = "crash";

    /** Process id used for fault-injection entries (":nemesis" in EDN). */
    public static final int NEMESIS = -1;

    public Op {
        if (type == null || f == null || value == null) {
            throw new IllegalArgumentException("type, f and value are required");
        }
    }

    public boolean isInvoke() {
        return type == OpType.INVOKE;
    }

    public boolean isOk() {
        return type == OpType.OK;
    }

    /** The micro-ops of a send/poll/txn op; empty for anything else. */
    public List<MicroOp> mops() {
        return value instanceof OpValue.Txn t ? t.mops() : List.of();
    }

    public Op withIndex(long newIndex) {
        return new Op(newIndex, type, process, time, f, value, error);
    }

    // Small factories; they make hand-written histories in tests readable.

    public static Op invoke(int process, String f, OpValue value) {
        return new Op(-1, OpType.INVOKE, process, 0, f, value, null);
    }

    public static Op complete(OpType type, int process, String f, OpValue value, String error) {
        return new Op(-1, type, process, 0, f, value, error);
    }
}
