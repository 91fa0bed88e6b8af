package io.faultline.nemesis.compose;

import java.util.List;

/**
 * One planned composition: its place in the plan, when it starts (ms after the schedule starts, if every earlier
 * step took no time), its kind, the workload partition whose roles it binds (an index into the run's partitions), its
 * steps, and why it was chosen ("random", or the guided weights it was drawn with).
 */
public record Composition(int index, long atMillis, CompositionKind kind, int partition, List<Step> steps, String choice) {
    public Composition {
        steps = List.copyOf(steps);
        if (steps.isEmpty()) throw new IllegalArgumentException("a composition needs steps");
    }

    /** The sum of its waits: its length when every fault op is instant. */
    public long lengthMillis() {
        return steps.stream().mapToLong(s -> s instanceof Step.Wait w ? w.millis() : 0).sum();
    }

    @Override
    public String toString() {
        return "#" + index + " " + kind.id() + " on partition " + partition + ": "
                + String.join("; ", steps.stream().map(Object::toString).toList());
    }
}
