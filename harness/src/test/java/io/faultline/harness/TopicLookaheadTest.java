package io.faultline.harness;

import io.faultline.docker.DockerBacked;
import io.faultline.docker.sut.BrokerImpl;
import io.faultline.docker.sut.KafkaAdmin;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.docker.sut.SutCluster;
import io.faultline.workloads.queue.QueueSettings;
import io.faultline.workloads.queue.QueueWorkloadConfig;
import io.faultline.workloads.queue.TopicManager;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The queue workload's TopicManager against a real broker: the topics of the keys that will replace retired ones
 * exist before any op needs them, so a key rotation does not create a topic on an op's time (possibly mid-fault).
 */
@DockerBacked
class TopicLookaheadTest {
    @Test
    void ensureCreatesTheNeededTopicsAndAsksForTheNextKeysAhead() throws Exception {
        try (SutCluster cluster = SutCluster.start(new BrokerImpl(KafkaSettings.defaults().withReplicationFactor(1)
                .withMinInsyncReplicas(1)), 1, Duration.ofMinutes(3))) {
            QueueSettings s = QueueSettings.defaults().withTopics(1, (short) 1, true);
            var cfg = QueueWorkloadConfig.defaults(cluster.bootstrapServers(), "ahead").withSettings(s);
            try (TopicManager topics = new TopicManager(cfg); Admin admin = KafkaAdmin.create(cluster.bootstrapServers())) {
                topics.ensure(List.of(0, 1));
                Set<String> now = admin.listTopics().names().get();
                assertTrue(now.containsAll(topics.mapping().topicsOf(List.of(0, 1))), "needed topics exist: " + now);
                Set<String> ahead = topics.mapping().topicsOf(List.of(2, 3, 4, 5));
                await().atMost(Duration.ofSeconds(60)).until(() -> admin.listTopics().names().get().containsAll(ahead));
                assertFalse(admin.listTopics().names().get().contains(topics.mapping().topicOf(6)),
                        "only the next " + 4 + " keys are created ahead");
            }
        }
    }
}
