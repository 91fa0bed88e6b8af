package io.faultline.broker.api;

import io.faultline.broker.config.BrokerConfig;
import io.faultline.broker.metadata.MetadataDelta;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord;
import io.faultline.broker.metadata.TopicInfo;
import io.faultline.broker.metadata.TopicRegistry;
import io.faultline.broker.partition.PartitionManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.internals.Topic;

/**
 * Creates and deletes topics on a node that is its own controller: the registry entry first (durable), then the
 * metadata records a controller would commit (this node the only replica, ISR and leader), applied through
 * {@link PartitionManager#applyDelta} like any committed change. The controller quorum replaces this class.
 */
public final class TopicManager {
    private final BrokerConfig config;
    private final TopicRegistry registry;
    private final PartitionManager partitions;
    private final List<Consumer<TopicInfo>> deletionListeners = new CopyOnWriteArrayList<>();
    /** The node's metadata, as if replayed from a log (guarded by this). */
    private MetadataImage image = MetadataImage.EMPTY;

    public TopicManager(BrokerConfig config, TopicRegistry registry, PartitionManager partitions) {
        this.config = config;
        this.registry = registry;
        this.partitions = partitions;
    }

    /** Publishes every registered topic (at startup), so this node leads all their partitions. */
    public synchronized void start() {
        List<MetadataRecord> records = new ArrayList<>();
        for (TopicInfo t : registry.all()) records.addAll(topicRecords(t));
        publish(records);
    }

    private List<MetadataRecord> topicRecords(TopicInfo t) {
        List<MetadataRecord> records = new ArrayList<>();
        records.add(new MetadataRecord.TopicRecord(t.name(), t.id()));
        List<Integer> self = List.of(config.nodeId());
        for (int p = 0; p < t.partitions(); p++) {
            records.add(new MetadataRecord.PartitionRecord(t.id(), p, self, self, config.nodeId(), 0, 0));
        }
        return records;
    }

    private void publish(List<MetadataRecord> records) {
        MetadataImage next = image.apply(image.offset() + 1, records);
        MetadataDelta delta = MetadataDelta.between(image, next);
        image = next;
        partitions.applyDelta(delta, next);
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
        publish(topicRecords(t));
        return t;
    }

    /** Returns the topic, creating it if absent (auto-creation and internal topics). */
    public synchronized TopicInfo getOrCreate(String name, int numPartitions, Map<String, String> configs) {
        Optional<TopicInfo> t = registry.byName(name);
        return t.orElseGet(() -> create(name, numPartitions, configs));
    }

    public synchronized Optional<TopicInfo> delete(String name) {
        Optional<TopicInfo> t = registry.delete(name);
        t.ifPresent(info -> publish(List.of(new MetadataRecord.RemoveTopicRecord(info.id()))));
        t.ifPresent(info -> deletionListeners.forEach(l -> l.accept(info)));
        return t;
    }

    /** Called after a topic is deleted (e.g. the group coordinator drops its committed offsets, as Kafka does). */
    public void onTopicDeleted(Consumer<TopicInfo> listener) {
        deletionListeners.add(listener);
    }
}
