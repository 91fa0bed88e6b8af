package io.faultline.broker.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three forked brokers; the coordinator of a transactional id is killed with SIGKILL while its producer has a
 * transaction open. Another broker takes the {@code __transaction_state} partition over, loads it, and every
 * transaction ends: the committed ones are visible whole to read_committed readers, none is visible in part, and
 * the last stable offset reaches the log end (no transaction is left hanging).
 */
class TransactionCoordinatorKillTest {
    private static final String TXN_ID = "kill-me";
    private static final TopicPartition TP = new TopicPartition("tx3", 0);

    @TempDir
    Path dir;


    @Test
    void killingTheCoordinatorMidTransactionLeavesNoTransactionHanging() throws Exception {
        LocalQuorum quorum = LocalQuorum.allocate(3);
        List<Process> brokers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Properties p = quorum.configure(TestBroker.config(dir.resolve("n" + (i + 1)), quorum.clientPort(i), Map.of()), i);
                p.setProperty("broker.heartbeat.interval.ms", "200");
                p.setProperty("broker.session.timeout.ms", "2000");
                p.setProperty("replica.lag.time.max.ms", "5000");
                p.setProperty("min.insync.replicas", "2");
                Path config = ForkedBroker.writeConfig(p, dir.resolve("server-" + (i + 1) + ".properties"));
                brokers.add(ForkedBroker.start(config, dir.resolve("broker-" + (i + 1) + ".log")));
            }
            for (int i = 0; i < 3; i++) {
                ForkedBroker.awaitListening(quorum.clientPort(i), brokers.get(i), dir.resolve("broker-" + (i + 1) + ".log"));
            }
            String bootstrap = quorum.bootstrap();
            Set<Integer> committed = new HashSet<>();
            try (Admin admin = TestBroker.admin(bootstrap)) {
                TestBroker.createTopics(admin, new NewTopic(TP.topic(), 1, (short) 3));
                await().atMost(Duration.ofSeconds(60)).until(() -> admin.describeTopics(List.of(TP.topic()))
                        .allTopicNames().get().get(TP.topic()).partitions().get(0).isr().size() == 3);
                KafkaProducer<String, String> producer = producer(bootstrap);
                try {
                    for (int i = 0; i < 8; i++) {
                        producer.beginTransaction();
                        producer.send(new ProducerRecord<>(TP.topic(), 0, null, i + "a"));
                        producer.send(new ProducerRecord<>(TP.topic(), 0, null, i + "b"));
                        producer.flush();
                        if (i == 3) {
                            int coordinator = coordinatorOf(admin);
                            Process victim = brokers.get(coordinator - 1);
                            victim.destroyForcibly(); // SIGKILL: no controlled shutdown, no clean close
                            assertTrue(victim.waitFor(30, TimeUnit.SECONDS));
                        }
                        try {
                            producer.commitTransaction();
                            committed.add(i);
                        } catch (ProducerFencedException e) {
                            throw e; // nothing else uses this transactional id
                        } catch (KafkaException e) {
                            // The commit's fate is unknown to this client: a new instance resolves it (it aborts an
                            // open transaction, or finds it finished), the test only checks all-or-nothing for it.
                            producer.close(Duration.ZERO);
                            producer = producer(bootstrap);
                        }
                    }
                } finally {
                    producer.close();
                }
                // No transaction is left open: the last stable offset reaches the log end.
                await().atMost(Duration.ofSeconds(90)).until(() -> latest(admin, IsolationLevel.READ_COMMITTED)
                        == latest(admin, IsolationLevel.READ_UNCOMMITTED));
            }
            List<String> visible = readCommitted(bootstrap);
            for (int i = 0; i < 8; i++) {
                boolean a = visible.contains(i + "a");
                boolean b = visible.contains(i + "b");
                assertEquals(a, b, "transaction " + i + " is visible whole or not at all: " + visible);
                if (committed.contains(i)) assertTrue(a, "acknowledged commit " + i + " is visible: " + visible);
            }
            assertTrue(committed.size() >= 7, "only the transaction open at the kill may have been lost: " + committed);
        } finally {
            for (Process p : brokers) p.destroyForcibly();
            for (Process p : brokers) p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        Map<String, Object> c = new HashMap<>(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TXN_ID,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 120_000, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000));
        KafkaProducer<String, String> p = TestBroker.producer(bootstrap, c);
        p.initTransactions();
        return p;
    }

    /** The leader of the transactional id's {@code __transaction_state} partition (3 partitions here). */
    private static int coordinatorOf(Admin admin) throws Exception {
        int partition = Utils.abs(TXN_ID.hashCode()) % 3;
        return admin.describeTopics(List.of(Topic.TRANSACTION_STATE_TOPIC_NAME)).allTopicNames().get()
                .get(Topic.TRANSACTION_STATE_TOPIC_NAME).partitions().get(partition).leader().id();
    }

    private static long latest(Admin admin, IsolationLevel isolation) throws Exception {
        return admin.listOffsets(Map.of(TP, OffsetSpec.latest()), new ListOffsetsOptions(isolation)).all()
                .get(10, TimeUnit.SECONDS).get(TP).offset();
    }

    private static List<String> readCommitted(String bootstrap) {
        try (KafkaConsumer<String, String> c = TestBroker.consumer(bootstrap,
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
            c.assign(Set.of(TP));
            c.seekToBeginning(Set.of(TP));
            long end = c.endOffsets(Set.of(TP)).get(TP);
            List<String> got = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) got.add(r.value());
                return c.position(TP) >= end;
            });
            return got;
        }
    }
}
