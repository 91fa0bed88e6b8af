package io.faultline.broker.partition;

import io.faultline.broker.metadata.MetadataImage;
import org.apache.kafka.common.TopicPartition;

/**
 * Told by {@link PartitionManager#applyDelta} after each role it gave a partition, in commit order, so replication
 * (a layer above) can start or update leader state and fetchers. Called on the metadata thread.
 */
public interface RoleChangeListener {
    /** {@code p} now holds a {@link PartitionRole.Leader} role (new leadership or new ISR) from {@code image}. */
    void onLeader(Partition p, MetadataImage image);

    /** {@code p} now holds a {@link PartitionRole.Follower} role from {@code image}. */
    void onFollower(Partition p, MetadataImage image);

    /** The partition is no longer hosted here. */
    void onRemoved(TopicPartition tp);

    /** The topic of {@code p} has a new config in {@code image} (AlterConfigs); its role is unchanged. */
    default void onConfigChanged(Partition p, MetadataImage image) {
    }

    RoleChangeListener NONE = new RoleChangeListener() {
        @Override
        public void onLeader(Partition p, MetadataImage image) {
        }

        @Override
        public void onFollower(Partition p, MetadataImage image) {
        }

        @Override
        public void onRemoved(TopicPartition tp) {
        }
    };
}
