package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Forked BrokerMain processes: killed with SIGKILL mid-stream every acks=all record survives; SIGTERM shuts down
 * cleanly (clean-shutdown marker).
 */
class KillAndRestartTest {
    @TempDir
    Path dir;

    @Test
    void acknowledgedRecordsSurviveKillNine() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path data = Files.createDirectories(dir.resolve("data"));
        Properties props = TestBroker.config(data, port, Map.of());
        Path file = ForkedBroker.writeConfig(props, dir.resolve("server.properties"));
        Path log = dir.resolve("broker-1.log");
        Process broker = ForkedBroker.start(file, log);
        Set<String> acked = ConcurrentHashMap.newKeySet();
        try {
            ForkedBroker.awaitListening(port, broker, log);
            String bootstrap = "127.0.0.1:" + port;
            try (Admin admin = TestBroker.admin(bootstrap)) {
                TestBroker.createTopics(admin, new NewTopic("crash", 2, (short) 1));
            }
            AtomicBoolean stop = new AtomicBoolean();
            try (KafkaProducer<String, String> p = TestBroker.producer(bootstrap, Map.of(ProducerConfig.ACKS_CONFIG,
                    "all", ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 3000, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                    1000, ProducerConfig.LINGER_MS_CONFIG, 1, ProducerConfig.MAX_BLOCK_MS_CONFIG, 2000))) {
                Thread sender = new Thread(() -> {
                    for (int i = 0; !stop.get(); i++) {
                        String v = "v" + i;
                        try {
                            p.send(new ProducerRecord<>("crash", v, v), (md, e) -> {
                                if (e == null) acked.add(v);
                            });
                        } catch (RuntimeException blocked) {
                            // buffer full while the broker is down
                        }
                        if (i % 50 == 0) {
                            try {
                                Thread.sleep(1);
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    }
                });
                sender.start();
                Awaitility.await("2000 records acknowledged").atMost(Duration.ofSeconds(120))
                        .pollInterval(Duration.ofMillis(20)).until(() -> acked.size() >= 2000);
                broker.destroyForcibly().waitFor(); // SIGKILL mid-stream
                Thread.sleep(500);
                stop.set(true);
                sender.join(10_000);
            }
            Path log2 = dir.resolve("broker-2.log");
            broker = ForkedBroker.start(file, log2);
            ForkedBroker.awaitListening(port, broker, log2);
            Set<String> seen = new HashSet<>();
            try (KafkaConsumer<String, String> c = TestBroker.consumer(bootstrap, Map.of())) {
                Set<TopicPartition> tps = Set.of(new TopicPartition("crash", 0), new TopicPartition("crash", 1));
                c.assign(tps);
                c.seekToBeginning(tps);
                try {
                    Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> {
                        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) seen.add(r.value());
                        return seen.containsAll(acked);
                    });
                } catch (ConditionTimeoutException incomplete) {
                    // the assertion below names what is missing
                }
            }
            Set<String> missing = new HashSet<>(acked);
            missing.removeAll(seen);
            assertTrue(missing.isEmpty(), "acknowledged records lost: " + missing.size() + " of " + acked.size());
        } finally {
            broker.destroyForcibly().waitFor();
        }
    }

    @Test
    void sigtermShutsDownCleanly() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path data = Files.createDirectories(dir.resolve("data"));
        Path file = ForkedBroker.writeConfig(TestBroker.config(data, port, Map.of()), dir.resolve("server.properties"));
        Path log = dir.resolve("broker-term.log");
        Process broker = ForkedBroker.start(file, log);
        try {
            ForkedBroker.awaitListening(port, broker, log);
            String bootstrap = "127.0.0.1:" + port;
            try (KafkaProducer<String, String> p = TestBroker.producer(bootstrap, Map.of(ProducerConfig.ACKS_CONFIG,
                    "all"))) {
                for (int i = 0; i < 100; i++) p.send(new ProducerRecord<>("term", "k", "v" + i)).get();
            }
            broker.destroy(); // SIGTERM
            assertTrue(broker.waitFor(120, java.util.concurrent.TimeUnit.SECONDS), "exits on SIGTERM");
            assertTrue(Files.exists(data.resolve(".kafka_cleanshutdown")), "clean-shutdown marker written");
            Path log2 = dir.resolve("broker-term-2.log");
            broker = ForkedBroker.start(file, log2);
            ForkedBroker.awaitListening(port, broker, log2);
            try (KafkaConsumer<String, String> c = TestBroker.consumer(bootstrap, Map.of())) {
                TopicPartition tp = new TopicPartition("term", 0);
                c.assign(Set.of(tp));
                c.seekToBeginning(Set.of(tp));
                int[] n = {0};
                try {
                    Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> (n[0] += c.poll(Duration.ofMillis(200)).count()) >= 100);
                } catch (ConditionTimeoutException incomplete) {
                    // the assertion below says how many came back
                }
                assertTrue(n[0] == 100, "all records back after a clean restart: " + n[0]);
            }
        } finally {
            broker.destroyForcibly().waitFor();
        }
    }
}
