package io.faultline.broker.api;

import io.faultline.broker.config.BrokerConfig;
import io.faultline.broker.common.Time;
import io.faultline.broker.metadata.TopicRegistry;
import io.faultline.broker.network.RequestChannel;
import io.faultline.broker.partition.PartitionManager;

/** What every API handler needs: settings, the advertised endpoint, the response channel and the node's state. */
public record BrokerContext(BrokerConfig config, String clusterId, String advertisedHost, int advertisedPort,
                            RequestChannel channel, TopicRegistry topics, TopicManager topicManager,
                            PartitionManager partitions, Time time) {
    public int nodeId() {
        return config.nodeId();
    }
}
