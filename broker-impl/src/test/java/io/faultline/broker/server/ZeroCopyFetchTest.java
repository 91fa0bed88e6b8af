package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumer fetches are sent from the segment file (transferTo): a fetch spanning hundreds of batches returns the
 * segment's bytes unchanged, through a 4 KiB receive buffer that makes the broker's writes partial, and a real
 * consumer with a small receive buffer reads every record in order.
 */
class ZeroCopyFetchTest {
    private static final short FETCH_V16 = 16;

    @TempDir
    Path dir;

    @Test
    void aLargeFetchIsTheSegmentsBytesSentFromTheFileThroughASmallReceiveBuffer() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("zc", 1, (short) 1));
            Uuid id = admin.describeTopics(List.of("zc")).allTopicNames().get().get("zc").topicId();
            List<String> sent = new ArrayList<>();
            try (KafkaProducer<String, String> p = b.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.LINGER_MS_CONFIG, 0))) {
                for (int batch = 0; batch < 200; batch++) {
                    for (int i = 0; i < 8; i++) {
                        String v = batch + "-" + i + "-" + "x".repeat(200 + 97 * ((batch + i) % 11));
                        sent.add(v);
                        p.send(new ProducerRecord<>("zc", 0, "k" + i, v));
                    }
                    p.flush(); // one or more batches per round: the fetch below spans at least 200
                }
            }
            byte[] segment = Files.readAllBytes(dir.resolve("zc-0").resolve("00000000000000000000.log"));
            long fromFilesBefore = b.broker.socketServer().bytesSentFromFiles();

            FetchResponseData resp;
            try (RawClient c = new RawClient(b.port(), 4096)) {
                resp = (FetchResponseData) c.call(ApiKeys.FETCH, FETCH_V16, fetchAll(id));
            }
            FetchResponseData.PartitionData pd = resp.responses().get(0).partitions().get(0);
            assertEquals(0, pd.errorCode());
            assertEquals(sent.size(), pd.highWatermark());
            ByteBuffer records = ((MemoryRecords) pd.records()).buffer();
            byte[] got = new byte[records.remaining()];
            records.duplicate().get(got);
            assertArrayEquals(segment, got, "the fetch returns the segment's bytes unchanged");
            int batches = 0;
            for (MutableRecordBatch batch : ((MemoryRecords) pd.records()).batches()) {
                batch.ensureValid();
                batches++;
            }
            assertTrue(batches >= 200, batches + " batches");
            assertTrue(b.broker.socketServer().bytesSentFromFiles() - fromFilesBefore >= segment.length,
                    "the records went from the segment file with transferTo");

            try (KafkaConsumer<String, String> consumer = b.consumer(Map.of(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 4096,
                    ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 8 << 20,
                    ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20))) {
                TopicPartition tp = new TopicPartition("zc", 0);
                consumer.assign(List.of(tp));
                List<String> read = new ArrayList<>();
                long lastOffset = -1;
                while (read.size() < sent.size()) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                        assertEquals(lastOffset + 1, r.offset());
                        lastOffset = r.offset();
                        read.add(r.value());
                    }
                }
                assertEquals(sent, read);
            }
        }
    }

    private static FetchRequestData fetchAll(Uuid id) {
        FetchRequestData d = new FetchRequestData().setMaxWaitMs(0).setMinBytes(1).setMaxBytes(64 << 20)
                .setReplicaId(-1);
        FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic().setTopicId(id);
        t.partitions().add(new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                .setPartitionMaxBytes(64 << 20).setCurrentLeaderEpoch(-1));
        d.topics().add(t);
        return d;
    }
}
