package io.faultline.broker.metadata;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One partition's replication state as the controller committed it. {@code leader == NO_LEADER} means the
 * partition is offline. Every leader change bumps {@code leaderEpoch}; every leader or ISR change bumps
 * {@code partitionEpoch}.
 *
 * <p>During a reassignment {@code replicas} is the union of the old and the target replica set (as in Kafka):
 * {@code addingReplicas} are the target replicas that still have to catch up and join the ISR,
 * {@code removingReplicas} the old ones that leave once they have. Both are empty when no move is in progress.
 */
public record PartitionRegistration(List<Integer> replicas, List<Integer> isr, int leader, int leaderEpoch,
                                    int partitionEpoch, List<Integer> addingReplicas, List<Integer> removingReplicas) {
    public static final int NO_LEADER = -1;

    /** A partition with no reassignment in progress. */
    public PartitionRegistration(List<Integer> replicas, List<Integer> isr, int leader, int leaderEpoch,
                                 int partitionEpoch) {
        this(replicas, isr, leader, leaderEpoch, partitionEpoch, List.of(), List.of());
    }

    public PartitionRegistration {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        addingReplicas = List.copyOf(addingReplicas);
        removingReplicas = List.copyOf(removingReplicas);
        if (!replicas.containsAll(addingReplicas) || !replicas.containsAll(removingReplicas)) {
            throw new IllegalArgumentException("adding " + addingReplicas + " / removing " + removingReplicas
                    + " not within replicas " + replicas);
        }
        if (addingReplicas.stream().anyMatch(removingReplicas::contains)) {
            throw new IllegalArgumentException("a replica cannot be both added and removed: " + addingReplicas
                    + " / " + removingReplicas);
        }
        if (new java.util.HashSet<>(replicas).size() != replicas.size()) {
            throw new IllegalArgumentException("duplicate replicas " + replicas);
        }
        if (replicas.isEmpty()) throw new IllegalArgumentException("a partition needs at least one replica");
        if (isr.isEmpty()) throw new IllegalArgumentException("the ISR never becomes empty");
        if (!replicas.containsAll(isr)) throw new IllegalArgumentException("ISR " + isr + " not within replicas " + replicas);
        if (leader != NO_LEADER && !isr.contains(leader)) {
            throw new IllegalArgumentException("leader " + leader + " not in ISR " + isr);
        }
        if (leaderEpoch < 0 || partitionEpoch < 0) throw new IllegalArgumentException("negative epoch");
    }

    public boolean hasLeader() {
        return leader != NO_LEADER;
    }

    /** Is a reassignment of this partition in progress? */
    public boolean isReassigning() {
        return !addingReplicas.isEmpty() || !removingReplicas.isEmpty();
    }

    /** The replica set the partition moves to: every replica but those being removed. */
    public List<Integer> targetReplicas() {
        return replicas.stream().filter(r -> !removingReplicas.contains(r)).toList();
    }

    /** The replica set before the move: every replica but those being added. */
    public List<Integer> originalReplicas() {
        return replicas.stream().filter(r -> !addingReplicas.contains(r)).toList();
    }

    PartitionRegistration merge(Optional<List<Integer>> newIsr, OptionalInt newLeader, int newLeaderEpoch,
                                int newPartitionEpoch) {
        return new PartitionRegistration(replicas, newIsr.orElse(isr), newLeader.orElse(leader), newLeaderEpoch,
                newPartitionEpoch, addingReplicas, removingReplicas);
    }
}
