package io.faultline.broker.server;

import io.faultline.broker.common.Time;
import io.faultline.broker.config.BrokerConfig;
import io.faultline.broker.metadata.BrokerRegistration;
import io.faultline.broker.metadata.Endpoint;
import io.faultline.broker.metadata.TopicImage;
import io.faultline.broker.partition.PartitionManager;
import io.faultline.broker.replication.AlterPartitionSender;
import io.faultline.broker.replication.BlockingKafkaClient;
import io.faultline.broker.replication.LeaderEndpoint;
import io.faultline.broker.replication.ReplicaFetcherManager;
import io.faultline.broker.replication.ReplicaManager;
import io.faultline.broker.replication.ReplicationConfig;
import io.faultline.broker.replication.TruncationMode;
import java.io.IOException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Wires replication into a broker: a {@link ReplicaManager} that follows the partition manager's roles, fetcher
 * threads that connect to each leader's inter-broker listener as registered in the metadata image, and ISR changes
 * sent as AlterPartition through {@code toController}.
 */
final class ReplicationWiring {
    private ReplicationWiring() {
    }

    static ReplicaManager wire(BrokerConfig config, Time time, PartitionManager partitions,
                               AlterPartitionSender.Transport toController) {
        ReplicationConfig rc = ReplicationConfig.DEFAULT
                .withReplicaLagTimeMaxMs(config.cluster().replicaLagTimeMaxMs())
                .withTruncation(TruncationMode.parse(config.replicationTruncation()))
                .withBugs(config.bugs());
        int nodeId = config.nodeId();
        String listener = config.listeners().interBroker();
        ReplicaFetcherManager fetchers = new ReplicaFetcherManager(nodeId, time, rc,
                source -> endpoint(partitions, source, listener, nodeId, rc), true);
        AlterPartitionSender isr = new AlterPartitionSender(nodeId,
                () -> partitions.image().broker(nodeId).map(BrokerRegistration::epoch).orElse(-1L),
                b -> partitions.image().broker(b).map(BrokerRegistration::epoch).orElse(-1L),
                toController);
        ReplicaManager rm = new ReplicaManager(nodeId, time, fetchers, isr,
                id -> partitions.image().topic(id).map(TopicImage::name), config.cluster().minInsyncReplicas());
        rm.setEligibleForIsr(b -> partitions.image().broker(b).map(BrokerRegistration::isActive).orElse(false));
        partitions.setRoleChangeListener(rm);
        rm.startup();
        return rm;
    }

    /** Connects lazily, looking the leader's address up in the newest image at each (re)connect. */
    private static LeaderEndpoint endpoint(PartitionManager partitions, int source, String listener, int nodeId,
                                           ReplicationConfig rc) {
        return new LeaderEndpoint() {
            private BlockingKafkaClient client;

            @Override
            public synchronized ApiMessage send(ApiKeys apiKey, short version, ApiMessage request) throws IOException {
                if (client == null) {
                    Endpoint ep = partitions.image().broker(source).map(b -> b.endpoints().get(listener))
                            .orElseThrow(() -> new IOException("broker " + source + " has no " + listener + " listener"));
                    client = new BlockingKafkaClient(ep.host(), ep.port(), "replica-fetcher-" + nodeId,
                            rc.socketTimeoutMs());
                }
                try {
                    return client.send(apiKey, version, request);
                } catch (IOException e) {
                    client = null; // the leader may have moved to another address after a restart
                    throw e;
                }
            }

            @Override
            public synchronized void close() {
                if (client != null) client.close();
                client = null;
            }
        };
    }
}
