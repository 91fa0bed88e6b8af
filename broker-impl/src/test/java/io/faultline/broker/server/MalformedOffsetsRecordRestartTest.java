package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.partition.Partition;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30: a record in {@code __consumer_offsets} that the coordinator cannot parse kept the node from ever
 * starting again (BufferUnderflowException while loading, after registration). On a real data dir: such records are
 * skipped and counted, and the restarted node serves, with the offsets committed around them intact.
 */
class MalformedOffsetsRecordRestartTest {
    private static final TopicPartition T0 = new TopicPartition("t", 0);

    @TempDir
    Path dir;

    @Test
    void aNodeHoldingMalformedOffsetsRecordsStartsAgainAndServes() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get();
            admin.alterConsumerGroupOffsets("g", Map.of(T0, new OffsetAndMetadata(7))).all().get(30, TimeUnit.SECONDS);
            // What a client could once produce there: an offset key cut short, a group record whose value ends early.
            Partition offsets = b.broker.context().partitions().get(new TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME,
                    Utils.abs("g".hashCode()) % 3)).orElseThrow();
            byte[] g = "g".getBytes(StandardCharsets.UTF_8);
            offsets.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                    new SimpleRecord(1L, new byte[] {0, 1, 0, 9, 'g'}, new byte[] {0, 3}),
                    new SimpleRecord(1L, ByteBuffer.allocate(5).putShort((short) 2).putShort((short) 1).put(g).array(),
                            new byte[] {0, 0, 1}),
                    new SimpleRecord(1L, "a".getBytes(StandardCharsets.UTF_8), "x".getBytes(StandardCharsets.UTF_8))));
        }

        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            assertEquals(7L, admin.listConsumerGroupOffsets("g").partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                    .get(T0).offset(), "the commit before the malformed records survives");
            try (KafkaProducer<String, String> p = b.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
                assertEquals(0L, p.send(new ProducerRecord<>("t", "k", "v")).get(30, TimeUnit.SECONDS).offset());
            }
            admin.alterConsumerGroupOffsets("g", Map.of(T0, new OffsetAndMetadata(9))).all().get(30, TimeUnit.SECONDS);
            assertEquals(9L, admin.listConsumerGroupOffsets("g").partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                    .get(T0).offset());
            assertTrue(b.broker.groupStoreMalformedRecords() >= 3, "skipped records are counted");
        }
    }
}
