package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.DeletedRecords;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.GroupSubscribedToTopicException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin operations of Kafka's tools, through the real Admin client: kafka-topics --alter --partitions,
 * kafka-consumer-groups --delete / --delete-offsets, kafka-configs --alter, kafka-delete-records, kafka-log-dirs.
 */
class AdminToolsTest {
    @TempDir
    Path dir;

    private static final TopicPartition T1 = new TopicPartition("t1", 0);
    private static final TopicPartition T2 = new TopicPartition("t2", 0);

    private static void produce(TestBroker b, String topic, int n) throws Exception {
        try (KafkaProducer<String, String> p = b.producer(Map.of())) {
            for (int i = 0; i < n; i++) p.send(new ProducerRecord<>(topic, 0, "k", "v" + i)).get();
        }
    }

    private static KafkaConsumer<String, String> member(TestBroker b, String group) {
        return b.consumer(Map.of(ConsumerConfig.GROUP_ID_CONFIG, group, ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic",
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000, ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500));
    }

    private static void awaitAssignment(KafkaConsumer<String, String> c) {
        long deadline = System.currentTimeMillis() + 30_000;
        while (c.assignment().isEmpty() && System.currentTimeMillis() < deadline) c.poll(Duration.ofMillis(100));
        assertFalse(c.assignment().isEmpty(), "joined the group");
    }

    @Test
    void deleteGroupsAndOffsets() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("t1", 1, (short) 1), new NewTopic("t2", 1, (short) 1));
            produce(b, "t1", 3);
            produce(b, "t2", 3);
            try (KafkaConsumer<String, String> c = member(b, "idle")) { // a group that only has offsets left
                c.commitSync(Map.of(T1, new OffsetAndMetadata(2)));
            }
            try (KafkaConsumer<String, String> active = member(b, "busy")) {
                active.subscribe(List.of("t1"));
                awaitAssignment(active);
                active.commitSync(Map.of(T1, new OffsetAndMetadata(1), T2, new OffsetAndMetadata(2)));

                ExecutionException busy = assertThrows(ExecutionException.class,
                        () -> admin.deleteConsumerGroups(List.of("busy")).all().get());
                assertInstanceOf(GroupNotEmptyException.class, busy.getCause());
                ExecutionException subscribed = assertThrows(ExecutionException.class,
                        () -> admin.deleteConsumerGroupOffsets("busy", Set.of(T1)).partitionResult(T1).get());
                assertInstanceOf(GroupSubscribedToTopicException.class, subscribed.getCause());
                admin.deleteConsumerGroupOffsets("busy", Set.of(T2)).all().get();
                assertEquals(Map.of(T1, new OffsetAndMetadata(1)).keySet(),
                        admin.listConsumerGroupOffsets("busy").partitionsToOffsetAndMetadata().get().keySet(),
                        "t2's offset is gone, t1's stays");
            }
            ExecutionException unknown = assertThrows(ExecutionException.class,
                    () -> admin.deleteConsumerGroups(List.of("nobody")).all().get());
            assertInstanceOf(GroupIdNotFoundException.class, unknown.getCause());
            admin.deleteConsumerGroups(List.of("idle")).all().get();
            assertTrue(admin.listConsumerGroupOffsets("idle").partitionsToOffsetAndMetadata().get().isEmpty());
        }
        try (TestBroker again = TestBroker.start(dir); Admin admin = again.admin()) {
            List<String> groups = new ArrayList<>();
            admin.listGroups().all().get().forEach(g -> groups.add(g.groupId()));
            assertFalse(groups.contains("idle"), "a deleted group stays deleted after a restart: " + groups);
            assertTrue(groups.contains("busy"), groups.toString());
            assertEquals(Set.of(T1), admin.listConsumerGroupOffsets("busy").partitionsToOffsetAndMetadata().get()
                    .keySet(), "deleted offsets stay deleted after a restart");
        }
    }

    @Test
    void deleteRecordsAndDescribeLogDirs() throws Exception {
        TopicPartition tp = new TopicPartition("dr", 0);
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("dr", 1, (short) 1));
            produce(b, "dr", 10);
            DeletedRecords deleted = admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(4)))
                    .lowWatermarks().get(tp).get();
            assertEquals(4, deleted.lowWatermark());
            assertEquals(4, admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp).get().offset());
            ExecutionException beyond = assertThrows(ExecutionException.class, () -> admin.deleteRecords(
                    Map.of(tp, RecordsToDelete.beforeOffset(11))).lowWatermarks().get(tp).get());
            assertInstanceOf(OffsetOutOfRangeException.class, beyond.getCause());
            List<Long> offsets = new ArrayList<>();
            try (KafkaConsumer<String, String> c = b.consumer(Map.of())) {
                c.assign(List.of(tp));
                long deadline = System.currentTimeMillis() + 20_000;
                while (offsets.size() < 6 && System.currentTimeMillis() < deadline) {
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) offsets.add(r.offset());
                }
            }
            assertEquals(List.of(4L, 5L, 6L, 7L, 8L, 9L), offsets);

            Map<Integer, Map<String, LogDirDescription>> dirs = admin.describeLogDirs(List.of(1)).allDescriptions().get();
            LogDirDescription d = dirs.get(1).get(dir.toAbsolutePath().toString());
            ReplicaInfo info = d.replicaInfos().get(tp);
            assertTrue(info.size() > 0, "size of dr-0");
            assertEquals(0, info.offsetLag());
            assertTrue(d.totalBytes().orElse(0) > 0 && d.usableBytes().isPresent());
        }
    }

    private static void alter(Admin admin, ConfigResource res, AlterConfigOp.OpType op, String key, String value)
            throws Exception {
        admin.incrementalAlterConfigs(Map.of(res, List.of(new AlterConfigOp(new ConfigEntry(key, value), op)))).all().get();
    }

    private static long segmentFiles(Path partitionDir) throws Exception {
        try (var files = java.nio.file.Files.list(partitionDir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log")).count();
        }
    }

    @Test
    void createPartitions() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("grow", 1, (short) 1));
            admin.createPartitions(Map.of("grow", NewPartitions.increaseTo(3))).all().get();
            assertEquals(3, admin.describeTopics(List.of("grow")).allTopicNames().get().get("grow").partitions().size());
            ExecutionException shrink = assertThrows(ExecutionException.class,
                    () -> admin.createPartitions(Map.of("grow", NewPartitions.increaseTo(2))).all().get());
            assertInstanceOf(InvalidPartitionsException.class, shrink.getCause());
            try (KafkaProducer<String, String> p = b.producer(Map.of())) {
                assertEquals(2, p.send(new ProducerRecord<>("grow", 2, "k", "new partition")).get().partition());
            }
        }
    }

    /** kafka-configs --alter on a topic: the new values reach the partition's existing log, not only new ones. */
    @Test
    void topicConfigChangesTakeEffectOnTheExistingLog() throws Exception {
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "cfg");
        Path partitionDir = dir.resolve("cfg-0");
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin();
             KafkaProducer<String, String> p = b.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all",
                     ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false, ProducerConfig.RETRIES_CONFIG, 0))) {
            TestBroker.createTopics(admin, new NewTopic("cfg", 1, (short) 1));
            String big = "x".repeat(400_000);
            p.send(new ProducerRecord<>("cfg", 0, "k", big)).get();
            assertEquals(1, segmentFiles(partitionDir));

            // segment.bytes: below Kafka's 1 MiB minimum is refused; 1 MiB makes the existing log roll
            ExecutionException tiny = assertThrows(ExecutionException.class,
                    () -> alter(admin, topic, AlterConfigOp.OpType.SET, "segment.bytes", "1024"));
            assertInstanceOf(InvalidConfigurationException.class, tiny.getCause());
            alter(admin, topic, AlterConfigOp.OpType.SET, "segment.bytes", "1048576");
            for (int i = 0; i < 3; i++) p.send(new ProducerRecord<>("cfg", 0, "k", big)).get();
            assertTrue(segmentFiles(partitionDir) >= 2, "the log rolled at the new segment.bytes");

            // cleanup.policy=compact: the existing log now refuses records without a key
            alter(admin, topic, AlterConfigOp.OpType.SET, "cleanup.policy", "compact");
            ExecutionException keyless = assertThrows(ExecutionException.class,
                    () -> p.send(new ProducerRecord<>("cfg", 0, null, "no key")).get());
            assertInstanceOf(InvalidRecordException.class, keyless.getCause());
            alter(admin, topic, AlterConfigOp.OpType.DELETE, "cleanup.policy", null);
            p.send(new ProducerRecord<>("cfg", 0, null, "no key, delete policy again")).get();

            // min.insync.replicas above the ISR (one broker): acks=all is refused until it is removed again
            alter(admin, topic, AlterConfigOp.OpType.SET, "min.insync.replicas", "2");
            ExecutionException notEnough = assertThrows(ExecutionException.class,
                    () -> p.send(new ProducerRecord<>("cfg", 0, "k", "v")).get());
            assertInstanceOf(NotEnoughReplicasException.class, notEnough.getCause());
            alter(admin, topic, AlterConfigOp.OpType.DELETE, "min.insync.replicas", null);
            p.send(new ProducerRecord<>("cfg", 0, "k", "v")).get();

            Map<String, String> described = new java.util.HashMap<>();
            admin.describeConfigs(List.of(topic)).all().get().get(topic).entries()
                    .forEach(e -> described.put(e.name(), e.value()));
            assertEquals("1048576", described.get("segment.bytes"));
            assertEquals("delete", described.get("cleanup.policy"));
        }
        try (TestBroker again = TestBroker.start(dir); Admin admin = again.admin()) {
            assertEquals("1048576", admin.describeConfigs(List.of(topic)).all().get().get(topic)
                    .get("segment.bytes").value(), "the change survives a restart");
        }
    }
}
