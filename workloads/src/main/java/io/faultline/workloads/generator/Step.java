package io.faultline.workloads.generator;

/** A generator's answer: an operation plus the generator's next state, "not now", or "finished". */
public sealed interface Step permits Step.Emit, Step.Pending, Step.Done {

    record Emit(Invocation op, Gen next) implements Step {
    }

    /** Nothing to do at the moment (e.g. waiting for threads to finish); ask again after something happens. */
    record Pending() implements Step {
    }

    /** This generator will never emit again. */
    record Done() implements Step {
    }

    Step PENDING = new Pending();
    Step DONE = new Done();

    static Step emit(Invocation op, Gen next) {
        return new Emit(op, next);
    }
}
