package io.faultline.broker.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.ManualTime;
import io.faultline.broker.partition.PartitionManager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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

/** Fetch waits (maxWaitMs / minBytes, on a manual broker clock) and ListOffsets lookups by timestamp. */
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
        ManualTime time = new ManualTime();
        try (TestBroker b = TestBroker.startOnManualClock(dir, time); Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("wait", 1, (short) 1));
            Uuid id = admin.describeTopics(List.of("wait")).allTopicNames().get().get("wait").topicId();
            PartitionManager partitions = b.broker.context().partitions();
            try (RawClient c = new RawClient(b.port())) {
                // an empty fetch waits until maxWaitMs passes on the broker's clock, not before
                CompletableFuture<FetchResponseData> empty = call(c, fetch(id, 0, 700, 1));
                await().atMost(Duration.ofSeconds(20)).until(() -> partitions.waitingOperations() == 1);
                time.advance(699);
                assertEquals(1, partitions.waitingOperations(), "still waiting 1 ms before maxWaitMs");
                time.advance(1);
                assertEquals(0, empty.get(20, TimeUnit.SECONDS).responses().get(0).partitions().get(0)
                        .records().sizeInBytes());

                // a waiting fetch is completed by a produce: the broker's clock does not move meanwhile
                CompletableFuture<FetchResponseData> woken = call(c, fetch(id, 0, 20_000, 1));
                await().atMost(Duration.ofSeconds(20)).until(() -> partitions.waitingOperations() == 1);
                try (KafkaProducer<String, String> p = b.producer(Map.of(ProducerConfig.ACKS_CONFIG, "1"))) {
                    p.send(new ProducerRecord<>("wait", "k", "v")).get();
                }
                FetchResponseData.PartitionData pd = woken.get(20, TimeUnit.SECONDS).responses().get(0)
                        .partitions().get(0);
                assertTrue(pd.records().sizeInBytes() > 0);
                assertEquals(1, pd.highWatermark());

                // minBytes larger than what is there: the fetch waits out maxWaitMs, then returns what it has
                CompletableFuture<FetchResponseData> partial = call(c, fetch(id, 0, 600, 100_000));
                await().atMost(Duration.ofSeconds(20)).until(() -> partitions.waitingOperations() == 1);
                assertFalse(partial.isDone());
                time.advance(600);
                assertTrue(partial.get(20, TimeUnit.SECONDS).responses().get(0).partitions().get(0).records()
                        .sizeInBytes() > 0);

                FetchResponseData oor = (FetchResponseData) c.call(ApiKeys.FETCH, (short) 17, fetch(id, 50, 0, 1));
                assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), oor.responses().get(0).partitions().get(0).errorCode());
            }
        }
    }

    /** One fetch on its own thread, so the test can move the broker's clock while it waits. */
    private static CompletableFuture<FetchResponseData> call(RawClient c, FetchRequestData req) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return (FetchResponseData) c.call(ApiKeys.FETCH, (short) 17, req);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        });
    }

    @Test
    void listOffsetsByTimestamp() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("ts", 1, (short) 1));
            TopicPartition tp = new TopicPartition("ts", 0);
            long base = System.currentTimeMillis() / 1000 * 1000; // only a base for the stamps, never a duration
            try (KafkaProducer<String, String> p = b.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
                // Recent stamps: records stamped in 1970 breach retention.ms, and the broker's maintenance (every
                // 5 s) may delete them in the middle of a slow test, as Kafka would.
                for (long ts : new long[] {1000, 2000, 5000, 3000, 4000}) {
                    p.send(new ProducerRecord<>("ts", 0, base + ts, "k", "v" + ts)).get();
                }
            }
            assertEquals(0, offset(admin, tp, OffsetSpec.earliest()).offset());
            assertEquals(5, offset(admin, tp, OffsetSpec.latest()).offset());
            assertEquals(1, offset(admin, tp, OffsetSpec.forTimestamp(base + 1500)).offset());
            assertEquals(2, offset(admin, tp, OffsetSpec.forTimestamp(base + 2500)).offset(), "first record with ts >= 2500");
            assertEquals(-1, offset(admin, tp, OffsetSpec.forTimestamp(base + 9000)).offset(), "nothing that new");
            ListOffsetsResultInfo max = offset(admin, tp, OffsetSpec.maxTimestamp());
            assertEquals(2, max.offset());
            assertEquals(base + 5000, max.timestamp());
        }
    }

    private static ListOffsetsResultInfo offset(Admin admin, TopicPartition tp, OffsetSpec spec) throws Exception {
        return admin.listOffsets(Map.of(tp, spec)).partitionResult(tp).get();
    }

    @Test
    void responseMaxBytesStillReturnsOneWholeBatch() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("big", 2, (short) 1));
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
