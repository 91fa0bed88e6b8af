package io.faultline.checker.linear;

/** An op's input on one of several independent objects (e.g. a register per key). */
public record Keyed<I>(String key, I input) {
    @Override
    public String toString() {
        return key + ": " + input;
    }
}
