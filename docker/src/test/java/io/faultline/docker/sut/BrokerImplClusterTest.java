package io.faultline.docker.sut;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;

/**
 * broker-impl as a three-node cluster in containers, seen through the real Admin client: the controller quorum places
 * an RF 3 topic on all three brokers, names its active controller, and survives a kill -9 of that controller.
 */
class BrokerImplClusterTest {
    @Test
    void threeNodesShareMetadataAndSurviveAKilledController() throws Exception {
        // The nodes' logs and data stay in target/ after the run, so a failure can be read from them.
        Path collected = NodeLogs.freshDir("BrokerImplClusterTest");
        var kafka = SutCluster.start(new BrokerImpl(KafkaSettings.defaults()), 3, Duration.ofSeconds(120));
        try (Admin admin = KafkaAdmin.create(kafka.bootstrapServers())) {
            KafkaAdmin.createTopics(admin, Duration.ofSeconds(60), new NewTopic("rf3", 1, (short) 3));
            TopicPartitionInfo p = await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> partition(admin, "rf3"),
                    info -> info.isr().size() == 3);
            assertEquals(3, p.replicas().size());
            assertTrue(p.leader() != null && !p.leader().isEmpty(), "one leader");
            assertTrue(p.isr().contains(p.leader()));

            int controller = admin.describeCluster().controller().get(30, TimeUnit.SECONDS).id();
            assertTrue(controller >= 1 && controller <= 3, "the active controller is a voter: " + controller);
            var sut = (BrokerImpl) kafka.sut();
            assertEquals("n" + controller, sut.activeController(kafka.cluster()).orElseThrow().name());

            kafka.node("n" + controller).kill();
            // Another voter takes over within a few seconds, and topic creation works again.
            int next = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions().until(() -> admin.describeCluster().controller().get(5, TimeUnit.SECONDS).id(),
                            id -> id != controller && id >= 1 && id <= 3);
            assertNotEquals(controller, next);
            // A retried create may find the topic made by an attempt whose answer timed out: that counts too, if
            // the topic is the one asked for (KafkaAdmin.createTopics).
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                    .until(() -> {
                        KafkaAdmin.createTopics(admin, Duration.ofSeconds(10), new NewTopic("after-failover", 1, (short) 2));
                        return true;
                    });
            // Brokers apply committed metadata asynchronously (as Kafka's do): the broker that answers the
            // describe may learn of the new topic a moment after the controller committed it.
            TopicPartitionInfo created = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions().until(() -> partition(admin, "after-failover"), info -> info.leader() != null);
            assertEquals(2, created.replicas().size());
        } finally {
            kafka.teardown(collected);
        }
    }

    static TopicPartitionInfo partition(Admin admin, String topic) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
        return d.partitions().get(0);
    }
}
