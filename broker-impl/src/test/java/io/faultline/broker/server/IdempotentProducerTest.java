package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sequence tracking per producer id and epoch: duplicates, gaps, fencing, restarts. */
class IdempotentProducerTest {
    @TempDir
    Path dir;

    private static MemoryRecords batch(long pid, short epoch, int seq, int count) {
        SimpleRecord[] recs = new SimpleRecord[count];
        for (int i = 0; i < count; i++) recs[i] = new SimpleRecord(("v" + (seq + i)).getBytes());
        return MemoryRecords.withIdempotentRecords(Compression.NONE, pid, epoch, seq, recs);
    }

    private static ProduceResponseData.PartitionProduceResponse produce(RawClient c, Uuid topicId, MemoryRecords r)
            throws Exception {
        ProduceRequestData req = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5000);
        ProduceRequestData.TopicProduceData td = new ProduceRequestData.TopicProduceData().setTopicId(topicId);
        td.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(r));
        req.topicData().add(td);
        ProduceResponseData resp = (ProduceResponseData) c.call(ApiKeys.PRODUCE, (short) 13, req);
        return resp.responses().iterator().next().partitionResponses().get(0);
    }

    @Test
    void duplicatesGetOriginalOffsetsGapsAndStaleEpochsAreRejectedAndStateSurvivesRestart() throws Exception {
        int port;
        Uuid id;
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            port = b.port();
            TestBroker.createTopics(admin, new NewTopic("idem", 1, (short) 1));
            id = admin.describeTopics(List.of("idem")).allTopicNames().get().get("idem").topicId();
            try (RawClient c = new RawClient(b.port())) {
                ProduceResponseData.PartitionProduceResponse r = produce(c, id, batch(7000, (short) 0, 0, 3));
                assertEquals(Errors.NONE.code(), r.errorCode());
                assertEquals(0, r.baseOffset());
                r = produce(c, id, batch(7000, (short) 0, 0, 3));
                assertEquals(Errors.NONE.code(), r.errorCode(), "a retried batch is acknowledged");
                assertEquals(0, r.baseOffset(), "with its original offset");
                r = produce(c, id, batch(7000, (short) 0, 3, 2));
                assertEquals(3, r.baseOffset(), "the duplicate was not appended again");
                r = produce(c, id, batch(7000, (short) 0, 10, 1));
                assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code(), r.errorCode(), "a gap is rejected");
                r = produce(c, id, batch(7000, (short) 1, 0, 1));
                assertEquals(Errors.NONE.code(), r.errorCode(), "a new epoch starts at sequence 0");
                assertEquals(5, r.baseOffset());
                r = produce(c, id, batch(7000, (short) 0, 5, 1));
                assertEquals(Errors.INVALID_PRODUCER_EPOCH.code(), r.errorCode(), "the old epoch is fenced");
                MemoryRecords corrupt = batch(7001, (short) 0, 0, 2);
                ByteBuffer buf = corrupt.buffer();
                buf.put(buf.limit() - 1, (byte) (buf.get(buf.limit() - 1) ^ 0x5a));
                r = produce(c, id, corrupt);
                assertEquals(Errors.CORRUPT_MESSAGE.code(), r.errorCode(), "CRC is validated");
            }
        }
        try (TestBroker b = TestBroker.start(dir, port, Map.of()); RawClient c = new RawClient(b.port())) {
            ProduceResponseData.PartitionProduceResponse r = produce(c, id, batch(7000, (short) 1, 0, 1));
            assertEquals(Errors.NONE.code(), r.errorCode());
            assertEquals(5, r.baseOffset(), "producer state was rebuilt: still a duplicate after restart");
            r = produce(c, id, batch(7000, (short) 1, 1, 1));
            assertEquals(6, r.baseOffset());
        }
    }

    @Test
    void producerRetriedAcrossBrokerRestartLeavesNoDuplicates() throws Exception {
        TestBroker b = TestBroker.start(dir);
        int port = b.port();
        try (Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("idem-restart", 1, (short) 1));
        }
        int n = 3000;
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> p = b.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.LINGER_MS_CONFIG, 2,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60000, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000))) {
            for (int i = 0; i < n; i++) {
                acks.add(p.send(new ProducerRecord<>("idem-restart", "k", "v" + i)));
                if (i == n / 2) {
                    b.close(); // in-flight batches may be appended without an answer: they are retried
                    b = TestBroker.start(dir, port, Map.of());
                }
            }
            p.flush();
            for (Future<RecordMetadata> f : acks) f.get();
        }
        try (KafkaConsumer<String, String> c = b.consumer(Map.of())) {
            TopicPartition tp = new TopicPartition("idem-restart", 0);
            c.assign(Set.of(tp));
            c.seekToBeginning(Set.of(tp));
            List<String> got = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 30_000;
            while (got.size() < n && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) got.add(r.value());
            }
            assertTrue(c.poll(Duration.ofMillis(500)).isEmpty(), "no extra (duplicate) records");
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < n; i++) expected.add("v" + i);
            assertEquals(expected, got, "every record exactly once, in order");
        } finally {
            b.close();
        }
    }
}
