package io.faultline.broker.partition;

import io.faultline.broker.common.Time;
import io.faultline.broker.metadata.TopicInfo;
import io.faultline.broker.metadata.TopicRegistry;
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
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the partitions hosted by this node (Kafka's ReplicaManager): creates them from the topic registry, hands
 * them to the API layer, and wakes delayed produce/fetch operations when a high watermark or log end moves.
 */
public final class PartitionManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PartitionManager.class);

    private final int nodeId;
    private final LogStore logs;
    private final TopicRegistry topics;
    private final ProducerStateSnapshots snapshots;
    private final Map<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    private final DelayedOperationPurgatory<DelayedOperation> producePurgatory;
    private final DelayedOperationPurgatory<DelayedOperation> fetchPurgatory;

    public PartitionManager(int nodeId, LogStore logs, TopicRegistry topics, Path logDir, Time time) {
        this.producePurgatory = new DelayedOperationPurgatory<>("produce", time.scheduler());
        this.fetchPurgatory = new DelayedOperationPurgatory<>("fetch", time.scheduler());
        this.snapshots = new ProducerStateSnapshots(logDir);
        this.nodeId = nodeId;
        this.logs = logs;
        this.topics = topics;
    }

    /** Loads every partition of every known topic and becomes its leader (single node). */
    public void startup() {
        for (TopicInfo t : topics.all()) createPartitions(t);
        log.info("Loaded {} partitions of {} topics", partitions.size(), topics.all().size());
    }

    public void createPartitions(TopicInfo t) {
        for (int p = 0; p < t.partitions(); p++) {
            TopicPartition tp = new TopicPartition(t.name(), p);
            partitions.computeIfAbsent(tp, x -> {
                PartitionLog pl = logs.getOrCreate(x);
                Partition part = new Partition(x, t.id(), pl, nodeId, this::wakeWaiters, snapshots);
                // Single node: we lead every partition; keep the epoch the log already knows.
                part.makeLeader(pl.latestEpoch().orElse(0), Set.of(nodeId));
                return part;
            });
        }
    }

    public void deletePartitions(TopicInfo t) {
        for (int p = 0; p < t.partitions(); p++) {
            TopicPartition tp = new TopicPartition(t.name(), p);
            if (partitions.remove(tp) != null) {
                logs.delete(tp);
                snapshots.delete(tp);
                wakeWaiters(tp); // wake waiters so they answer with an error instead of waiting
            }
        }
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
