package io.faultline.broker.replication;

import io.faultline.broker.storage.EpochEndOffset;
import io.faultline.broker.storage.LogReadResult;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * The leader's answers to its followers: Fetch from a replica (up to the log end, diverging epoch, follower
 * progress), ListOffsets from a replica (log end / log start, not the high watermark) and OffsetForLeaderEpoch
 * from the epoch cache. Stale or future epochs get FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH.
 */
public final class ReplicaRequestHandler {
    /** This node's leaderships, by partition, and topic names by id. */
    public interface Leaders {
        Optional<LeaderState> leader(TopicPartition tp);

        Optional<String> topicName(Uuid topicId);
    }

    private final Leaders leaders;

    public ReplicaRequestHandler(Leaders leaders) {
        this.leaders = leaders;
    }

    /** Dispatches the three replica APIs (for in-JVM endpoints and the replication listener). */
    public ApiMessage handle(ApiKeys key, short version, ApiMessage request) {
        return switch (key) {
            case FETCH -> fetch((FetchRequestData) request, version);
            case LIST_OFFSETS -> listOffsets((ListOffsetsRequestData) request);
            case OFFSET_FOR_LEADER_EPOCH -> offsetForLeaderEpoch((OffsetForLeaderEpochRequestData) request);
            default -> throw new IllegalArgumentException("not a replica API: " + key);
        };
    }

    public FetchResponseData fetch(FetchRequestData req, short version) {
        int replicaId = version >= 15 ? req.replicaState().replicaId() : req.replicaId();
        FetchResponseData resp = new FetchResponseData().setErrorCode(Errors.NONE.code()).setSessionId(0);
        int remaining = req.maxBytes() <= 0 ? Integer.MAX_VALUE : req.maxBytes();
        for (FetchRequestData.FetchTopic ft : req.topics()) {
            FetchResponseData.FetchableTopicResponse tr = new FetchResponseData.FetchableTopicResponse()
                    .setTopicId(ft.topicId()).setTopic(ft.topic());
            resp.responses().add(tr);
            Optional<String> name = version >= 13 ? leaders.topicName(ft.topicId()) : Optional.of(ft.topic());
            for (FetchRequestData.FetchPartition fp : ft.partitions()) {
                FetchResponseData.PartitionData pd = new FetchResponseData.PartitionData()
                        .setPartitionIndex(fp.partition()).setHighWatermark(-1).setLastStableOffset(-1)
                        .setLogStartOffset(-1).setPreferredReadReplica(-1).setRecords(MemoryRecords.EMPTY);
                tr.partitions().add(pd);
                if (name.isEmpty()) {
                    pd.setErrorCode((version >= 13 ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION).code());
                    continue;
                }
                Optional<LeaderState> leader = leaders.leader(new TopicPartition(name.get(), fp.partition()));
                if (leader.isEmpty()) {
                    pd.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
                    continue;
                }
                remaining -= fillPartition(leader.get(), replicaId, fp, pd, remaining);
            }
        }
        return resp;
    }

    /** Reads one partition for a follower into {@code pd}; returns the bytes used. */
    public static int fillPartition(LeaderState leader, int replicaId, FetchRequestData.FetchPartition fp,
                                    FetchResponseData.PartitionData pd, int remainingBytes) {
        try {
            int limit = Math.max(1, Math.min(fp.partitionMaxBytes(), remainingBytes));
            LeaderState.FollowerRead r = leader.readForFollower(replicaId, fp.fetchOffset(), fp.lastFetchedEpoch(),
                    fp.currentLeaderEpoch(), limit, fp.logStartOffset());
            pd.setHighWatermark(r.highWatermark()).setLastStableOffset(r.highWatermark())
                    .setLogStartOffset(r.logStartOffset());
            if (r.divergingEpoch().isPresent()) {
                EpochEndOffset d = r.divergingEpoch().get();
                pd.setDivergingEpoch(new FetchResponseData.EpochEndOffset().setEpoch(d.epoch()).setEndOffset(d.endOffset()));
                return 0;
            }
            LogReadResult read = r.read().orElseThrow();
            pd.setRecords(read.records());
            return read.records().sizeInBytes();
        } catch (ApiException e) {
            pd.setErrorCode(Errors.forException(e).code());
            return 0;
        }
    }

    public ListOffsetsResponseData listOffsets(ListOffsetsRequestData req) {
        ListOffsetsResponseData resp = new ListOffsetsResponseData();
        for (ListOffsetsRequestData.ListOffsetsTopic t : req.topics()) {
            ListOffsetsResponseData.ListOffsetsTopicResponse tr = new ListOffsetsResponseData.ListOffsetsTopicResponse()
                    .setName(t.name());
            resp.topics().add(tr);
            for (ListOffsetsRequestData.ListOffsetsPartition p : t.partitions()) {
                ListOffsetsResponseData.ListOffsetsPartitionResponse pr = new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                        .setPartitionIndex(p.partitionIndex()).setTimestamp(-1).setOffset(-1).setLeaderEpoch(-1);
                tr.partitions().add(pr);
                Optional<LeaderState> leader = leaders.leader(new TopicPartition(t.name(), p.partitionIndex()));
                if (leader.isEmpty()) {
                    pr.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
                    continue;
                }
                try {
                    leader.get().validateLeaderEpoch(p.currentLeaderEpoch());
                    long off = p.timestamp() == -2L ? leader.get().logStartOffset() : leader.get().logEndOffset();
                    if (p.timestamp() != -1L && p.timestamp() != -2L) {
                        pr.setErrorCode(Errors.INVALID_REQUEST.code());
                        continue;
                    }
                    pr.setOffset(off).setLeaderEpoch(leader.get().leaderEpoch());
                } catch (ApiException e) {
                    pr.setErrorCode(Errors.forException(e).code());
                }
            }
        }
        return resp;
    }

    public OffsetForLeaderEpochResponseData offsetForLeaderEpoch(OffsetForLeaderEpochRequestData req) {
        OffsetForLeaderEpochResponseData resp = new OffsetForLeaderEpochResponseData();
        for (OffsetForLeaderEpochRequestData.OffsetForLeaderTopic t : req.topics()) {
            OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult tr =
                    new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(t.topic());
            resp.topics().add(tr);
            for (OffsetForLeaderEpochRequestData.OffsetForLeaderPartition p : t.partitions()) {
                OffsetForLeaderEpochResponseData.EpochEndOffset out = new OffsetForLeaderEpochResponseData.EpochEndOffset()
                        .setPartition(p.partition()).setLeaderEpoch(-1).setEndOffset(-1);
                tr.partitions().add(out);
                Optional<LeaderState> leader = leaders.leader(new TopicPartition(t.topic(), p.partition()));
                if (leader.isEmpty()) {
                    out.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
                    continue;
                }
                try {
                    leader.get().validateLeaderEpoch(p.currentLeaderEpoch());
                    EpochEndOffset e = leader.get().endOffsetForEpoch(p.leaderEpoch());
                    out.setLeaderEpoch(e.epoch()).setEndOffset(e.endOffset());
                } catch (ApiException e) {
                    out.setErrorCode(Errors.forException(e).code());
                }
            }
        }
        return resp;
    }

    /** Topic-id lookup helper for callers that keep a name→id map. */
    public static Leaders of(Function<TopicPartition, Optional<LeaderState>> leader,
                             Function<Uuid, Optional<String>> names) {
        return new Leaders() {
            @Override
            public Optional<LeaderState> leader(TopicPartition tp) {
                return leader.apply(tp);
            }

            @Override
            public Optional<String> topicName(Uuid topicId) {
                return names.apply(topicId);
            }
        };
    }
}
