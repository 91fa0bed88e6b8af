package io.faultline.docker.sut;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.TopicExistsException;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Admin clients with short timeouts and backoffs, so harness queries fail fast during faults. */
public final class KafkaAdmin {
    private KafkaAdmin() {}

    public static Admin create(String bootstrapServers) {
        return Admin.create(io.faultline.kafkacompat.AdminClusterAdmin.properties(bootstrapServers));
    }

    /**
     * Creates the topics and waits up to timeout for each, idempotently. The admin client retries a CreateTopics
     * whose answer timed out (a busy machine, a fault), and the retry meets the topic its first attempt made:
     * TopicExistsException then counts as success when the existing topic has the partitions and replication
     * factor asked for; a topic that exists otherwise is an IllegalStateException.
     */
    public static void createTopics(Admin admin, Duration timeout, NewTopic... topics)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<String, KafkaFuture<Void>> created = admin.createTopics(List.of(topics)).values();
        for (NewTopic wanted : topics) {
            try {
                created.get(wanted.name()).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) throw e;
                TopicDescription d = admin.describeTopics(List.of(wanted.name())).allTopicNames()
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(wanted.name());
                int replicas = d.partitions().get(0).replicas().size();
                boolean same = (wanted.numPartitions() < 0 || d.partitions().size() == wanted.numPartitions())
                        && (wanted.replicationFactor() < 0 || replicas == wanted.replicationFactor());
                if (!same) {
                    throw new IllegalStateException("topic " + wanted.name() + " already exists with "
                            + d.partitions().size() + " partitions and replication " + replicas + ", not as asked: "
                            + wanted, e);
                }
            }
        }
    }
}
