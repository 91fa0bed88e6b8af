package io.faultline.broker.api;

import io.faultline.broker.network.Request;
import io.faultline.broker.partition.Partition;
import io.faultline.broker.storage.EpochEndOffset;
import io.faultline.broker.storage.PartitionLog;
import io.faultline.broker.storage.TimestampAndOffset;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.protocol.Errors;

/** ListOffsets (v1-v11) and OffsetForLeaderEpoch (v2-v4). */
public final class OffsetApis {
    /** ListOffsets special timestamps beyond latest/earliest/max (KIP-1005, tiered storage): no remote tier here. */
    private static final long EARLIEST_LOCAL_TIMESTAMP = -4L;
    private static final long LATEST_TIERED_TIMESTAMP = -5L;

    /** ListOffsets v4 added the leader epoch to the answer. */
    private static final short FIRST_LEADER_EPOCH_VERSION = 4;

    private final BrokerContext ctx;

    public OffsetApis(BrokerContext ctx) {
        this.ctx = ctx;
    }

    public void listOffsets(Request r) {
        ListOffsetsRequestData req = r.data();
        boolean consumer = req.replicaId() < 0;
        ListOffsetsResponseData resp = new ListOffsetsResponseData().setThrottleTimeMs(0);
        for (ListOffsetsRequestData.ListOffsetsTopic t : req.topics()) {
            ListOffsetsTopicResponse tr = new ListOffsetsTopicResponse().setName(t.name());
            for (ListOffsetsRequestData.ListOffsetsPartition p : t.partitions()) {
                ListOffsetsPartitionResponse pr = new ListOffsetsPartitionResponse()
                        .setPartitionIndex(p.partitionIndex()).setTimestamp(-1).setOffset(-1).setLeaderEpoch(-1);
                tr.partitions().add(pr);
                Optional<Partition> part = ctx.partitions().get(new TopicPartition(t.name(), p.partitionIndex()));
                if (part.isEmpty()) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                try {
                    part.get().validateLeaderEpoch(p.currentLeaderEpoch());
                    part.get().requireLeader();
                    lookup(part.get(), p.timestamp(), consumer, req.isolationLevel() == 1, pr);
                    if (r.version() < FIRST_LEADER_EPOCH_VERSION) pr.setLeaderEpoch(-1); // not in v1-v3
                } catch (ApiException e) {
                    pr.setErrorCode(Errors.forException(e).code());
                }
            }
            resp.topics().add(tr);
        }
        ctx.channel().sendResponse(r, resp);
    }

    private static void lookup(Partition part, long timestamp, boolean consumer, boolean readCommitted,
                               ListOffsetsPartitionResponse pr) {
        PartitionLog log = part.log();
        long bound = !consumer ? log.logEndOffset() : readCommitted ? part.lastStableOffset() : part.highWatermark();
        if (timestamp == PartitionLog.LATEST_TIMESTAMP) {
            pr.setOffset(bound).setLeaderEpoch(part.leaderEpoch());
            return;
        }
        if (timestamp == LATEST_TIERED_TIMESTAMP) return; // nothing tiered: offset -1
        long target = timestamp == EARLIEST_LOCAL_TIMESTAMP ? PartitionLog.EARLIEST_TIMESTAMP : timestamp;
        if (target < PartitionLog.MAX_TIMESTAMP) return; // unknown special value: no offset
        Optional<TimestampAndOffset> found = log.offsetForTimestamp(target);
        if (found.isEmpty()) return;
        TimestampAndOffset f = found.get();
        if (target >= 0 && f.offset() >= bound) return; // not yet committed: invisible to consumers
        pr.setOffset(f.offset()).setTimestamp(f.timestamp()).setLeaderEpoch(f.leaderEpoch().orElse(-1));
    }

    public void offsetForLeaderEpoch(Request r) {
        OffsetForLeaderEpochRequestData req = r.data();
        OffsetForLeaderEpochResponseData resp = new OffsetForLeaderEpochResponseData().setThrottleTimeMs(0);
        for (OffsetForLeaderEpochRequestData.OffsetForLeaderTopic t : req.topics()) {
            OffsetForLeaderTopicResult tr = new OffsetForLeaderTopicResult().setTopic(t.topic());
            for (OffsetForLeaderEpochRequestData.OffsetForLeaderPartition p : t.partitions()) {
                OffsetForLeaderEpochResponseData.EpochEndOffset out = new OffsetForLeaderEpochResponseData.EpochEndOffset()
                        .setPartition(p.partition()).setLeaderEpoch(-1).setEndOffset(-1);
                tr.partitions().add(out);
                Optional<Partition> part = ctx.partitions().get(new TopicPartition(t.topic(), p.partition()));
                if (part.isEmpty()) {
                    out.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                try {
                    part.get().validateLeaderEpoch(p.currentLeaderEpoch());
                    part.get().requireLeader();
                    EpochEndOffset e = part.get().log().endOffsetForEpoch(p.leaderEpoch());
                    out.setLeaderEpoch(e.epoch()).setEndOffset(e.endOffset());
                } catch (ApiException e) {
                    out.setErrorCode(Errors.forException(e).code());
                }
            }
            resp.topics().add(tr);
        }
        ctx.channel().sendResponse(r, resp);
    }
}
