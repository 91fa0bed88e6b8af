package io.faultline.checker.history;

/** The four kinds of history entry, with Jepsen's meaning. */
public enum OpType {
    /** A process starts an operation. */
    INVOKE,
    /** The operation definitely took effect. */
    OK,
    /** The operation definitely did not take effect. */
    FAIL,
    /** Indeterminate: it may or may not have taken effect. The process is retired afterwards. */
    INFO;

    /** The lower-case name used in JSON and (as a keyword) in EDN. */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static OpType fromWire(String s) {
        return switch (s) {
            case "invoke" -> INVOKE;
            case "ok" -> OK;
            case "fail" -> FAIL;
            case "info" -> INFO;
            default -> throw new IllegalArgumentException("unknown op type: " + s);
        };
    }

    public boolean isCompletion() {
        return this != INVOKE;
    }
}
