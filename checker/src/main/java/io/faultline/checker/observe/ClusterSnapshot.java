package io.faultline.checker.observe;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What one metadata poll saw of a Kafka-protocol cluster: whether it answered, the active controller, the brokers it
 * lists as serving (registered and unfenced), and each watched partition's leader, replicas and ISR. Broker ids,
 * not node names, so both systems under test and any cluster size read the same.
 *
 * @param answered   false when no broker answered the poll (the other fields are then empty)
 * @param controller the active controller's id, or -1 when none is known
 */
public record ClusterSnapshot(boolean answered, int controller, Set<Integer> brokers, Map<String, PartitionState> partitions) {
    public ClusterSnapshot {
        brokers = java.util.Collections.unmodifiableSet(new TreeSet<>(brokers));
        partitions = java.util.Collections.unmodifiableMap(new TreeMap<>(partitions));
    }

    /** A poll that nobody answered. */
    public static ClusterSnapshot unanswered() {
        return new ClusterSnapshot(false, -1, Set.of(), Map.of());
    }

    /**
     * One partition's state.
     *
     * @param leader   the leader's broker id, or -1 when the partition has none
     * @param replicas the replica set in replica order
     * @param isr      the in-sync replicas
     */
    public record PartitionState(int leader, List<Integer> replicas, Set<Integer> isr) {
        public PartitionState {
            replicas = List.copyOf(replicas);
            isr = java.util.Collections.unmodifiableSet(new TreeSet<>(isr));
        }
    }
}
