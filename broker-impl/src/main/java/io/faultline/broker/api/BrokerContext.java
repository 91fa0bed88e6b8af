package io.faultline.broker.api;

import io.faultline.broker.config.BrokerConfig;
import io.faultline.broker.common.Time;
import io.faultline.broker.metadata.TopicRegistry;
import io.faultline.broker.network.RequestChannel;
import io.faultline.broker.partition.PartitionManager;
import io.faultline.broker.replication.LeaderState;
import io.faultline.broker.replication.ReplicaManager;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * What every API handler needs: settings, the advertised endpoint, the response channel and the node's state.
 * {@code replication} is null while partition roles are not driven by replicated metadata (single node).
 */
public record BrokerContext(BrokerConfig config, String clusterId, String advertisedHost, int advertisedPort,
                            RequestChannel channel, TopicRegistry topics, TopicManager topicManager,
                            PartitionManager partitions, Time time, ReplicaManager replication) {
    /** The replication leader state of {@code tp} when this node leads it as a replica set. */
    public Optional<LeaderState> replicationLeader(TopicPartition tp) {
        return replication == null ? Optional.empty() : replication.leader(tp);
    }

    public int nodeId() {
        return config.nodeId();
    }
}
