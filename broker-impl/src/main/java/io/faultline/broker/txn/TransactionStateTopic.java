package io.faultline.broker.txn;

import io.faultline.broker.api.BrokerContext;
import io.faultline.broker.metadata.Endpoint;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.PartitionRegistration;
import io.faultline.broker.metadata.TopicImage;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code __transaction_state}: created through the controller on first need (replication factor min(3, cluster
 * nodes) once that many brokers are alive, compacted, min.insync.replicas 2 where there are 3 replicas, as Kafka's
 * defaults), and the map from a transactional id to its partition and coordinator (the partition's leader). It has
 * as many partitions as {@code __consumer_offsets} ({@code offsets.topic.num.partitions}).
 */
public final class TransactionStateTopic {
    private static final Logger log = LoggerFactory.getLogger(TransactionStateTopic.class);
    public static final String NAME = Topic.TRANSACTION_STATE_TOPIC_NAME;

    private final BrokerContext ctx;
    private final int partitions;
    private final short replicationFactor;
    private final AtomicBoolean creating = new AtomicBoolean();

    public TransactionStateTopic(BrokerContext ctx) {
        this.ctx = ctx;
        this.partitions = ctx.config().offsetsTopicPartitions();
        int clusterSize = ctx.config().cluster().standalone() ? 1
                : ctx.config().cluster().voters().size() + ctx.config().cluster().quorumListeners().size();
        this.replicationFactor = (short) Math.min(3, clusterSize);
    }

    public int partitions() {
        return partitions;
    }

    public int partitionFor(String transactionalId) {
        return org.apache.kafka.common.utils.Utils.abs(transactionalId.hashCode()) % partitions; // as Kafka
    }

    public TopicPartition topicPartition(String transactionalId) {
        return new TopicPartition(NAME, partitionFor(transactionalId));
    }

    /** The coordinator of a transactional id: the leader of its partition, on this request's listener. */
    public Optional<Coordinator> locate(String transactionalId) {
        MetadataImage img = ctx.metadata().image();
        Optional<TopicImage> t = img.topic(NAME);
        if (t.isEmpty()) {
            ensureExists();
            return Optional.empty();
        }
        PartitionRegistration p = t.get().partition(partitionFor(transactionalId));
        if (p == null || !p.hasLeader()) return Optional.empty();
        return img.broker(p.leader()).filter(b -> !b.fenced()).map(b -> b.endpoints().get(ctx.listenerName()))
                .map(e -> new Coordinator(p.leader(), e));
    }

    public record Coordinator(int nodeId, Endpoint endpoint) {
    }

    /** Asks the controller to create the topic unless it exists or a request is already on its way. */
    public void ensureExists() {
        MetadataImage img = ctx.metadata().image();
        if (img.topic(NAME).isPresent() || !creating.compareAndSet(false, true)) return;
        long live = img.brokers().values().stream().filter(b -> !b.fenced()).count();
        if (live < replicationFactor) {
            creating.set(false);
            return;
        }
        CreateTopicsRequestData req = new CreateTopicsRequestData().setTimeoutMs(30_000);
        CreateTopicsRequestData.CreatableTopic t = new CreateTopicsRequestData.CreatableTopic()
                .setName(NAME).setNumPartitions(partitions).setReplicationFactor(replicationFactor);
        t.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("cleanup.policy").setValue("compact"));
        if (replicationFactor >= 3) {
            t.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("min.insync.replicas")
                    .setValue("2"));
        }
        req.topics().add(t);
        log.info("Creating {} with {} partitions, replication factor {}", NAME, partitions, replicationFactor);
        ctx.metadata().sendToController(ApiKeys.CREATE_TOPICS, ApiKeys.CREATE_TOPICS.latestVersion(), req)
                .whenComplete((resp, e) -> creating.set(false));
    }
}
