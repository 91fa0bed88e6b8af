package io.faultline.broker.api;

import io.faultline.broker.common.Time;
import io.faultline.broker.config.BrokerConfig;
import io.faultline.broker.network.MemoryPool;
import io.faultline.broker.network.RequestChannel;
import io.faultline.broker.partition.PartitionManager;
import io.faultline.broker.replication.LeaderState;
import io.faultline.broker.replication.ReplicaManager;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * What every API handler needs: settings, the listener its requests arrive on (answers name the endpoints of the
 * same listener, as Kafka's do), that listener's response channel, the cluster metadata, the node's partitions and
 * its replication ({@code replication} null in tests that run without it), and the broker-wide request memory pool
 * that the listeners read frames into (handlers reserve the extra memory their work needs there too).
 */
public record BrokerContext(BrokerConfig config, String clusterId, String listenerName, RequestChannel channel,
                            ClusterMetadata metadata, PartitionManager partitions, Time time,
                            ReplicaManager replication, MemoryPool requestMemory) {
    /** The replication leader state of {@code tp} when this node leads it as a replica set. */
    public Optional<LeaderState> replicationLeader(TopicPartition tp) {
        return replication == null ? Optional.empty() : replication.leader(tp);
    }

    public int nodeId() {
        return config.nodeId();
    }

    /** How long a forwarded request waits for its effect to reach this node's metadata before answering anyway. */
    public static final long METADATA_CATCH_UP_MS = 10_000;
}
