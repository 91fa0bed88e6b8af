package io.faultline.harness;

import io.faultline.docker.DockerBacked;
import io.faultline.docker.Node;
import io.faultline.docker.sut.ApacheKafka;
import io.faultline.docker.sut.BrokerImpl;
import io.faultline.docker.sut.KafkaAdmin;
import io.faultline.docker.sut.KafkaProtocolSut;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.docker.sut.SutCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Apache Kafka 4.4 defect a default run found on 6 December 2026 (docs/versions.md), reproduced step by step, and
 * broker-impl under the same steps (-Pscenarios: about 3 minutes). A topic with small indexes (segment.index.bytes
 * 1024, index.interval.bytes 256, both valid configs); a follower is stopped while the leader takes many small
 * batches, one per append, so the leader's index fills and its segments roll; the follower, started again, catches
 * up in fetches of many batches (an index entry per batch, with no room check inside one append in Kafka 4.4); killed
 * with kill -9 before its recovery point is checkpointed and started again, it recovers those segments, again an
 * index entry per batch. Kafka overflows the index ("Attempt to append to a full index") and the broker exits;
 * broker-impl takes no entry on a full index and serves again.
 */
@DockerBacked
@EnabledIfSystemProperty(named = "faultline.scenarios", matches = "true")
class IndexRecoveryDockerTest {
    private static final String TOPIC = "small-index";
    private static final Map<String, String> SMALL_INDEXES = Map.of("segment.index.bytes", "1024",
            "index.interval.bytes", "256", "segment.bytes", "1048576");

    @Test
    void aKafkaFollowerThatCaughtUpInLargeFetchesCannotRecoverItsSegmentsAfterACrash() throws Exception {
        var outcome = crashAFollowerThatCaughtUp(new ApacheKafka(KafkaSettings.defaults().withMinInsyncReplicas(1)));
        assertTrue(!outcome.servesAgain() && outcome.log().contains("Attempt to append to a full index"),
                "expected Kafka 4.4.0's follower to fail its log recovery; it " + (outcome.servesAgain() ? "serves again" : "is down")
                        + ":\n" + tail(outcome.log()));
    }

    @Test
    void aBrokerImplFollowerUnderTheSameStepsServesAgain() throws Exception {
        var outcome = crashAFollowerThatCaughtUp(new BrokerImpl(KafkaSettings.defaults().withMinInsyncReplicas(1)));
        assertTrue(outcome.servesAgain(), "broker-impl's follower did not come back:\n" + tail(outcome.log()));
    }

    private record Outcome(boolean servesAgain, String log) {}

    private static Outcome crashAFollowerThatCaughtUp(KafkaProtocolSut sut) throws Exception {
        try (SutCluster cluster = SutCluster.start(sut, 3, Duration.ofMinutes(3));
             Admin admin = KafkaAdmin.create(cluster.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3).configs(SMALL_INDEXES))).all().get(60, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(60)).until(() -> sut.leaderOf(cluster.cluster(), TOPIC, 0).isPresent());
            Node leader = sut.leaderOf(cluster.cluster(), TOPIC, 0).orElseThrow();
            Node follower = cluster.nodes().stream().filter(n -> !n.name().equals(leader.name())).findFirst().orElseThrow();
            int followerId = Integer.parseInt(follower.name().substring(1));
            follower.stop(Duration.ofSeconds(10));
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(cluster.bootstrapServers()))) {
                String value = "v".repeat(300); // a batch each, past index.interval.bytes: the leader's index fills
                for (int i = 0; i < 3_000; i++) producer.send(new ProducerRecord<>(TOPIC, 0, null, value)).get(30, TimeUnit.SECONDS);
            }
            follower.start();
            try {
                await().atMost(Duration.ofSeconds(90)).until(() -> isr(admin).contains(followerId));
            } catch (org.awaitility.core.ConditionTimeoutException stuck) {
                // Kafka 4.4 adds an index entry per batch of an append without checking room: the catch-up append
                // itself may overflow (after the bytes are written) and stop the partition's replication there
            }
            follower.kill(); // before the 60 s recovery-point checkpoint: the caught-up segments are recovered at start
            follower.start();
            boolean back;
            try {
                await().atMost(Duration.ofSeconds(90)).until(() -> !follower.isRunning() || isr(admin).contains(followerId));
                back = follower.isRunning() && isr(admin).contains(followerId);
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                back = false;
            }
            return new Outcome(back, follower.consoleTail(200_000));
        }
    }

    private static List<Integer> isr(Admin admin) throws Exception {
        return admin.describeTopics(List.of(TOPIC)).allTopicNames().get(10, TimeUnit.SECONDS).get(TOPIC).partitions().get(0)
                .isr().stream().map(org.apache.kafka.common.Node::id).toList();
    }

    private static Properties producerProps(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return p;
    }

    private static String tail(String log) {
        return log.length() <= 4000 ? log : log.substring(log.length() - 4000);
    }
}
