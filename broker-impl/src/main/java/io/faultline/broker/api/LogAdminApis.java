package io.faultline.broker.api;

import io.faultline.broker.metadata.TopicImage;
import io.faultline.broker.network.Request;
import io.faultline.broker.partition.Partition;
import io.faultline.broker.purgatory.DelayedOperation;
import io.faultline.broker.replication.LeaderState;
import io.faultline.broker.storage.PartitionLog;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsPartition;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsTopic;
import org.apache.kafka.common.protocol.Errors;

/** DeleteRecords ({@code kafka-delete-records}) and DescribeLogDirs ({@code kafka-log-dirs}) on the one log dir. */
public final class LogAdminApis {
    /** DeleteRecords' offset meaning "up to the high watermark". */
    private static final long HIGH_WATERMARK = -1L;

    private final BrokerContext ctx;

    public LogAdminApis(BrokerContext ctx) {
        this.ctx = ctx;
    }

    /**
     * DeleteRecords as Kafka's leader answers it (KIP-107): the leader's log start moves at once, and the answer waits
     * until the partition's {@linkplain LeaderState#lowWatermark low watermark} (every live follower that has the
     * high watermark took the new start from its fetches) reaches the asked offset, at most the request's timeout
     * (then REQUEST_TIMED_OUT). Answered from the leader alone, a follower that kept the old start would serve the
     * deleted records again once elected (seen in a Faultline run: log start 407 answered, then 24 after failover).
     */
    public void deleteRecords(Request r) {
        DeleteRecordsRequestData req = r.data();
        DeleteRecordsResponseData resp = new DeleteRecordsResponseData().setThrottleTimeMs(0);
        Map<TopicPartition, Long> targets = new LinkedHashMap<>();
        Map<TopicPartition, DeleteRecordsPartitionResult> waiting = new HashMap<>();
        for (DeleteRecordsRequestData.DeleteRecordsTopic t : req.topics()) {
            DeleteRecordsTopicResult tr = resp.topics().find(t.name());
            if (tr == null) {
                tr = new DeleteRecordsTopicResult().setName(t.name());
                resp.topics().add(tr);
            }
            for (DeleteRecordsRequestData.DeleteRecordsPartition p : t.partitions()) {
                if (tr.partitions().find(p.partitionIndex()) != null) continue;
                DeleteRecordsPartitionResult pr = new DeleteRecordsPartitionResult()
                        .setPartitionIndex(p.partitionIndex()).setLowWatermark(-1);
                tr.partitions().add(pr);
                TopicPartition tp = t.name() == null ? null : new TopicPartition(t.name(), p.partitionIndex());
                Optional<Partition> part = tp == null ? Optional.empty() : ctx.partitions().get(tp);
                if (part.isEmpty()) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else if (Topic.isInternal(t.name())) {
                    pr.setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code());
                } else if (!part.get().isLeader()) {
                    pr.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
                } else if (!part.get().log().config().delete()) {
                    pr.setErrorCode(Errors.POLICY_VIOLATION.code());
                } else if (p.offset() < HIGH_WATERMARK) {
                    pr.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
                } else {
                    try {
                        PartitionLog log = part.get().log();
                        long target = p.offset() == HIGH_WATERMARK ? part.get().highWatermark() : p.offset();
                        log.maybeIncrementLogStartOffset(target);
                        targets.put(tp, target);
                        waiting.put(tp, pr);
                    } catch (ApiException e) {
                        pr.setErrorCode(Errors.forException(e).code());
                    }
                }
            }
        }
        if (targets.isEmpty()) {
            ctx.channel().sendResponse(r, resp);
            return;
        }
        ctx.partitions().watchProduce(new DelayedOperation(Math.max(0, req.timeoutMs())) {
            @Override
            public boolean tryComplete() {
                for (var e : targets.entrySet()) if (lowWatermark(e.getKey()).orElse(Long.MAX_VALUE) < e.getValue()) return false;
                return forceComplete();
            }

            @Override
            protected void onComplete() {
                for (var e : targets.entrySet()) {
                    DeleteRecordsPartitionResult pr = waiting.get(e.getKey());
                    OptionalLong low = lowWatermark(e.getKey());
                    if (low.isEmpty()) pr.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
                    else if (low.getAsLong() < e.getValue()) pr.setErrorCode(Errors.REQUEST_TIMED_OUT.code());
                    else pr.setLowWatermark(low.getAsLong());
                }
                ctx.channel().sendResponse(r, resp);
            }
        }, new ArrayList<>(targets.keySet()));
    }

    /** The partition's low watermark while this node leads it; empty once it does not. */
    private OptionalLong lowWatermark(TopicPartition tp) {
        Optional<Partition> part = ctx.partitions().get(tp);
        if (part.isEmpty() || !part.get().isLeader()) return OptionalLong.empty();
        Optional<LeaderState> leader = ctx.replicationLeader(tp);
        // a node without replication (one broker, in-JVM tests) holds every replica: its own start is the mark
        return OptionalLong.of(leader.isPresent() ? leader.get().lowWatermark() : part.get().log().logStartOffset());
    }

    /** The log dir with each asked-for (or every) partition's size and offset lag (0 for a leader's own log). */
    public void describeLogDirs(Request r) {
        DescribeLogDirsRequestData req = r.data();
        short v = r.version();
        DescribeLogDirsResponseData resp = new DescribeLogDirsResponseData().setThrottleTimeMs(0);
        DescribeLogDirsResult dir = new DescribeLogDirsResult().setErrorCode(Errors.NONE.code())
                .setLogDir(ctx.config().logDir().toAbsolutePath().toString());
        if (v >= 4) {
            try {
                FileStore fs = Files.getFileStore(ctx.config().logDir());
                dir.setTotalBytes(fs.getTotalSpace()).setUsableBytes(fs.getUsableSpace());
            } catch (IOException e) {
                dir.setTotalBytes(-1).setUsableBytes(-1);
            }
        }
        for (TopicImage t : ctx.metadata().image().topicsByName().values()) {
            List<Integer> wanted;
            if (req.topics() == null) {
                wanted = null;
            } else {
                DescribeLogDirsRequestData.DescribableLogDirTopic rt = req.topics().find(t.name());
                if (rt == null) continue;
                wanted = rt.partitions();
            }
            DescribeLogDirsTopic dt = new DescribeLogDirsTopic().setName(t.name());
            for (int p = 0; p < t.partitionCount(); p++) {
                if (wanted != null && !wanted.contains(p)) continue;
                Optional<Partition> part = ctx.partitions().get(new TopicPartition(t.name(), p));
                if (part.isEmpty()) continue;
                PartitionLog log = part.get().log();
                dt.partitions().add(new DescribeLogDirsPartition().setPartitionIndex(p).setPartitionSize(log.size())
                        .setOffsetLag(Math.max(part.get().highWatermark() - log.logEndOffset(), 0))
                        .setIsFutureKey(false));
            }
            if (!dt.partitions().isEmpty()) dir.topics().add(dt);
        }
        resp.results().add(dir);
        ctx.channel().sendResponse(r, resp);
    }
}
