package io.faultline.workloads.generator;

import io.faultline.checker.history.Op;

/**
 * A pure, immutable operation generator in the style of Jepsen's: asking twice with the same context gives the same
 * answer, and a generator's evolution is carried entirely by the values it returns. That makes runs reproducible
 * from a seed and generators freely composable (see {@link Gens}).
 */
public interface Gen {

    /**
     * The next step for this context. An emitted op must name a thread that is free in {@code ctx}; the
     * interpreter adopts {@link Step.Emit#next()} only if it actually dispatches the op.
     */
    Step next(Context ctx);

    /** Learns of a history event (a completion); returns the updated generator. Default: ignores it. */
    default Gen update(Context ctx, Op event) {
        return this;
    }
}
