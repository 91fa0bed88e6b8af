package io.faultline.checker.linear;

/**
 * A pure sequential specification: what a single-copy object does. States must be immutable values with
 * equals/hashCode (the search memoises on them).
 *
 * @param <S> state
 * @param <I> an operation's input
 * @param <O> an operation's output
 */
public interface Model<S, I, O> {
    S initial();

    /**
     * The state after applying {@code input} to {@code state}, if that can produce {@code output}; null if it
     * cannot. {@code output} null means it was not observed (the op is indeterminate): take the one transition
     * the input allows from this state.
     */
    S step(S state, I input, O output);

    /** How an op reads in explanations, e.g. "write 5", "read → 3". */
    default String describe(I input, O output) {
        return input + (output == null ? " → ?" : " → " + output);
    }
}
