package io.faultline.nemesis;

import java.util.List;
import java.util.Random;
import java.util.function.Function;

/**
 * The ops a fault package emits over a run. Stateless: the n-th op is a function of n and a seeded Random, so a
 * schedule is a pure function of the seed and can be planned (and unit-tested) before anything runs.
 */
@FunctionalInterface
public interface OpGenerator {
    /** The n-th op (0-based) of this package in a run. */
    FaultOp next(Random random, long n);

    /** Alternates a fault and its heal: fault, heal, fault, heal... (Jepsen's flip-flop). */
    static OpGenerator flipFlop(Function<Random, FaultOp> fault, Function<Random, FaultOp> heal) {
        return (random, n) -> n % 2 == 0 ? fault.apply(random) : heal.apply(random);
    }

    /** Every op is drawn independently from the given makers, uniformly. */
    static OpGenerator anyOf(List<Function<Random, FaultOp>> makers) {
        List<Function<Random, FaultOp>> copy = List.copyOf(makers);
        if (copy.isEmpty()) throw new IllegalArgumentException("no op makers");
        return (random, n) -> copy.get(random.nextInt(copy.size())).apply(random);
    }

    /** A fixed op every time. */
    static OpGenerator always(FaultOp op) {
        return (random, n) -> op;
    }
}
