package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.faultline.broker.common.Time;
import io.faultline.broker.config.BrokerConfig;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three combined broker+controller nodes in one JVM on loopback, real clients: a topic with replication factor 3
 * reaches an ISR of three through real replica fetchers; acks=all writes survive the leader's shutdown and a
 * consumer on the survivors reads every acknowledged value once, in order.
 */
class ReplicatedClusterTest {
    @TempDir
    Path dir;

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void acksAllWritesSurviveTheLeadersShutdown() throws Exception {
        int[] client = new int[3];
        int[] ctrl = new int[3];
        for (int i = 0; i < 3; i++) {
            client[i] = freePort();
            ctrl[i] = freePort();
        }
        StringBuilder voters = new StringBuilder();
        for (int i = 0; i < 3; i++) voters.append(i == 0 ? "" : ",").append(i + 1).append("@127.0.0.1:").append(ctrl[i]);
        List<KafkaBroker> brokers = new ArrayList<>();
        ExecutorService starter = Executors.newFixedThreadPool(3);
        try {
            List<Future<KafkaBroker>> started = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Properties p = TestBroker.config(dir.resolve("n" + (i + 1)), client[i], Map.of());
                p.setProperty("node.id", Integer.toString(i + 1));
                p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + client[i] + ",CONTROLLER://127.0.0.1:" + ctrl[i]);
                p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
                p.setProperty("controller.listener.names", "CONTROLLER");
                p.setProperty("inter.broker.listener.name", "PLAINTEXT");
                p.setProperty("controller.quorum.voters", voters.toString());
                p.setProperty("broker.heartbeat.interval.ms", "200");
                p.setProperty("broker.session.timeout.ms", "2000");
                p.setProperty("replica.lag.time.max.ms", "5000");
                p.setProperty("min.insync.replicas", "2");
                BrokerConfig cfg = BrokerConfig.from(p);
                started.add(starter.submit(() -> new KafkaBroker(cfg, Time.SYSTEM).start()));
            }
            for (Future<KafkaBroker> f : started) brokers.add(f.get(90, TimeUnit.SECONDS));
            String bootstrap = "127.0.0.1:" + client[0] + ",127.0.0.1:" + client[1] + ",127.0.0.1:" + client[2];
            try (Admin admin = TestBroker.admin(bootstrap)) {
                TestBroker.createTopics(admin, new NewTopic("r", 1, (short) 3));
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                        describe(admin).partitions().get(0).isr().size() == 3);
            }
            List<String> acked = new ArrayList<>();
            Map<String, Object> pc = new HashMap<>(Map.of(ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60000,
                    ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000));
            try (KafkaProducer<String, String> producer = TestBroker.producer(bootstrap, pc)) {
                send(producer, 0, 100, acked);
                int leader;
                try (Admin admin = TestBroker.admin(bootstrap)) {
                    leader = describe(admin).partitions().get(0).leader().id();
                }
                brokers.get(leader - 1).close(); // controlled shutdown: leadership moves to an ISR member
                send(producer, 100, 200, acked);
            }
            assertEquals(200, acked.size());
            String survivors = bootstrap;
            try (KafkaConsumer<String, String> c = TestBroker.consumer(survivors, Map.of())) {
                TopicPartition tp = new TopicPartition("r", 0);
                c.assign(Set.of(tp));
                c.seekToBeginning(Set.of(tp));
                List<String> got = new ArrayList<>();
                long deadline = System.currentTimeMillis() + 30_000;
                while (got.size() < acked.size() && System.currentTimeMillis() < deadline) {
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) got.add(r.value());
                }
                assertEquals(acked, got, "every acknowledged value once, in order");
            }
        } finally {
            starter.shutdownNow();
            for (KafkaBroker b : brokers) b.close();
        }
    }

    private static TopicDescription describe(Admin admin) throws Exception {
        return admin.describeTopics(List.of("r")).allTopicNames().get(10, TimeUnit.SECONDS).get("r");
    }

    private static void send(KafkaProducer<String, String> producer, int from, int to, List<String> acked)
            throws Exception {
        List<Future<RecordMetadata>> fs = new ArrayList<>();
        for (int i = from; i < to; i++) fs.add(producer.send(new ProducerRecord<>("r", "k", "v" + i)));
        for (int i = from; i < to; i++) {
            fs.get(i - from).get(60, TimeUnit.SECONDS);
            acked.add("v" + i);
        }
    }
}
