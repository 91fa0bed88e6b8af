package io.faultline.broker.partition;

import io.faultline.broker.common.SeededBugs;
import io.faultline.broker.common.Time;
import io.faultline.broker.metadata.MetadataDelta;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.PartitionRegistration;
import io.faultline.broker.purgatory.DelayedOperation;
import io.faultline.broker.purgatory.DelayedOperationPurgatory;
import io.faultline.broker.storage.PartitionLog;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the partitions hosted by this node (Kafka's ReplicaManager): creates, deletes and assigns roles to them from
 * committed metadata ({@link #applyDelta}), hands them to the API layer, and wakes delayed produce/fetch operations
 * when a high watermark, log end or role changes.
 */
public final class PartitionManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PartitionManager.class);

    private final int nodeId;
    private final LogStore logs;
    private final SeededBugs bugs;
    private volatile MetadataImage image = MetadataImage.EMPTY;
    private final ProducerStateSnapshots snapshots;
    private final Map<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    private final DelayedOperationPurgatory<DelayedOperation> producePurgatory;
    private final DelayedOperationPurgatory<DelayedOperation> fetchPurgatory;
    private volatile RoleChangeListener roleListener = RoleChangeListener.NONE;

    public PartitionManager(int nodeId, LogStore logs, Path logDir, Time time) {
        this(nodeId, logs, logDir, time, SeededBugs.NONE);
    }

    public PartitionManager(int nodeId, LogStore logs, Path logDir, Time time, SeededBugs bugs) {
        this.bugs = bugs;
        this.producePurgatory = new DelayedOperationPurgatory<>("produce", time.scheduler());
        this.fetchPurgatory = new DelayedOperationPurgatory<>("fetch", time.scheduler());
        this.snapshots = new ProducerStateSnapshots(logDir);
        this.nodeId = nodeId;
        this.logs = logs;
    }

    /**
     * Turns a committed metadata change into local state: partitions of deleted topics (or replicas moved away) are
     * removed with their logs, partitions this node now leads become leaders, the others where it is a replica
     * followers, each at the leader epoch, partition epoch, replicas and ISR the change carries. This is the only
     * way a partition gets a role. Called on the metadata thread, in commit order.
     */
    public synchronized void applyDelta(MetadataDelta delta, MetadataImage newImage) {
        image = newImage;
        MetadataDelta.LocalChanges local = delta.localChanges(nodeId);
        for (TopicIdPartition tip : local.deletes()) remove(new TopicPartition(tip.topic(), tip.partition()));
        // A dynamic broker config (a topic default such as log.retention.ms) may change every topic's config.
        refreshConfigs(delta.brokerConfigsChanged() ? allLocalTopics() : delta.changedTopicConfigs());
        local.leaders().forEach((tip, reg) -> apply(tip, reg, p -> {
            p.makeLeader(reg.leaderEpoch(), reg.partitionEpoch(), reg.replicas(), Set.copyOf(reg.isr()));
            roleListener.onLeader(p, newImage);
        }));
        local.followers().forEach((tip, reg) -> apply(tip, reg, p -> {
            p.makeFollower(reg.leaderEpoch(), reg.partitionEpoch(), reg.leader(), reg.replicas(), Set.copyOf(reg.isr()));
            roleListener.onFollower(p, newImage);
        }));
        if (!local.isEmpty()) {
            log.info("Applied metadata up to offset {}: {} leaders, {} followers, {} removed", newImage.offset(),
                    local.leaders().size(), local.followers().size(), local.deletes().size());
        }
    }

    /**
     * A topic config change (AlterConfigs, IncrementalAlterConfigs) reaches the logs that already exist, not only
     * those created from now on: segment.bytes, retention, cleanup.policy, max.message.bytes... apply at the next
     * append or maintenance round.
     */
    private Set<String> allLocalTopics() {
        Set<String> topics = new java.util.HashSet<>();
        for (TopicPartition tp : partitions.keySet()) topics.add(tp.topic());
        return topics;
    }

    private void refreshConfigs(Set<String> topics) {
        if (topics.isEmpty()) return;
        for (TopicPartition tp : partitions.keySet()) {
            if (!topics.contains(tp.topic())) continue;
            try {
                logs.refreshConfig(tp);
                roleListener.onConfigChanged(partitions.get(tp), image());
            } catch (RuntimeException e) {
                // The controller validated the values; a value the log cannot use keeps the old config, never stops
                // the metadata thread.
                log.error("Keeping the old config of {}: {}", tp, e.toString());
            }
        }
        log.info("Applied new configs of topics {}", topics);
    }

    private void apply(TopicIdPartition tip, PartitionRegistration reg, Consumer<Partition> transition) {
        TopicPartition tp = new TopicPartition(tip.topic(), tip.partition());
        Partition existing = partitions.get(tp);
        if (existing != null && !existing.topicId().equals(tip.topicId())) {
            // Same name, new topic id: the old topic was deleted and re-created; its data must not leak into it.
            log.warn("{} belongs to topic id {} now, not {}: removing the old log", tp, tip.topicId(),
                    existing.topicId());
            remove(tp);
        }
        boolean known = partitions.containsKey(tp);
        Partition p = partitions.computeIfAbsent(tp, x -> new Partition(x, tip.topicId(), logs.getOrCreate(x), nodeId,
                this::wakeWaiters, snapshots, bugs));
        // a log opened at start-up, before the metadata was replayed, has the defaults: give it the topic's config
        if (!known) logs.refreshConfig(tp);
        try {
            transition.accept(p);
        } catch (IllegalStateException e) {
            // A stale decision (older epoch) must not stop the other partitions of the same change.
            log.error("Ignoring stale metadata for {} ({}): {}", tp, reg, e.getMessage());
        }
    }

    private void remove(TopicPartition tp) {
        if (partitions.remove(tp) != null) {
            roleListener.onRemoved(tp);
            logs.delete(tp);
            snapshots.delete(tp);
            wakeWaiters(tp); // wake waiters so they answer with an error instead of waiting
        }
    }

    /** Replication's hook into role changes; set once before the first {@link #applyDelta}. */
    public void setRoleChangeListener(RoleChangeListener listener) {
        this.roleListener = listener;
    }

    /** The metadata image last applied ({@link MetadataImage#EMPTY} before the first). */
    public MetadataImage image() {
        return image;
    }

    public Optional<Partition> get(TopicPartition tp) {
        return Optional.ofNullable(partitions.get(tp));
    }

    public Collection<Partition> all() {
        return partitions.values();
    }

    public int nodeId() {
        return nodeId;
    }

    /** The seeded bugs switched on for this node. */
    public SeededBugs bugs() {
        return bugs;
    }

    /** Completes an acks=all produce now or when the high watermark of its partitions passes its offsets. */
    public void watchProduce(DelayedOperation op, List<TopicPartition> keys) {
        producePurgatory.tryCompleteElseWatch(op, keys);
    }

    /** Completes a fetch now or when its partitions get new data (or change role), else at its maxWaitMs. */
    public void watchFetch(DelayedOperation op, List<TopicPartition> keys) {
        fetchPurgatory.tryCompleteElseWatch(op, keys);
    }

    /** Delayed produce and fetch operations waiting now (for tests and metrics). */
    public int waitingOperations() {
        return producePurgatory.watched() + fetchPurgatory.watched();
    }

    private void wakeWaiters(TopicPartition tp) {
        producePurgatory.checkAndComplete(tp);
        fetchPurgatory.checkAndComplete(tp);
    }

    public void maintenance() {
        logs.maintenance();
        for (Partition p : partitions.values()) p.snapshotProducerStateIfChanged();
    }

    @Override
    public void close() {
        producePurgatory.close();
        fetchPurgatory.close();
        for (Partition p : partitions.values()) p.snapshotProducerStateIfChanged();
        logs.close();
    }
}
