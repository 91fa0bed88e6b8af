package io.faultline.broker.api;

import io.faultline.broker.config.BrokerConfig;
import io.faultline.broker.metadata.TopicInfo;
import io.faultline.broker.metadata.TopicRegistry;
import io.faultline.broker.partition.PartitionManager;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.internals.Topic;

/** Creates and deletes topics: the registry entry first (durable), then the partitions and their logs. */
public final class TopicManager {
    private final BrokerConfig config;
    private final TopicRegistry registry;
    private final PartitionManager partitions;
    private final java.util.List<java.util.function.Consumer<TopicInfo>> deletionListeners =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    public TopicManager(BrokerConfig config, TopicRegistry registry, PartitionManager partitions) {
        this.config = config;
        this.registry = registry;
        this.partitions = partitions;
    }

    /** Checks name, partition count and configs; throws the ApiException Kafka would answer with. */
    public void validate(String name, int numPartitions, Map<String, String> configs) {
        Topic.validate(name);
        if (numPartitions <= 0) throw new InvalidPartitionsException("Number of partitions must be larger than 0.");
        try {
            config.defaultLogConfig().with(configs);
        } catch (RuntimeException e) {
            throw new InvalidConfigurationException("Invalid topic config: " + e.getMessage());
        }
    }

    public synchronized TopicInfo create(String name, int numPartitions, Map<String, String> configs) {
        validate(name, numPartitions, configs);
        TopicInfo t = registry.create(name, numPartitions, configs);
        partitions.createPartitions(t);
        return t;
    }

    /** Returns the topic, creating it if absent (auto-creation and internal topics). */
    public synchronized TopicInfo getOrCreate(String name, int numPartitions, Map<String, String> configs) {
        Optional<TopicInfo> t = registry.byName(name);
        return t.orElseGet(() -> create(name, numPartitions, configs));
    }

    public synchronized Optional<TopicInfo> delete(String name) {
        Optional<TopicInfo> t = registry.delete(name);
        t.ifPresent(partitions::deletePartitions);
        t.ifPresent(info -> deletionListeners.forEach(l -> l.accept(info)));
        return t;
    }

    /** Called after a topic is deleted (e.g. the group coordinator drops its committed offsets, as Kafka does). */
    public void onTopicDeleted(java.util.function.Consumer<TopicInfo> listener) {
        deletionListeners.add(listener);
    }
}
