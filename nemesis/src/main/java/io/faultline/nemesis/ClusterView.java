package io.faultline.nemesis;

import java.util.List;
import java.util.Optional;

/**
 * What fault targeting needs to know about the cluster: its node names and, when the system under test can tell,
 * who leads a partition and who is the active controller. Small on purpose, so shapes and targets are pure
 * functions that unit tests drive with a stub.
 */
public interface ClusterView {
    List<String> nodeNames();

    default Optional<String> leaderOf(PartitionRef partition) {
        return Optional.empty();
    }

    default Optional<String> activeController() {
        return Optional.empty();
    }

    /** A topic-partition whose leader a fault can target. */
    record PartitionRef(String topic, int partition) {
        @Override
        public String toString() {
            return topic + "-" + partition;
        }
    }

    /** A view of fixed node names only. */
    static ClusterView of(List<String> names) {
        List<String> copy = List.copyOf(names);
        return () -> copy;
    }
}
