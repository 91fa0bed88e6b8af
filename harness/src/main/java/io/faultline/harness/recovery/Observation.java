package io.faultline.harness.recovery;

import java.time.Instant;
import java.util.List;

/** One poll of the cluster after the final heal: every broker asked directly, at one moment. */
public record Observation(Instant at, List<NodeView> nodes) {
    public Observation {
        nodes = List.copyOf(nodes);
    }

    /** Takes observations; never throws (a broker that cannot be asked is a silent {@link NodeView}). */
    @FunctionalInterface
    public interface Source {
        Observation observe();
    }
}
