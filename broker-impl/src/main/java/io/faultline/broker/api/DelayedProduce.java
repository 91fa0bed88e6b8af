package io.faultline.broker.api;

import io.faultline.broker.partition.Partition;
import io.faultline.broker.partition.PartitionManager;
import io.faultline.broker.purgatory.DelayedOperation;
import io.faultline.broker.replication.LeaderState;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.Errors;

/**
 * An acks=all produce waiting until every written partition's high watermark passes the last offset written.
 * With replication the leader state decides (NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR shrank under
 * min.insync.replicas meanwhile); at the deadline the partitions still waiting answer REQUEST_TIMED_OUT.
 */
final class DelayedProduce extends DelayedOperation {
    private final PartitionManager partitions;
    /** Per partition: its response entry and the high watermark that makes it acknowledged. */
    private final Map<TopicPartition, Map.Entry<PartitionProduceResponse, Long>> pending;
    private final Runnable respond;
    private final Function<TopicPartition, Optional<LeaderState>> replicationLeader;

    DelayedProduce(long timeoutMs, PartitionManager partitions,
                   Map<TopicPartition, Map.Entry<PartitionProduceResponse, Long>> pending, Runnable respond) {
        this(timeoutMs, partitions, pending, respond, tp -> Optional.empty());
    }

    DelayedProduce(long timeoutMs, PartitionManager partitions,
                   Map<TopicPartition, Map.Entry<PartitionProduceResponse, Long>> pending, Runnable respond,
                   Function<TopicPartition, Optional<LeaderState>> replicationLeader) {
        super(timeoutMs);
        this.replicationLeader = replicationLeader;
        this.partitions = partitions;
        this.pending = pending;
        this.respond = respond;
    }

    @Override
    public boolean tryComplete() {
        for (Map.Entry<TopicPartition, Map.Entry<PartitionProduceResponse, Long>> e : pending.entrySet()) {
            Optional<Partition> p = partitions.get(e.getKey());
            if (p.isPresent() && p.get().servesAsLeader() && ackStatus(e.getKey(), p.get(), e.getValue().getValue()).isEmpty()) {
                return false;
            }
        }
        return forceComplete();
    }

    @Override
    protected void onComplete() {
        for (Map.Entry<TopicPartition, Map.Entry<PartitionProduceResponse, Long>> e : pending.entrySet()) {
            Optional<Partition> p = partitions.get(e.getKey());
            PartitionProduceResponse resp = e.getValue().getKey();
            if (p.isEmpty() || !p.get().servesAsLeader()) {
                resp.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()).setBaseOffset(-1);
            } else {
                Optional<Errors> status = ackStatus(e.getKey(), p.get(), e.getValue().getValue());
                if (status.isEmpty()) {
                    resp.setErrorCode(Errors.REQUEST_TIMED_OUT.code()).setBaseOffset(-1);
                } else if (status.get() != Errors.NONE) {
                    resp.setErrorCode(status.get().code()).setBaseOffset(-1);
                }
            }
        }
        respond.run();
    }

    /** Empty while waiting; then NONE or the error to answer. */
    private Optional<Errors> ackStatus(TopicPartition tp, Partition p, long requiredOffset) {
        Optional<LeaderState> leader = replicationLeader.apply(tp);
        if (leader.isPresent()) return leader.get().ackStatus(requiredOffset);
        return p.highWatermark() >= requiredOffset ? Optional.of(Errors.NONE) : Optional.empty();
    }
}
