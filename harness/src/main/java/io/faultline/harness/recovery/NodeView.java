package io.faultline.harness.recovery;

import java.util.List;
import java.util.Set;

/**
 * What one broker said when asked directly: whether it answered ApiVersions and Metadata within the probe's
 * timeout, and if so which brokers it lists (the registered, unfenced ones) and its view of every partition.
 *
 * @param node     node name (n1, n2, ...)
 * @param brokerId its broker id
 * @param error    why it did not answer (timeout, refused, an error code), null when it did
 */
public record NodeView(String node, int brokerId, String error, Set<Integer> brokers, List<PartitionView> partitions) {
    public NodeView {
        brokers = brokers == null ? Set.of() : Set.copyOf(brokers);
        partitions = partitions == null ? List.of() : List.copyOf(partitions);
    }

    public static NodeView silent(String node, int brokerId, String error) {
        return new NodeView(node, brokerId, error, Set.of(), List.of());
    }

    public boolean answered() {
        return error == null;
    }

    /** One partition as this broker describes it; {@code error}: the partition's error name, null for none. */
    public record PartitionView(String topic, int partition, int leader, List<Integer> replicas, List<Integer> isr,
                                String error) {
        public PartitionView {
            replicas = List.copyOf(replicas);
            isr = List.copyOf(isr);
        }

        public String id() {
            return topic + "-" + partition;
        }

        /** Led, and every replica in the ISR. */
        public boolean recovered() {
            return error == null && leader >= 0 && replicas.contains(leader)
                    && isr.size() == replicas.size() && Set.copyOf(isr).equals(Set.copyOf(replicas));
        }

        public String describe() {
            return (leader < 0 ? "no leader" : "leader " + leader) + ", isr " + isr + " of replicas " + replicas
                    + (error == null ? "" : ", " + error);
        }
    }
}
