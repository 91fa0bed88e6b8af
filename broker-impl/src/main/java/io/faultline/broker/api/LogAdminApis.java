package io.faultline.broker.api;

import io.faultline.broker.metadata.TopicImage;
import io.faultline.broker.network.Request;
import io.faultline.broker.partition.Partition;
import io.faultline.broker.storage.PartitionLog;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.util.List;
import java.util.Optional;
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
     * Raises each partition's log start offset (leader only; offset -1 = high watermark; beyond the high watermark
     * OFFSET_OUT_OF_RANGE; compacted topics POLICY_VIOLATION and internal ones INVALID_TOPIC_EXCEPTION, as Kafka).
     * One node holds every replica, so the low watermark is the new log start offset at once.
     */
    public void deleteRecords(Request r) {
        DeleteRecordsRequestData req = r.data();
        DeleteRecordsResponseData resp = new DeleteRecordsResponseData().setThrottleTimeMs(0);
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
                Optional<Partition> part = t.name() == null ? Optional.empty()
                        : ctx.partitions().get(new TopicPartition(t.name(), p.partitionIndex()));
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
                        log.maybeIncrementLogStartOffset(p.offset() == HIGH_WATERMARK ? part.get().highWatermark()
                                : p.offset());
                        pr.setLowWatermark(log.logStartOffset());
                    } catch (ApiException e) {
                        pr.setErrorCode(Errors.forException(e).code());
                    }
                }
            }
        }
        ctx.channel().sendResponse(r, resp);
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
