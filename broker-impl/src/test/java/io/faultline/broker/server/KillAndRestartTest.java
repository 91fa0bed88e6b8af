package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.net.Socket;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Forked BrokerMain processes: killed with SIGKILL mid-stream every acks=all record survives; SIGTERM shuts down
 * cleanly (clean-shutdown marker).
 */
class KillAndRestartTest {
    @TempDir
    Path dir;

    private Process fork(Path props, Path log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                "io.faultline.broker.BrokerMain", props.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static void awaitListening(int port, Process p) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < deadline) {
            assertTrue(p.isAlive(), "broker process died");
            try (Socket s = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new AssertionError("broker did not start listening");
    }

    @Test
    void acknowledgedRecordsSurviveKillNine() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path data = Files.createDirectories(dir.resolve("data"));
        Properties props = TestBroker.config(data, port, Map.of());
        Path file = dir.resolve("server.properties");
        try (Writer w = Files.newBufferedWriter(file)) {
            props.store(w, null);
        }
        Process broker = fork(file, dir.resolve("broker-1.log"));
        Set<String> acked = ConcurrentHashMap.newKeySet();
        try {
            awaitListening(port, broker);
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
                long until = System.currentTimeMillis() + 10_000;
                while (acked.size() < 2000 && System.currentTimeMillis() < until) Thread.sleep(20);
                broker.destroyForcibly().waitFor(); // SIGKILL mid-stream
                Thread.sleep(500);
                stop.set(true);
                sender.join(10_000);
            }
            assertTrue(acked.size() >= 2000, "records were acknowledged before the kill: " + acked.size());
            broker = fork(file, dir.resolve("broker-2.log"));
            awaitListening(port, broker);
            Set<String> seen = new HashSet<>();
            try (KafkaConsumer<String, String> c = TestBroker.consumer(bootstrap, Map.of())) {
                Set<TopicPartition> tps = Set.of(new TopicPartition("crash", 0), new TopicPartition("crash", 1));
                c.assign(tps);
                c.seekToBeginning(tps);
                long deadline = System.currentTimeMillis() + 30_000;
                while (!seen.containsAll(acked) && System.currentTimeMillis() < deadline) {
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) seen.add(r.value());
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
        Path file = dir.resolve("server.properties");
        try (Writer w = Files.newBufferedWriter(file)) {
            TestBroker.config(data, port, Map.of()).store(w, null);
        }
        Process broker = fork(file, dir.resolve("broker-term.log"));
        try {
            awaitListening(port, broker);
            String bootstrap = "127.0.0.1:" + port;
            try (KafkaProducer<String, String> p = TestBroker.producer(bootstrap, Map.of(ProducerConfig.ACKS_CONFIG,
                    "all"))) {
                for (int i = 0; i < 100; i++) p.send(new ProducerRecord<>("term", "k", "v" + i)).get();
            }
            broker.destroy(); // SIGTERM
            assertTrue(broker.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "exits on SIGTERM");
            assertTrue(Files.exists(data.resolve(".kafka_cleanshutdown")), "clean-shutdown marker written");
            broker = fork(file, dir.resolve("broker-term-2.log"));
            awaitListening(port, broker);
            try (KafkaConsumer<String, String> c = TestBroker.consumer(bootstrap, Map.of())) {
                TopicPartition tp = new TopicPartition("term", 0);
                c.assign(Set.of(tp));
                c.seekToBeginning(Set.of(tp));
                int n = 0;
                long deadline = System.currentTimeMillis() + 20_000;
                while (n < 100 && System.currentTimeMillis() < deadline) n += c.poll(Duration.ofMillis(200)).count();
                assertTrue(n == 100, "all records back after a clean restart: " + n);
            }
        } finally {
            broker.destroyForcibly().waitFor();
        }
    }
}
