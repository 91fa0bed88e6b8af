package io.faultline.broker.api;

import io.faultline.broker.partition.Partition;
import io.faultline.broker.partition.PartitionManager;
import io.faultline.broker.purgatory.DelayedOperation;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.Errors;

/**
 * An acks=all produce waiting until every written partition's high watermark passes the last offset written.
 * On one node that is at once, but through the same path replication will use; at the deadline the partitions
 * still waiting answer REQUEST_TIMED_OUT.
 */
final class DelayedProduce extends DelayedOperation {
    private final PartitionManager partitions;
    /** Per partition: its response entry and the high watermark that makes it acknowledged. */
    private final Map<TopicPartition, Map.Entry<PartitionProduceResponse, Long>> pending;
    private final Runnable respond;

    DelayedProduce(long timeoutMs, PartitionManager partitions,
                   Map<TopicPartition, Map.Entry<PartitionProduceResponse, Long>> pending, Runnable respond) {
        super(timeoutMs);
        this.partitions = partitions;
        this.pending = pending;
        this.respond = respond;
    }

    @Override
    public boolean tryComplete() {
        for (Map.Entry<TopicPartition, Map.Entry<PartitionProduceResponse, Long>> e : pending.entrySet()) {
            Optional<Partition> p = partitions.get(e.getKey());
            if (p.isPresent() && p.get().isLeader() && p.get().highWatermark() < e.getValue().getValue()) {
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
            if (p.isEmpty() || !p.get().isLeader()) {
                resp.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()).setBaseOffset(-1);
            } else if (p.get().highWatermark() < e.getValue().getValue()) {
                resp.setErrorCode(Errors.REQUEST_TIMED_OUT.code()).setBaseOffset(-1);
            }
        }
        respond.run();
    }
}
