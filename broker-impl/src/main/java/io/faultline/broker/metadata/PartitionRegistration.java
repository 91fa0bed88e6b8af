package io.faultline.broker.metadata;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One partition's replication state as the controller committed it. {@code leader == NO_LEADER} means the
 * partition is offline. Every leader change bumps {@code leaderEpoch}; every leader or ISR change bumps
 * {@code partitionEpoch}.
 */
public record PartitionRegistration(List<Integer> replicas, List<Integer> isr, int leader, int leaderEpoch,
                                    int partitionEpoch) {
    public static final int NO_LEADER = -1;

    public PartitionRegistration {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
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

    PartitionRegistration merge(Optional<List<Integer>> newIsr, OptionalInt newLeader, int newLeaderEpoch,
                                int newPartitionEpoch) {
        return new PartitionRegistration(replicas, newIsr.orElse(isr), newLeader.orElse(leader), newLeaderEpoch,
                newPartitionEpoch);
    }
}
