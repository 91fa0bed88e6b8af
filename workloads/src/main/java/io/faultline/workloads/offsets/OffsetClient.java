package io.faultline.workloads.offsets;

import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Client;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One worker's clients. A write is exactly one OffsetCommit request ({@link OneShotOffsetCommitter}: the groups
 * never have members, so the coordinator accepts a memberless commit); a read is OffsetFetch through the Admin
 * client's {@code listConsumerGroupOffsets}, whose re-sends are harmless because a read changes nothing. Each is one
 * call with one outcome, so invoke/complete pair cleanly.
 *
 * <p>Reads are plain OffsetFetch unless {@code requireStable}: Kafka answers a plain one from the coordinator's state
 * at its high watermark, which right after a coordinator failover can lag commits the previous coordinator
 * acknowledged; a require-stable one is answered from the latest state once the high watermark reaches it (Kafka
 * 4.x's GroupCoordinatorService.fetchOffsets). Kafka's own consumer (both implementations) always asks for stable
 * offsets where the broker knows the flag (OffsetFetch v7, Kafka 2.5); the Admin client does not by default.
 */
public final class OffsetClient implements Client {
    private final Admin admin;
    private final OneShotOffsetCommitter committer;
    private final String topic;
    private final String groupPrefix;
    private final int timeoutMs;
    private final boolean requireStable;

    public OffsetClient(String bootstrap, String topic, String groupPrefix, int timeoutMs) {
        this(bootstrap, topic, groupPrefix, timeoutMs, false);
    }

    public OffsetClient(String bootstrap, String topic, String groupPrefix, int timeoutMs, boolean requireStable) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.max(1000, timeoutMs / 2));
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
        p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 100);
        // the committer first: it refuses a bad bootstrap string before an Admin client exists to leak
        this.committer = new OneShotOffsetCommitter(bootstrap, timeoutMs, "faultline-offsets-writer");
        this.admin = Admin.create(p);
        this.topic = topic;
        this.groupPrefix = groupPrefix;
        this.timeoutMs = timeoutMs;
        this.requireStable = requireStable;
    }

    @Override
    public Completion invoke(String f, OpValue value) {
        OffsetOps.KeyValue kv = OffsetOps.KeyValue.parse(value);
        TopicPartition tp = new TopicPartition(topic, OffsetOps.partition(kv.key()));
        String group = OffsetOps.groupName(groupPrefix, kv.key());
        try {
            if (OffsetOps.WRITE.equals(f)) {
                return OffsetErrors.completion(value, kv.text(), committer.commit(group, tp, kv.value()));
            }
            if (OffsetOps.READ.equals(f)) {
                Map<TopicPartition, OffsetAndMetadata> got = admin.listConsumerGroupOffsets(group,
                                new ListConsumerGroupOffsetsOptions().timeoutMs(timeoutMs).requireStable(requireStable))
                        .partitionsToOffsetAndMetadata().get(timeoutMs + 2000L, TimeUnit.MILLISECONDS);
                OffsetAndMetadata om = got.get(tp);
                return Client.Completion.ok(new OffsetOps.KeyValue(kv.key(), om == null ? null : om.offset()).readResult());
            }
            return new Completion(OpType.FAIL, value, "unknown op " + f);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OffsetErrors.completion(f, value, e);
        } catch (ExecutionException e) {
            return OffsetErrors.completion(f, value, e.getCause() == null ? e : e.getCause());
        } catch (Exception e) {
            return OffsetErrors.completion(f, value, e);
        }
    }

    @Override
    public void close() {
        committer.close();
        admin.close(java.time.Duration.ofSeconds(2));
    }
}
