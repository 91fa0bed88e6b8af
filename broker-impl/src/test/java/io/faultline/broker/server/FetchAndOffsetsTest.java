package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fetch waits (maxWaitMs / minBytes) and ListOffsets lookups by special and real timestamps. */
class FetchAndOffsetsTest {
    @TempDir
    Path dir;

    private static FetchRequestData fetch(Uuid id, long offset, int maxWaitMs, int minBytes) {
        FetchRequestData d = new FetchRequestData().setMaxWaitMs(maxWaitMs).setMinBytes(minBytes)
                .setMaxBytes(1 << 20).setReplicaId(-1);
        FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic().setTopicId(id);
        t.partitions().add(new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(offset)
                .setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1));
        d.topics().add(t);
        return d;
    }

    @Test
    void fetchWaitsForDataOrMaxWaitAndAnswersOutOfRange() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            admin.createTopics(List.of(new NewTopic("wait", 1, (short) 1))).all().get();
            Uuid id = admin.describeTopics(List.of("wait")).allTopicNames().get().get("wait").topicId();
            try (RawClient c = new RawClient(b.port())) {
                long start = System.nanoTime();
                FetchResponseData empty = (FetchResponseData) c.call(ApiKeys.FETCH, (short) 17, fetch(id, 0, 700, 1));
                long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(tookMs >= 600, "an empty fetch waits maxWaitMs, took " + tookMs);
                assertEquals(0, empty.responses().get(0).partitions().get(0).records().sizeInBytes());

                // a waiting fetch is completed by a produce long before its maxWaitMs
                CompletableFuture<Void> produced = CompletableFuture.runAsync(() -> {
                    try (KafkaProducer<String, String> p = b.producer(Map.of(ProducerConfig.ACKS_CONFIG, "1"))) {
                        Thread.sleep(300);
                        p.send(new ProducerRecord<>("wait", "k", "v")).get();
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                start = System.nanoTime();
                FetchResponseData got = (FetchResponseData) c.call(ApiKeys.FETCH, (short) 17, fetch(id, 0, 20_000, 1));
                tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                produced.get(10, TimeUnit.SECONDS);
                assertTrue(tookMs < 10_000, "woken by the produce, took " + tookMs);
                FetchResponseData.PartitionData pd = got.responses().get(0).partitions().get(0);
                assertTrue(pd.records().sizeInBytes() > 0);
                assertEquals(1, pd.highWatermark());

                // minBytes larger than what is there: the fetch waits out maxWaitMs, then returns what it has
                start = System.nanoTime();
                FetchResponseData partial = (FetchResponseData) c.call(ApiKeys.FETCH, (short) 17,
                        fetch(id, 0, 600, 100_000));
                tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(tookMs >= 500, "minBytes not reached: waited " + tookMs);
                assertTrue(partial.responses().get(0).partitions().get(0).records().sizeInBytes() > 0);

                FetchResponseData oor = (FetchResponseData) c.call(ApiKeys.FETCH, (short) 17, fetch(id, 50, 0, 1));
                assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), oor.responses().get(0).partitions().get(0).errorCode());
            }
        }
    }

    @Test
    void listOffsetsByTimestamp() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            admin.createTopics(List.of(new NewTopic("ts", 1, (short) 1))).all().get();
            TopicPartition tp = new TopicPartition("ts", 0);
            try (KafkaProducer<String, String> p = b.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
                long[] stamps = {1000, 2000, 5000, 3000, 4000};
                for (long ts : stamps) p.send(new ProducerRecord<>("ts", 0, ts, "k", "v" + ts)).get();
            }
            assertEquals(0, offset(admin, tp, OffsetSpec.earliest()).offset());
            assertEquals(5, offset(admin, tp, OffsetSpec.latest()).offset());
            assertEquals(1, offset(admin, tp, OffsetSpec.forTimestamp(1500)).offset());
            assertEquals(2, offset(admin, tp, OffsetSpec.forTimestamp(2500)).offset(), "first record with ts >= 2500");
            assertEquals(-1, offset(admin, tp, OffsetSpec.forTimestamp(9000)).offset(), "nothing that new");
            ListOffsetsResultInfo max = offset(admin, tp, OffsetSpec.maxTimestamp());
            assertEquals(2, max.offset());
            assertEquals(5000, max.timestamp());
        }
    }

    private static ListOffsetsResultInfo offset(Admin admin, TopicPartition tp, OffsetSpec spec) throws Exception {
        return admin.listOffsets(Map.of(tp, spec)).partitionResult(tp).get();
    }

    @Test
    void responseMaxBytesStillReturnsOneWholeBatch() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            admin.createTopics(List.of(new NewTopic("big", 2, (short) 1))).all().get();
            Uuid id = admin.describeTopics(List.of("big")).allTopicNames().get().get("big").topicId();
            try (KafkaProducer<String, String> p = b.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
                String large = "x".repeat(5000);
                p.send(new ProducerRecord<>("big", 0, "k", large)).get();
                p.send(new ProducerRecord<>("big", 1, "k", large)).get();
            }
            FetchRequestData d = new FetchRequestData().setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1000).setReplicaId(-1);
            FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic().setTopicId(id);
            for (int p = 0; p < 2; p++) {
                t.partitions().add(new FetchRequestData.FetchPartition().setPartition(p).setFetchOffset(0)
                        .setPartitionMaxBytes(1000).setCurrentLeaderEpoch(-1));
            }
            d.topics().add(t);
            try (RawClient c = new RawClient(b.port())) {
                FetchResponseData r = (FetchResponseData) c.call(ApiKeys.FETCH, (short) 18, d);
                List<FetchResponseData.PartitionData> parts = r.responses().get(0).partitions();
                assertTrue(parts.get(0).records().sizeInBytes() > 5000, "the first batch comes whole, over the limits");
                assertEquals(0, parts.get(1).records().sizeInBytes(), "then the response is full");
                assertEquals(1, parts.get(1).highWatermark());
            }
        }
    }
}
