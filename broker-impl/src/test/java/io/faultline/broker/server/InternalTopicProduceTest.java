package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client cannot write the broker's internal topic (issue 30: kcat wrote a record into {@code __consumer_offsets}
 * that later kept the node from starting): the real producer gets INVALID_TOPIC_EXCEPTION, as from Kafka, and the
 * log holds only what the coordinator wrote.
 */
class InternalTopicProduceTest {
    @TempDir
    Path dir;

    @Test
    void aProducerIsRefusedOnConsumerOffsetsAndTheCoordinatorStillWritesIt() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            // The coordinator's own write: a committed offset lands in the group's offsets partition.
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic("t", 1, (short) 1))).all().get();
            admin.alterConsumerGroupOffsets("g", Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(3)))
                    .all().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, Long> before = ends(admin);

            for (String acks : List.of("all", "1")) {
                try (KafkaProducer<String, String> p = b.producer(Map.of(ProducerConfig.ACKS_CONFIG, acks,
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false",
                        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000,
                        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000))) {
                    for (int partition = 0; partition < 3; partition++) {
                        ProducerRecord<String, String> r = new ProducerRecord<>(Topic.GROUP_METADATA_TOPIC_NAME,
                                partition, "a", "x");
                        ExecutionException e = assertThrows(ExecutionException.class,
                                () -> p.send(r).get(30, TimeUnit.SECONDS), "acks=" + acks);
                        assertInstanceOf(InvalidTopicException.class, e.getCause(), "acks=" + acks);
                    }
                }
            }
            assertEquals(before, ends(admin), "nothing a client sent was appended");
            assertEquals(3L, admin.listConsumerGroupOffsets("g").partitionsToOffsetAndMetadata().get()
                    .get(new TopicPartition("t", 0)).offset());
        }
    }

    private static Map<TopicPartition, Long> ends(Admin admin) throws Exception {
        Map<TopicPartition, OffsetSpec> specs = new java.util.HashMap<>();
        for (int p = 0; p < 3; p++) specs.put(new TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME, p), OffsetSpec.latest());
        Map<TopicPartition, Long> out = new java.util.HashMap<>();
        admin.listOffsets(specs).all().get().forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }
}
