package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
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
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Real kafka-clients 4.4.0 against one in-process broker: admin, produce (every codec, every acks), consume. */
class ProduceConsumeRoundTripTest {
    @TempDir
    static Path dir;
    static TestBroker broker;
    static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(dir);
        admin = broker.admin();
    }

    @AfterAll
    static void stop() {
        admin.close();
        broker.close();
    }

    @Test
    void adminCreatesDescribesAndDeletesTopics() throws Exception {
        TestBroker.createTopics(admin, new NewTopic("admin-t", 3, (short) 1)
                .configs(Map.of("retention.ms", "123456")));
        TopicDescription d = admin.describeTopics(List.of("admin-t")).allTopicNames().get().get("admin-t");
        assertEquals(3, d.partitions().size());
        assertEquals(1, d.partitions().get(0).leader().id());
        assertFalse(d.topicId().equals(org.apache.kafka.common.Uuid.ZERO_UUID));
        ExecutionException dup = assertThrows(ExecutionException.class,
                () -> admin.createTopics(List.of(new NewTopic("admin-t", 1, (short) 1))).all().get());
        assertTrue(dup.getCause() instanceof TopicExistsException, dup.toString());
        assertThrows(ExecutionException.class,
                () -> admin.createTopics(List.of(new NewTopic("bad-rf", 1, (short) 3))).all().get());
        ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, "admin-t");
        assertEquals("123456", admin.describeConfigs(List.of(res)).all().get().get(res).get("retention.ms").value());
        assertEquals(1, admin.describeCluster().nodes().get().size());
        assertTrue(admin.listTopics().names().get().contains("admin-t"));
        admin.deleteTopics(List.of("admin-t")).all().get();
        assertFalse(admin.listTopics().names().get().contains("admin-t"));
    }

    /** The admin client retries a create whose answer timed out; the tests' helper takes the topic it made. */
    @Test
    void theTestsTopicCreationIsIdempotentForTheTopicAskedFor() throws Exception {
        admin.createTopics(List.of(new NewTopic("again", 2, (short) 1))).all().get(); // the first attempt
        TestBroker.createTopics(admin, new NewTopic("again", 2, (short) 1));           // its retry
        AssertionError other = assertThrows(AssertionError.class,
                () -> TestBroker.createTopics(admin, new NewTopic("again", 3, (short) 1)));
        assertTrue(other.getMessage().contains("already exists with 2 partitions"), other.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void tenThousandRecordsRoundTripInOrder(String codec) throws Exception {
        String topic = "rt-" + codec;
        TestBroker.createTopics(admin, new NewTopic(topic, 1, (short) 1));
        int n = 10_000;
        try (KafkaProducer<String, String> p = broker.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.COMPRESSION_TYPE_CONFIG, codec, ProducerConfig.LINGER_MS_CONFIG, 5))) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < n; i++) acks.add(p.send(new ProducerRecord<>(topic, "k" + i, "v" + i)));
            p.flush();
            for (int i = 0; i < n; i++) assertEquals(i, acks.get(i).get().offset());
        }
        assertEquals(consumeAll(topic, n), expected(n));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "1"})
    void weakerAcksWork(String acks) throws Exception {
        String topic = "acks-" + acks;
        TestBroker.createTopics(admin, new NewTopic(topic, 1, (short) 1));
        int n = 500;
        try (KafkaProducer<String, String> p = broker.producer(Map.of(ProducerConfig.ACKS_CONFIG, acks,
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false))) {
            for (int i = 0; i < n; i++) p.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get();
        }
        assertEquals(expected(n), consumeAll(topic, n));
    }

    @Test
    void readCommittedConsumersSeeEverythingAcknowledged() throws Exception {
        TestBroker.createTopics(admin, new NewTopic("rc", 1, (short) 1));
        try (KafkaProducer<String, String> p = broker.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
            for (int i = 0; i < 300; i++) p.send(new ProducerRecord<>("rc", "k" + i, "v" + i));
            p.flush();
        }
        List<String> got = new ArrayList<>();
        try (KafkaConsumer<String, String> c = broker.consumer(Map.of(
                org.apache.kafka.clients.consumer.ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
            TopicPartition tp = new TopicPartition("rc", 0);
            c.assign(Set.of(tp));
            c.seekToBeginning(Set.of(tp));
            long deadline = System.currentTimeMillis() + 30_000;
            while (got.size() < 300 && System.currentTimeMillis() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(r -> got.add(r.value()));
            }
            assertEquals(300, c.endOffsets(Set.of(tp)).get(tp), "the last stable offset is the high watermark");
        }
        assertEquals(expected(300), got);
    }

    private static List<String> expected(int n) {
        List<String> l = new ArrayList<>();
        for (int i = 0; i < n; i++) l.add("v" + i);
        return l;
    }

    static List<String> consumeAll(String topic, int n) {
        List<String> got = new ArrayList<>();
        try (KafkaConsumer<String, String> c = broker.consumer(Map.of())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(Set.of(tp));
            c.seekToBeginning(Set.of(tp));
            long deadline = System.currentTimeMillis() + 30_000;
            while (got.size() < n && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    assertEquals(got.size(), r.offset());
                    got.add(r.value());
                }
            }
            assertTrue(c.poll(Duration.ofMillis(300)).isEmpty(), "no records beyond what was produced");
        }
        return got;
    }
}
