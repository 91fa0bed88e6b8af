package io.faultline.harness.audit;

import io.faultline.docker.DockerBacked;
import io.faultline.docker.sut.BrokerImpl;
import io.faultline.docker.sut.KafkaAdmin;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.docker.sut.SutCluster;
import io.faultline.workloads.queue.QueueWorkload;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The API audit against a real broker: a log with interleaved timestamps over several segments and a group with
 * committed offsets pass, a config the topic was not created with is reported, and the topic lifecycle audit passes.
 */
@DockerBacked
class ApiAuditDockerTest {
    @Test
    void aCorrectBrokerPassesTheAuditAndAConfigItDoesNotHaveIsReported() throws Exception {
        try (SutCluster cluster = SutCluster.start(new BrokerImpl(KafkaSettings.defaults().withReplicationFactor(1)
                .withMinInsyncReplicas(1)), 1, Duration.ofMinutes(3))) {
            String bootstrap = cluster.bootstrapServers();
            try (Admin admin = KafkaAdmin.create(bootstrap)) {
                admin.createTopics(List.of(new NewTopic("audit-0", 1, (short) 1).configs(QueueWorkload.MULTI_SEGMENT_TOPICS)))
                        .all().get();
            }
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            Random random = new Random(7);
            long base = System.currentTimeMillis() - 60_000;
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
                for (int i = 0; i < 400; i++) {
                    // timestamps drift forward with jitter, so they are often out of order, as with many producers
                    long ts = base + i * 10L + random.nextInt(200);
                    producer.send(new ProducerRecord<>("audit-0", 0, ts, null, "v" + i));
                    if (i % 50 == 49) producer.flush();
                }
            }
            Properties c = new Properties();
            c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            c.put(ConsumerConfig.GROUP_ID_CONFIG, "audit-group");
            c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
                consumer.subscribe(List.of("audit-0"));
                await().atMost(Duration.ofSeconds(60)).until(() -> !consumer.poll(Duration.ofMillis(200)).isEmpty());
                consumer.commitSync();
            }
            var partitions = List.of(new TopicPartition("audit-0", 0));
            var report = ApiAudit.run(bootstrap, partitions, QueueWorkload.MULTI_SEGMENT_TOPICS, "audit-group", 3, Duration.ofSeconds(60));
            assertEquals(List.of(), report.findings(), report.toString());
            assertEquals(1, report.partitionsRead(), report.toString());
            assertEquals(ApiAudit.LOOKUPS_PER_PARTITION + 1, report.lookups(), "and one for the largest timestamp");
            assertEquals(1, report.configsChecked());
            assertEquals(List.of(), report.notes(), "the group had committed offsets, so it was judged");

            var wrong = ApiAudit.run(bootstrap, partitions, Map.of("segment.ms", "4000"), null, 3, Duration.ofSeconds(60));
            assertEquals(1, wrong.findings().size(), wrong.toString());
            assertEquals(ApiAudit.TOPIC_CONFIG, wrong.findings().get(0).kind());
            assertTrue(wrong.findings().get(0).explanation().contains("DescribeConfigs answered segment.ms=3000"), wrong.toString());

            // create, grow, delete and recreate, trim and reconfigure scratch topics, then invalid requests: a correct
            // broker passes every step
            var lifecycle = TopicLifecycleAudit.run(bootstrap, "fl-audit", (short) 1, 3, Duration.ofSeconds(60));
            assertEquals(List.of(), lifecycle.findings(), lifecycle.toString());
            assertEquals(8, lifecycle.steps(), lifecycle.toString());
        }
    }
}
