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

    /**
     * One partition as this broker describes it; {@code error}: the partition's error name, null for none. The leader
     * also says where its log's committed data ends for each isolation level: {@code highWatermark} (what
     * read_uncommitted consumers reach) and {@code lastStable} (read_committed: below the first open transaction);
     * -1 where not asked (a follower's view, an internal topic, a broker too old for isolation levels) or refused.
     * {@code leaderEpoch}: the leader's epoch as this broker knows it, -1 where its Metadata version has none (below 7).
     */
    public record PartitionView(String topic, int partition, int leader, List<Integer> replicas, List<Integer> isr,
                                String error, long highWatermark, long lastStable, int leaderEpoch) {
        public PartitionView {
            replicas = List.copyOf(replicas);
            isr = List.copyOf(isr);
        }

        /** A view without end offsets. */
        public PartitionView(String topic, int partition, int leader, int leaderEpoch, List<Integer> replicas,
                             List<Integer> isr, String error) {
            this(topic, partition, leader, replicas, isr, error, -1, -1, leaderEpoch);
        }

        /** A view without end offsets or leader epoch. */
        public PartitionView(String topic, int partition, int leader, List<Integer> replicas, List<Integer> isr,
                             String error) {
            this(topic, partition, leader, -1, replicas, isr, error);
        }

        public PartitionView withEndOffsets(long highWatermark, long lastStable) {
            return new PartitionView(topic, partition, leader, replicas, isr, error, highWatermark, lastStable, leaderEpoch);
        }

        /**
         * What every broker must say alike once the cluster has settled: the leader, its epoch (where known), the
         * replica set and the ISR (as sets: their order is not part of the state).
         */
        public String agreedState() {
            return "leader " + leader + (leaderEpoch < 0 ? "" : " in epoch " + leaderEpoch) + ", isr "
                    + new java.util.TreeSet<>(isr) + " of replicas " + new java.util.TreeSet<>(replicas)
                    + (error == null ? "" : ", " + error);
        }

        public String id() {
            return topic + "-" + partition;
        }

        /** Led, and every replica in the ISR. */
        public boolean recovered() {
            return error == null && leader >= 0 && replicas.contains(leader)
                    && isr.size() == replicas.size() && Set.copyOf(isr).equals(Set.copyOf(replicas));
        }

        /** Whether this view carries both end offsets. */
        public boolean hasEndOffsets() {
            return highWatermark >= 0 && lastStable >= 0;
        }

        /**
         * No transaction holds read_committed readers back: the last stable offset has reached the high watermark.
         * (The high watermark is asked first, so a write between the two answers can only make this look better.)
         */
        public boolean noOpenTransaction() {
            return lastStable >= highWatermark;
        }

        public String describe() {
            return (leader < 0 ? "no leader" : "leader " + leader) + (leaderEpoch < 0 ? "" : " (epoch " + leaderEpoch + ")")
                    + ", isr " + isr + " of replicas " + replicas
                    + (error == null ? "" : ", " + error);
        }
    }
}
