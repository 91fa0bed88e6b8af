package io.faultline.workloads.generator;

import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;

/**
 * A client of the system under test, owned by one worker thread. {@link #invoke} performs one operation and reports
 * how it ended; it should not throw (the interpreter records a stray exception as an indeterminate {@code info}).
 */
public interface Client extends AutoCloseable {

    /** How an operation ended: the completion's type, value and error text (null unless fail / info). */
    record Completion(OpType type, OpValue value, String error) {
        public static Completion ok(OpValue value) {
            return new Completion(OpType.OK, value, null);
        }
    }

    Completion invoke(String f, OpValue value);

    @Override
    void close();

    /** Opens a fresh client for a worker thread; called at start and again after every {@code info}. */
    @FunctionalInterface
    interface Factory {
        Client open(int thread);
    }
}
