package io.faultline.broker.api;

import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.PartitionRegistration;
import io.faultline.broker.metadata.TopicImage;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code __consumer_offsets}: created through the controller at startup or on first need (replication factor
 * min(3, cluster nodes), once that many brokers are alive; compacted), and the map from a group to its partition and
 * coordinator (the partition's leader).
 */
public final class OffsetsTopic {
    private static final Logger log = LoggerFactory.getLogger(OffsetsTopic.class);

    private final BrokerContext ctx;
    private final int partitions;
    private final AtomicBoolean creating = new AtomicBoolean();

    public OffsetsTopic(BrokerContext ctx) {
        this.ctx = ctx;
        this.partitions = ctx.config().offsetsTopicPartitions();
        int clusterSize = ctx.config().cluster().standalone() ? 1
                : ctx.config().cluster().voters().size() + ctx.config().cluster().quorumListeners().size();
        this.replicationFactor = (short) Math.min(3, clusterSize);
    }

    /** min(3, nodes in the cluster): created only once that many brokers are alive, never with fewer replicas. */
    private final short replicationFactor;

    public int partitions() {
        return partitions;
    }

    public int partitionFor(String groupId) {
        return org.apache.kafka.common.utils.Utils.abs(groupId.hashCode()) % partitions; // as Kafka's coordinator
    }

    /** Whether this node leads the group's offsets partition, i.e. coordinates the group. */
    public boolean coordinates(String groupId) {
        MetadataImage img = ctx.metadata().image();
        Optional<TopicImage> t = img.topic(Topic.GROUP_METADATA_TOPIC_NAME);
        if (t.isEmpty()) return false;
        PartitionRegistration p = t.get().partition(partitionFor(groupId));
        return p != null && p.leader() == ctx.nodeId();
    }

    /** Asks the controller to create the topic unless it exists or a request is already on its way. */
    public void ensureExists() {
        MetadataImage img = ctx.metadata().image();
        if (img.topic(Topic.GROUP_METADATA_TOPIC_NAME).isPresent() || !creating.compareAndSet(false, true)) return;
        long live = img.brokers().values().stream().filter(b -> !b.fenced()).count();
        if (live < replicationFactor) {
            creating.set(false);
            return;
        }
        short rf = replicationFactor;
        CreateTopicsRequestData req = new CreateTopicsRequestData().setTimeoutMs(30_000);
        CreateTopicsRequestData.CreatableTopic t = new CreateTopicsRequestData.CreatableTopic()
                .setName(Topic.GROUP_METADATA_TOPIC_NAME).setNumPartitions(partitions).setReplicationFactor(rf);
        t.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("cleanup.policy").setValue("compact"));
        t.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("segment.bytes").setValue("104857600"));
        req.topics().add(t);
        log.info("Creating {} with {} partitions, replication factor {}", Topic.GROUP_METADATA_TOPIC_NAME, partitions, rf);
        ctx.metadata().sendToController(ApiKeys.CREATE_TOPICS, ApiKeys.CREATE_TOPICS.latestVersion(), req)
                .whenComplete((resp, e) -> creating.set(false));
    }

}
