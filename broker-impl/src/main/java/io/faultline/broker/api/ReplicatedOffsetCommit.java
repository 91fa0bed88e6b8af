package io.faultline.broker.api;

import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.SeededBugs;
import io.faultline.broker.group.OffsetStore;
import io.faultline.broker.group.OffsetStore.CommittedOffset;
import io.faultline.broker.partition.Partition;
import io.faultline.broker.partition.PartitionManager;
import io.faultline.broker.purgatory.DelayedOperation;
import io.faultline.broker.replication.LeaderState;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/**
 * An OffsetCommit as Kafka's coordinator writes it: like an acks=all produce to the group's
 * {@code __consumer_offsets} partition (refused below min.insync.replicas, answered once the high watermark covers
 * the records, in the produce purgatory, at most {@value #COMMIT_TIMEOUT_MS} ms as offsets.commit.timeout.ms), with
 * the produce errors mapped to the coordinator errors Kafka's GroupMetadataManager answers. Seeded bug
 * offset-commit-unreplicated answers right after the leader's append instead.
 */
public final class ReplicatedOffsetCommit {
    /** Kafka's offsets.commit.timeout.ms default. */
    public static final long COMMIT_TIMEOUT_MS = 5_000;

    private final PartitionManager partitions;
    private final Function<TopicPartition, Optional<LeaderState>> replicationLeader;
    private final OffsetStore store;
    private final SeededBugs bugs;

    public ReplicatedOffsetCommit(PartitionManager partitions,
                                  Function<TopicPartition, Optional<LeaderState>> replicationLeader, OffsetStore store,
                                  SeededBugs bugs) {
        this.partitions = partitions;
        this.replicationLeader = replicationLeader;
        this.store = store;
        this.bugs = bugs;
    }

    /** Writes the commits; {@code done} gets NONE or the error for every committed partition (maybe later). */
    public void commit(String groupId, Map<TopicPartition, CommittedOffset> commits, Consumer<Errors> done) {
        if (commits.isEmpty()) {
            done.accept(Errors.NONE);
            return;
        }
        boolean unreplicated = bugs.on(SeededBug.OFFSET_COMMIT_UNREPLICATED);
        TopicPartition tp = store.offsetsPartition(groupId);
        OptionalLong required;
        try {
            if (!unreplicated) replicationLeader.apply(tp).ifPresent(l -> l.checkEnoughReplicasForAppend((short) -1));
            required = store.commit(groupId, commits, unreplicated);
        } catch (ApiException e) {
            done.accept(coordinatorError(Errors.forException(e)));
            return;
        }
        if (unreplicated || required.isEmpty()) {
            done.accept(Errors.NONE);
            return;
        }
        partitions.watchProduce(new Waiting(tp, required.getAsLong(), done), List.of(tp));
    }

    /**
     * Before an OffsetFetch is answered: a barrier replicated in this leader epoch proves this node still coordinates
     * the group (a coordinator cut off from the others would otherwise answer from a view a new coordinator has
     * moved past). {@code done} gets NONE, or NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE so the client looks again.
     * Seeded bug offset-commit-unreplicated answers from the local view at once, as it commits.
     */
    public void barrier(String groupId, Consumer<Errors> done) {
        if (bugs.on(SeededBug.OFFSET_COMMIT_UNREPLICATED)) {
            done.accept(Errors.NONE);
            return;
        }
        TopicPartition tp = store.offsetsPartition(groupId);
        long required;
        try {
            replicationLeader.apply(tp).ifPresent(l -> l.checkEnoughReplicasForAppend((short) -1));
            required = store.barrier(groupId);
        } catch (ApiException e) {
            done.accept(coordinatorError(Errors.forException(e)));
            return;
        }
        partitions.watchProduce(new Waiting(tp, required, e -> done.accept(
                e == Errors.REQUEST_TIMED_OUT ? Errors.NOT_COORDINATOR : e)), List.of(tp));
    }

    /** Kafka's GroupMetadataManager.storeOffsets: produce errors as the coordinator reports them. */
    static Errors coordinatorError(Errors e) {
        return switch (e) {
            case UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND ->
                    Errors.COORDINATOR_NOT_AVAILABLE;
            case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR -> Errors.NOT_COORDINATOR;
            case MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, INVALID_FETCH_SIZE -> Errors.INVALID_COMMIT_OFFSET_SIZE;
            default -> e;
        };
    }

    /** The commit waiting for the high watermark of its offsets partition, as {@link DelayedProduce} does. */
    private final class Waiting extends DelayedOperation {
        private final TopicPartition tp;
        private final long requiredOffset;
        private final Consumer<Errors> done;

        Waiting(TopicPartition tp, long requiredOffset, Consumer<Errors> done) {
            super(COMMIT_TIMEOUT_MS);
            this.tp = tp;
            this.requiredOffset = requiredOffset;
            this.done = done;
        }

        @Override
        public boolean tryComplete() {
            Optional<Partition> p = partitions.get(tp);
            if (p.isPresent() && p.get().isLeader() && status(p.get()).isEmpty()) return false;
            return forceComplete();
        }

        @Override
        protected void onComplete() {
            Optional<Partition> p = partitions.get(tp);
            Errors result;
            if (p.isEmpty() || !p.get().isLeader()) {
                result = Errors.NOT_LEADER_OR_FOLLOWER;
            } else {
                result = status(p.get()).orElse(Errors.REQUEST_TIMED_OUT);
            }
            done.accept(coordinatorError(result));
        }

        private Optional<Errors> status(Partition p) {
            Optional<LeaderState> leader = replicationLeader.apply(tp);
            if (leader.isPresent()) return leader.get().ackStatus(requiredOffset);
            return p.highWatermark() >= requiredOffset ? Optional.of(Errors.NONE) : Optional.empty();
        }
    }
}
