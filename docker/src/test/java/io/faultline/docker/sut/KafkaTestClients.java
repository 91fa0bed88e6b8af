package io.faultline.docker.sut;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Real Kafka clients tuned for tests: short timeouts and backoffs (values from FACTS.md). */
final class KafkaTestClients {
    private KafkaTestClients() {}

    static KafkaProducer<String, String> producer(String bootstrap, String acks, int deliveryTimeoutMs) {
        var p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, acks);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "all".equals(acks));
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(5000, deliveryTimeoutMs));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, deliveryTimeoutMs);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 100);
        // A dead leader's address must spend long enough in reconnect backoff: kafka-clients sends a metadata request
        // to a connecting node before a merely connectable one, and waits while any node is connecting, so with a
        // backoff (100 ms) far below the connection attempt (1-2 s, longer while ARP gives up) a producer whose only
        // connection was to the killed leader kept reconnecting to it and never learned the new leader (CI, 3 Dec:
        // BrokerImplLeaderKillTest, 60 s without an acknowledgement while the brokers had elected one in 2.2 s).
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 1000);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 2000);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        // a killed container's address never answers: fail connects fast, as the workload's clients do
        p.put(ProducerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, 1000);
        p.put(ProducerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, 2000);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    static KafkaConsumer<String, String> consumer(String bootstrap) {
        var p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        p.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, 1000); // as the producer's, above
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 2000);
        p.put(ConsumerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, 1000);
        p.put(ConsumerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, 2000);
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    static void createTopic(String bootstrap, NewTopic topic) throws Exception {
        try (Admin admin = KafkaAdmin.create(bootstrap)) {
            KafkaAdmin.createTopics(admin, java.time.Duration.ofSeconds(30), topic);
            // metadata reaches every broker shortly after creation; wait until a leader is known
            long deadline = System.currentTimeMillis() + 30_000;
            while (System.currentTimeMillis() < deadline) {
                try {
                    var d = admin.describeTopics(List.of(topic.name())).allTopicNames().get(10, TimeUnit.SECONDS).get(topic.name());
                    if (d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) return;
                } catch (java.util.concurrent.ExecutionException notPropagatedYet) {
                    // the broker asked has not seen the new topic yet
                }
                Thread.sleep(100);
            }
            throw new AssertionError("no leader for " + topic.name());
        }
    }

    /** Sends count records "0".."count-1" to one partition with acks=all, then reads them back in order. */
    static void roundTrip(String bootstrap, String topic, int count) throws Exception {
        try (var producer = producer(bootstrap, "all", 60_000)) {
            var futures = new ArrayList<java.util.concurrent.Future<?>>();
            for (int i = 0; i < count; i++) {
                futures.add(producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, 0, null, Integer.toString(i))));
            }
            for (var f : futures) f.get(60, TimeUnit.SECONDS);
        }
        List<String> read = new ArrayList<>();
        try (var consumer = consumer(bootstrap)) {
            var tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.currentTimeMillis() + 60_000;
            while (read.size() < count && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) read.add(r.value());
            }
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < count; i++) expected.add(Integer.toString(i));
        assertEquals(count, read.size(), "records read back");
        assertEquals(expected, read, "records read back in order");
    }

    /** The in-sync replicas of topic-partition, by broker id. */
    static List<Integer> isr(String bootstrap, String topic, int partition) {
        try (Admin admin = KafkaAdmin.create(bootstrap)) {
            var d = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
            return d.partitions().get(partition).isr().stream().map(org.apache.kafka.common.Node::id).sorted().toList();
        } catch (Exception e) {
            return List.of();
        }
    }

    static NewTopic topic(String name, int rf, int minIsr) {
        return new NewTopic(name, Optional.of(1), Optional.of((short) rf)).configs(Map.of("min.insync.replicas", Integer.toString(minIsr)));
    }
}
