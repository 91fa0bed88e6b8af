package io.faultline.workloads.topics;

import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Client;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One worker's Admin client for the topics workload. A creation, deletion or growth that is acknowledged is ok; any
 * other outcome is indeterminate (info), refusals included: the Admin client and a forwarding broker resend requests,
 * so a refusal may answer a copy of a request that took effect. A description is a read: ok with the partition count
 * (0 for an unknown topic), or fail (it changed nothing).
 */
public final class TopicClient implements Client {
    private final Admin admin;
    private final String prefix;
    private final short replicationFactor;
    private final int timeoutMs;

    public TopicClient(String bootstrap, String prefix, short replicationFactor, int timeoutMs) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, prefix + "-topics");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.max(1000, timeoutMs / 2));
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
        p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 100);
        this.admin = Admin.create(p);
        this.prefix = prefix;
        this.replicationFactor = replicationFactor;
        this.timeoutMs = timeoutMs;
    }

    @Override
    public Completion invoke(String f, OpValue value) {
        TopicOps.KeyValue kv = TopicOps.KeyValue.parse(value);
        String topic = TopicOps.topic(prefix, kv.key());
        try {
            switch (f) {
                case TopicOps.CREATE -> wait(admin.createTopics(List.of(new NewTopic(topic, kv.partitions(), replicationFactor))).all());
                case TopicOps.DELETE -> wait(admin.deleteTopics(List.of(topic)).all());
                case TopicOps.GROW -> wait(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(kv.partitions()))).all());
                case TopicOps.DESCRIBE -> {
                    return Completion.ok(new TopicOps.KeyValue(kv.key(), partitions(topic)).text("describe"));
                }
                default -> {
                    return new Completion(OpType.FAIL, value, "unknown op " + f);
                }
            }
            return Completion.ok(value);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Completion(TopicOps.DESCRIBE.equals(f) ? OpType.FAIL : OpType.INFO, value, "interrupted");
        } catch (Exception e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            return new Completion(TopicOps.DESCRIBE.equals(f) ? OpType.FAIL : OpType.INFO, value,
                    cause.getClass().getSimpleName() + ": " + cause.getMessage());
        }
    }

    private void wait(org.apache.kafka.common.KafkaFuture<Void> f) throws Exception {
        f.get(timeoutMs + 2000L, TimeUnit.MILLISECONDS);
    }

    private int partitions(String topic) throws Exception {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(timeoutMs + 2000L, TimeUnit.MILLISECONDS)
                    .get(topic).partitions().size();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) return 0;
            throw e;
        }
    }

    @Override
    public void close() {
        admin.close(java.time.Duration.ofSeconds(2));
    }
}
