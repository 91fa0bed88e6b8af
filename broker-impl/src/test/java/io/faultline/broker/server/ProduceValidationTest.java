package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Produce rejects what Kafka rejects, per partition, and keeps the connection. */
class ProduceValidationTest {
    @TempDir
    Path dir;

    private static ProduceResponseData.PartitionProduceResponse produce(RawClient c, Uuid id, short acks,
                                                                       MemoryRecords records) throws Exception {
        ProduceRequestData req = new ProduceRequestData().setAcks(acks).setTimeoutMs(5000);
        ProduceRequestData.TopicProduceData td = new ProduceRequestData.TopicProduceData().setTopicId(id);
        td.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
        req.topicData().add(td);
        ProduceResponseData resp = (ProduceResponseData) c.call(ApiKeys.PRODUCE, (short) 13, req);
        return resp.responses().iterator().next().partitionResponses().get(0);
    }

    private static MemoryRecords valid(int valueBytes) {
        return MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(new byte[valueBytes]));
    }

    @Test
    void invalidBatchesAreRejectedPerPartition() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("val", 1, (short) 1)
                    .configs(Map.of("max.message.bytes", "2000")));
            Uuid id = admin.describeTopics(List.of("val")).allTopicNames().get().get("val").topicId();
            try (RawClient c = new RawClient(b.port())) {
                MemoryRecords v1 = MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V1, 0L, Compression.NONE,
                        TimestampType.CREATE_TIME, new SimpleRecord("x".getBytes()));
                assertEquals(Errors.INVALID_RECORD.code(), produce(c, id, (short) 1, v1).errorCode(), "magic v1");

                ByteBuffer whole = valid(100).buffer();
                ByteBuffer cut = ByteBuffer.allocate(whole.remaining() - 7);
                cut.put(whole.duplicate().limit(whole.limit() - 7)).flip();
                assertEquals(Errors.CORRUPT_MESSAGE.code(),
                        produce(c, id, (short) 1, MemoryRecords.readableRecords(cut)).errorCode(), "truncated batch");

                assertEquals(Errors.MESSAGE_TOO_LARGE.code(), produce(c, id, (short) 1, valid(5000)).errorCode());

                MemoryRecords txn = MemoryRecords.withTransactionalRecords(Compression.NONE, 77L, (short) 0, 0,
                        new SimpleRecord("t".getBytes()));
                assertEquals(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code(), produce(c, id, (short) 1, txn)
                        .errorCode(), "transactional records in a request without a transactional id, as Kafka");

                assertEquals(Errors.INVALID_REQUIRED_ACKS.code(), produce(c, id, (short) 2, valid(10)).errorCode());
                assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), produce(c, Uuid.randomUuid(), (short) 1, valid(10))
                        .errorCode());

                ProduceResponseData.PartitionProduceResponse ok = produce(c, id, (short) -1, valid(10));
                assertEquals(Errors.NONE.code(), ok.errorCode(), "the connection still works");
                assertEquals(0, ok.baseOffset(), "nothing invalid was appended");
            }
            assertTrue(admin.listOffsets(Map.of(new org.apache.kafka.common.TopicPartition("val", 0),
                    org.apache.kafka.clients.admin.OffsetSpec.latest())).all().get().values().iterator().next()
                    .offset() == 1);
        }
    }

    @Test
    void compressedBatchesAreStoredIntact() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("zip", 1, (short) 1));
            Uuid id = admin.describeTopics(List.of("zip")).allTopicNames().get().get("zip").topicId();
            SimpleRecord[] recs = new SimpleRecord[50];
            for (int i = 0; i < recs.length; i++) recs[i] = new SimpleRecord(("key" + i).getBytes(), ("value" + i).getBytes());
            MemoryRecords sent = MemoryRecords.withRecords(Compression.gzip().build(), recs);
            RecordBatch sentBatch = sent.batches().iterator().next();
            long sentChecksum = sentBatch.checksum();
            int sentSize = sentBatch.sizeInBytes();
            try (RawClient c = new RawClient(b.port())) {
                produce(c, id, (short) 1, valid(10)); // offset 0, so the gzip batch is rebased to offset 1
                ProduceResponseData.PartitionProduceResponse r = produce(c, id, (short) -1, sent);
                assertEquals(Errors.NONE.code(), r.errorCode());
                assertEquals(1, r.baseOffset());
                org.apache.kafka.common.message.FetchRequestData f = new org.apache.kafka.common.message.FetchRequestData()
                        .setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20).setReplicaId(-1);
                org.apache.kafka.common.message.FetchRequestData.FetchTopic ft =
                        new org.apache.kafka.common.message.FetchRequestData.FetchTopic().setTopicId(id);
                ft.partitions().add(new org.apache.kafka.common.message.FetchRequestData.FetchPartition()
                        .setPartition(0).setFetchOffset(1).setPartitionMaxBytes(1 << 20));
                f.topics().add(ft);
                org.apache.kafka.common.message.FetchResponseData fr =
                        (org.apache.kafka.common.message.FetchResponseData) c.call(ApiKeys.FETCH, (short) 18, f);
                MemoryRecords got = (MemoryRecords) fr.responses().get(0).partitions().get(0).records();
                RecordBatch stored = null;
                for (RecordBatch batch : got.batches()) if (batch.baseOffset() == 1) stored = batch;
                assertEquals(Compression.gzip().build().type(), stored.compressionType());
                assertEquals(sentSize, stored.sizeInBytes(), "not recompressed");
                assertEquals(sentChecksum, stored.checksum(), "same bytes (the CRC does not cover the base offset)");
                assertEquals(50, stored.lastOffset() - stored.baseOffset() + 1);
                stored.ensureValid();
            }
        }
    }

    @Test
    void acksZeroGetsNoAnswerAndAFailureClosesTheConnection() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("quiet", 1, (short) 1));
            Uuid id = admin.describeTopics(List.of("quiet")).allTopicNames().get().get("quiet").topicId();
            try (RawClient c = new RawClient(b.port())) {
                ProduceRequestData req = new ProduceRequestData().setAcks((short) 0).setTimeoutMs(5000);
                ProduceRequestData.TopicProduceData td = new ProduceRequestData.TopicProduceData().setTopicId(id);
                td.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(valid(10)));
                req.topicData().add(td);
                c.send(ApiKeys.PRODUCE, (short) 13, req);
                // the next answer on the connection belongs to the next request: acks=0 got none
                int cid = c.send(ApiKeys.METADATA, (short) 12, new org.apache.kafka.common.message.MetadataRequestData()
                        .setTopics(null));
                c.receive(ApiKeys.METADATA, (short) 12, cid);
                ProduceRequestData bad = new ProduceRequestData().setAcks((short) 0).setTimeoutMs(5000);
                ProduceRequestData.TopicProduceData unknown = new ProduceRequestData.TopicProduceData()
                        .setTopicId(Uuid.randomUuid());
                unknown.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(valid(10)));
                bad.topicData().add(unknown);
                c.send(ApiKeys.PRODUCE, (short) 13, bad);
                assertTrue(c.closedByPeer(), "a failed acks=0 produce closes the connection, as Kafka does");
            }
            assertEquals(1, admin.listOffsets(Map.of(new org.apache.kafka.common.TopicPartition("quiet", 0),
                    org.apache.kafka.clients.admin.OffsetSpec.latest())).all().get().values().iterator().next().offset());
        }
    }
}
