package io.faultline.broker.partition;

import java.util.Set;

/**
 * The role this node plays for a partition. Only {@link Partition} changes it (single owner of transitions).
 * Single node today: every partition is {@link Leader} with itself as the only in-sync replica; replication adds
 * {@link Follower} and a real ISR.
 */
public sealed interface PartitionRole permits PartitionRole.Leader, PartitionRole.Follower {
    int leaderEpoch();

    record Leader(int leaderEpoch, Set<Integer> isr) implements PartitionRole {
        public Leader {
            isr = Set.copyOf(isr);
        }
    }

    record Follower(int leaderEpoch, int leaderId) implements PartitionRole {
    }
}
