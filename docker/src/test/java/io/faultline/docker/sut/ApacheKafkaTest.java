package io.faultline.docker.sut;

import io.faultline.docker.DockerBacked;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Real Apache Kafka 4.4 on five containers (three controllers + two brokers), driven by real clients. */
@DockerBacked
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ApacheKafkaTest {
    private static SutCluster kafka;

    @BeforeAll
    static void start() {
        long t0 = System.nanoTime();
        kafka = SutCluster.start(new ApacheKafka(KafkaSettings.defaults()), 5, Duration.ofSeconds(120));
        System.out.printf("apache-kafka 5 nodes ready in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    }

    @AfterAll
    static void stop() {
        if (kafka != null) kafka.close();
    }

    @Test
    @Order(1)
    void tenThousandAcksAllRecordsReadBackInOrder() throws Exception {
        KafkaTestClients.createTopic(kafka.bootstrapServers(), KafkaTestClients.topic("roundtrip", 3, 2));
        KafkaTestClients.roundTrip(kafka.bootstrapServers(), "roundtrip", 10_000);
    }

    @Test
    @Order(2)
    void killingTheLeaderFailsOverAndTheNodeRejoinsTheIsr() throws Exception {
        String bootstrap = kafka.bootstrapServers();
        KafkaTestClients.createTopic(bootstrap, KafkaTestClients.topic("failover", 3, 2));
        var sut = (ApacheKafka) kafka.sut();
        try (var producer = KafkaTestClients.producer(bootstrap, "all", 30_000)) {
            producer.send(new ProducerRecord<>("failover", 0, null, "before")).get(30, TimeUnit.SECONDS);
            var leader = sut.leaderOf(kafka.cluster(), "failover", 0).orElseThrow();
            long killedAt = System.nanoTime();
            leader.kill();
            producer.send(new ProducerRecord<>("failover", 0, null, "after")).get(40, TimeUnit.SECONDS);
            long failoverMs = (System.nanoTime() - killedAt) / 1_000_000;
            var newLeader = sut.leaderOf(kafka.cluster(), "failover", 0).orElseThrow();
            assertNotEquals(leader.name(), newLeader.name(), "a new leader serves acks=all");
            System.out.printf("failover: kill -9 of %s -> first acks=all success in %d ms%n", leader.name(), failoverMs);

            int id = Integer.parseInt(leader.name().substring(1));
            assertTrue(!KafkaTestClients.isr(bootstrap, "failover", 0).contains(id) || waitFor(() ->
                    !KafkaTestClients.isr(bootstrap, "failover", 0).contains(id), 15_000), "killed node leaves the ISR");
            long restartedAt = System.nanoTime();
            leader.start();
            assertTrue(waitFor(() -> KafkaTestClients.isr(bootstrap, "failover", 0).contains(id), 60_000),
                    leader.name() + " rejoins the ISR after restart");
            System.out.printf("rejoin: %s back in the ISR %d ms after start%n", leader.name(), (System.nanoTime() - restartedAt) / 1_000_000);
        }
    }

    @Test
    @Order(3)
    void acksAllFailsWhenTwoOfThreeReplicasAreDown() throws Exception {
        String bootstrap = kafka.bootstrapServers();
        // replicas on the two broker-only nodes and one controller, so stopping two keeps the quorum
        KafkaTestClients.createTopic(bootstrap, new NewTopic("min-isr", Map.of(0, List.of(3, 4, 5)))
                .configs(Map.of("min.insync.replicas", "2")));
        try (var producer = KafkaTestClients.producer(bootstrap, "all", 15_000)) {
            producer.send(new ProducerRecord<>("min-isr", 0, null, "healthy")).get(30, TimeUnit.SECONDS);
            var leader = ((ApacheKafka) kafka.sut()).leaderOf(kafka.cluster(), "min-isr", 0).orElseThrow();
            List<String> others = List.of("n3", "n4", "n5").stream().filter(n -> !n.equals(leader.name())).toList();
            for (String n : others) kafka.node(n).stop(Duration.ofSeconds(5));
            try {
                ExecutionException e = assertThrows(ExecutionException.class, () ->
                        producer.send(new ProducerRecord<>("min-isr", 0, null, "unsafe")).get(30, TimeUnit.SECONDS));
                Throwable cause = e.getCause();
                assertTrue(cause instanceof NotEnoughReplicasException || cause instanceof NotEnoughReplicasAfterAppendException
                        || cause instanceof TimeoutException, "acks=all must not succeed with one live replica: " + cause);
            } finally {
                for (String n : others) kafka.node(n).start();
            }
        }
    }

    @Test
    @Order(4)
    void teardownCopiesLogsAndDataOfEveryNode(@TempDir Path dir) throws Exception {
        kafka.teardown(dir);
        for (int i = 1; i <= 5; i++) {
            Path node = dir.resolve("n" + i);
            assertTrue(Files.size(node.resolve("logs/server.log")) > 0, "server.log of n" + i);
            assertTrue(Files.isRegularFile(node.resolve("data/kafka/meta.properties")), "meta.properties of n" + i);
            assertTrue(Files.isRegularFile(node.resolve("console.log")), "console.log of n" + i);
        }
        assertTrue(Files.isDirectory(dir.resolve("n3/data/kafka/min-isr-0")), "partition data of n3");
        kafka = null;
    }

    static boolean waitFor(java.util.function.BooleanSupplier condition, long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline) {
            if (condition.getAsBoolean()) return true;
            Thread.sleep(100);
        }
        return condition.getAsBoolean();
    }
}
