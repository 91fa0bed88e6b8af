package io.faultline.workloads.generator;

import io.faultline.checker.history.OpValue;

/**
 * What a generator asks for: run {@code f} with {@code value} on worker {@code thread}, not before {@code time}
 * (nanoseconds on the history's clock).
 */
public record Invocation(int thread, long time, String f, OpValue value) {
    public Invocation withTime(long newTime) {
        return new Invocation(thread, newTime, f, value);
    }

    public Invocation withThread(int newThread) {
        return new Invocation(newThread, time, f, value);
    }
}
