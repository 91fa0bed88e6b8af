package io.faultline.broker.partition;

import java.util.List;
import java.util.Set;

/**
 * The role this node plays for a partition, with the replication state the controller committed for it. Only
 * {@link Partition} changes it (single owner of transitions), and only {@link PartitionManager#applyDelta} asks it
 * to: roles come from committed metadata.
 */
public sealed interface PartitionRole permits PartitionRole.Leader, PartitionRole.Follower {
    int leaderEpoch();

    /** Bumped by the controller on every leader or ISR change. */
    int partitionEpoch();

    /** Every replica, in the controller's preference order. */
    List<Integer> replicas();

    Set<Integer> isr();

    record Leader(int leaderEpoch, int partitionEpoch, List<Integer> replicas, Set<Integer> isr)
            implements PartitionRole {
        public Leader {
            replicas = List.copyOf(replicas);
            isr = Set.copyOf(isr);
        }
    }

    /** {@code leaderId} is -1 while the partition has no leader (offline). */
    record Follower(int leaderEpoch, int partitionEpoch, int leaderId, List<Integer> replicas, Set<Integer> isr)
            implements PartitionRole {
        public Follower {
            replicas = List.copyOf(replicas);
            isr = Set.copyOf(isr);
        }
    }
}
