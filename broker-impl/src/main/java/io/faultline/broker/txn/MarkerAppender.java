package io.faultline.broker.txn;

import io.faultline.broker.common.Time;
import io.faultline.broker.group.OffsetStore;
import io.faultline.broker.partition.Partition;
import io.faultline.broker.partition.PartitionManager;
import io.faultline.broker.purgatory.DelayedOperation;
import io.faultline.broker.replication.LeaderState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.protocol.Errors;

/**
 * Writes COMMIT/ABORT markers to the partitions this node leads (the broker side of WriteTxnMarkers; the local
 * coordinator calls it directly) and answers once each marker is replicated, as Kafka appends them with acks=all.
 * Markers on {@code __consumer_offsets} go through the offset store, which decides the transaction's offset
 * commits at the same point of the log.
 */
public final class MarkerAppender {
    /** How long a marker waits for its high watermark before the coordinator is told to retry. */
    static final long MARKER_TIMEOUT_MS = 10_000;

    private final PartitionManager partitions;
    private final Function<TopicPartition, Optional<LeaderState>> replicationLeader;
    private final OffsetStore offsets;
    private final Time time;

    public MarkerAppender(PartitionManager partitions, Function<TopicPartition, Optional<LeaderState>> replicationLeader,
                          OffsetStore offsets, Time time) {
        this.partitions = partitions;
        this.replicationLeader = replicationLeader;
        this.offsets = offsets;
        this.time = time;
    }

    /** Appends one marker per partition; {@code done} gets every partition's error (NONE once replicated). */
    public void write(long producerId, short producerEpoch, int coordinatorEpoch, boolean commit,
                      List<TopicPartition> tps, Consumer<Map<TopicPartition, Errors>> done) {
        Map<TopicPartition, Errors> result = new LinkedHashMap<>();
        Map<TopicPartition, Long> waiting = new HashMap<>();
        List<Runnable> completions = new ArrayList<>();
        for (TopicPartition tp : tps) {
            Optional<Partition> p = partitions.get(tp);
            if (p.isEmpty()) {
                result.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                continue;
            }
            try {
                replicationLeader.apply(tp).ifPresent(l -> l.checkEnoughReplicasForAppend((short) -1));
                Partition.AppendResult r = tp.topic().equals(Topic.GROUP_METADATA_TOPIC_NAME) && offsets != null
                        ? offsets.writeMarker(tp.partition(), producerId, producerEpoch, coordinatorEpoch, commit,
                                completions::add)
                        : p.get().appendMarker(producerId, producerEpoch, coordinatorEpoch, commit, time.milliseconds(),
                                completions::add);
                waiting.put(tp, r.lastOffset() + 1);
            } catch (ApiException e) {
                result.put(tp, Errors.forException(e));
            }
        }
        completions.forEach(Runnable::run);
        if (waiting.isEmpty()) {
            done.accept(result);
            return;
        }
        partitions.watchProduce(new Replicated(waiting, result, done), new ArrayList<>(waiting.keySet()));
    }

    /** Waits until each partition's high watermark reaches its offset; {@code done} gets each partition's error. */
    public void awaitReplicated(Map<TopicPartition, Long> required, Consumer<Map<TopicPartition, Errors>> done) {
        partitions.watchProduce(new Replicated(new HashMap<>(required), new LinkedHashMap<>(), done),
                new ArrayList<>(required.keySet()));
    }

    /** The markers waiting for their partitions' high watermarks. */
    private final class Replicated extends DelayedOperation {
        private final Map<TopicPartition, Long> required;
        private final Map<TopicPartition, Errors> result;
        private final Consumer<Map<TopicPartition, Errors>> done;

        Replicated(Map<TopicPartition, Long> required, Map<TopicPartition, Errors> result,
                   Consumer<Map<TopicPartition, Errors>> done) {
            super(MARKER_TIMEOUT_MS);
            this.required = required;
            this.result = result;
            this.done = done;
        }

        @Override
        public boolean tryComplete() {
            for (var e : required.entrySet()) if (status(e.getKey(), e.getValue()).isEmpty()) return false;
            return forceComplete();
        }

        @Override
        protected void onComplete() {
            required.forEach((tp, offset) -> result.put(tp, status(tp, offset).orElse(Errors.REQUEST_TIMED_OUT)));
            done.accept(result);
        }

        /** Empty while waiting; NONE once replicated, or the error that ends the wait. */
        private Optional<Errors> status(TopicPartition tp, long offset) {
            Optional<Partition> p = partitions.get(tp);
            if (p.isEmpty() || !p.get().isLeader()) return Optional.of(Errors.NOT_LEADER_OR_FOLLOWER);
            Optional<LeaderState> leader = replicationLeader.apply(tp);
            if (leader.isPresent()) return leader.get().ackStatus(offset);
            return p.get().highWatermark() >= offset ? Optional.of(Errors.NONE) : Optional.empty();
        }
    }
}
