package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32C;
import java.util.zip.GZIPOutputStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
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

/**
 * Batches a hostile producer can send, each refused with Kafka's error and nothing stored, between two good
 * batches: afterwards (and after a restart on the same directory) the Java consumer reads exactly the two good ones.
 */
class HostileProduceTest {
    private static final int ATTRIBUTES = 21;
    private static final int CRC = 17;

    @TempDir
    Path dir;

    /** A valid uncompressed batch of one record (or several), as a mutable buffer. */
    static ByteBuffer plain(String... values) {
        SimpleRecord[] recs = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) recs[i] = new SimpleRecord(("k" + i).getBytes(), values[i].getBytes());
        return copy(MemoryRecords.withRecords(Compression.NONE, recs).buffer());
    }

    static ByteBuffer copy(ByteBuffer b) {
        ByteBuffer c = ByteBuffer.allocate(b.remaining());
        c.put(b.duplicate()).flip();
        return c;
    }

    /** Recomputes the v2 CRC-32C (attributes to end), so only the intended defect remains. */
    static ByteBuffer withCrc(ByteBuffer b) {
        CRC32C crc = new CRC32C();
        crc.update(b.duplicate().position(ATTRIBUTES));
        b.putInt(CRC, (int) crc.getValue());
        return b;
    }

    static ByteBuffer withCodec(ByteBuffer b, int codec) {
        b.putShort(ATTRIBUTES, (short) ((b.getShort(ATTRIBUTES) & ~7) | codec));
        return withCrc(b);
    }

    /** A batch header claiming gzip, followed by {@code payload} as the records area. */
    static ByteBuffer gzipHeaderOver(byte[] payload, int count) {
        ByteBuffer good = plain("x");
        ByteBuffer b = ByteBuffer.allocate(61 + payload.length);
        b.put(good.duplicate().limit(61)).put(payload).flip();
        b.putInt(8, b.remaining() - 12);
        b.putInt(23, count - 1);
        b.putInt(57, count);
        return withCodec(b, 1);
    }

    /**
     * A valid zstd batch made by hand: the records of {@code plain} in one raw block of a frame whose window
     * descriptor has the given exponent (window log = 10 + exponent; 17 = 128 MiB).
     */
    private static ByteBuffer zstdRawFrame(ByteBuffer plain, int exponent) {
        ByteBuffer recs = plain.duplicate().position(61);
        int n = recs.remaining();
        ByteBuffer z = ByteBuffer.allocate(4 + 1 + 1 + 3 + n).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        z.putInt(0xFD2FB528).put((byte) 0).put((byte) (exponent << 3));
        int header = 1 | (n << 3); // last block, raw
        z.put((byte) header).put((byte) (header >>> 8)).put((byte) (header >>> 16)).put(recs);
        ByteBuffer b = gzipHeaderOver(z.array(), plain.getInt(57));
        return withCodec(b, 4);
    }

    private static byte[] gzip(byte[] data) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(data);
        }
        return out.toByteArray();
    }

    static short produce(RawClient c, Uuid id, ByteBuffer batch) throws Exception {
        ProduceRequestData req = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5000);
        ProduceRequestData.TopicProduceData td = new ProduceRequestData.TopicProduceData().setTopicId(id);
        td.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0)
                .setRecords(MemoryRecords.readableRecords(batch.duplicate())));
        req.topicData().add(td);
        ProduceResponseData resp = (ProduceResponseData) c.call(ApiKeys.PRODUCE, (short) 13, req);
        return resp.responses().iterator().next().partitionResponses().get(0).errorCode();
    }

    private static Map<String, ByteBuffer> hostileBatches() throws Exception {
        Map<String, ByteBuffer> bad = new LinkedHashMap<>();
        for (int codec = 5; codec <= 7; codec++) bad.put("codec " + codec, withCodec(plain("c"), codec));
        bad.put("gzip flag over plain records", withCodec(plain("g"), 1));
        bad.put("snappy flag over plain records", withCodec(plain("s"), 2));
        bad.put("lz4 flag over plain records", withCodec(plain("l"), 3));
        bad.put("zstd flag over plain records", withCodec(plain("z"), 4));
        byte[] noise = new byte[300];
        new Random(7).nextBytes(noise);
        bad.put("gzip of random bytes", gzipHeaderOver(gzip(noise), 1));
        bad.put("gzip of 100 MB of zeros", gzipHeaderOver(gzip(new byte[100 << 20]), 1));
        bad.put("gzip bomb: one 70 MB record", copy(MemoryRecords.withRecords(Compression.gzip().build(),
                new SimpleRecord(new byte[70 << 20])).buffer()));
        ByteBuffer snappyLie = ByteBuffer.allocate(24).put(new byte[] {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0})
                .putInt(1).putInt(1).putInt(Integer.MAX_VALUE - 8).putInt(0);
        bad.put("snappy chunk claiming 2 GB", gzipHeaderOver(snappyLie.array(), 1).putShort(ATTRIBUTES, (short) 2));
        withCrc(bad.get("snappy chunk claiming 2 GB"));
        ByteBuffer crc = plain("crc");
        crc.put(crc.limit() - 1, (byte) (crc.get(crc.limit() - 1) ^ 1));
        bad.put("bad crc", crc);
        bad.put("count above records", withCrc(plain("a", "b").putInt(57, 3).putInt(23, 2)));
        bad.put("count below records", withCrc(plain("a", "b").putInt(57, 1).putInt(23, 0)));
        bad.put("lastOffsetDelta off count", withCrc(plain("a", "b").putInt(23, 5)));
        bad.put("base offset not 0", plain("b").putLong(0, 42));
        bad.put("client LogAppendTime", withCrc(plain("t").putShort(ATTRIBUTES, (short) 8)));
        ByteBuffer stretched = plain("v");
        stretched.put(61, (byte) (stretched.get(61) + 2)); // first record's zigzag length grows by one byte
        bad.put("record length overruns", withCrc(stretched));
        ByteBuffer magic = plain("m");
        magic.put(16, (byte) 3);
        bad.put("magic 3", magic);
        bad.put("batch length near 2^31", plain("n").putInt(8, Integer.MAX_VALUE - 5));
        bad.put("zstd frame declaring a 128 MB window", zstdRawFrame(plain("w"), 17));
        return bad;
    }

    private static Map<String, Short> expected() {
        Map<String, Short> e = new LinkedHashMap<>();
        for (int codec = 5; codec <= 7; codec++) e.put("codec " + codec, Errors.INVALID_RECORD.code());
        e.put("gzip flag over plain records", Errors.CORRUPT_MESSAGE.code());
        e.put("snappy flag over plain records", Errors.CORRUPT_MESSAGE.code());
        e.put("lz4 flag over plain records", Errors.CORRUPT_MESSAGE.code());
        e.put("zstd flag over plain records", Errors.CORRUPT_MESSAGE.code());
        e.put("gzip of random bytes", Errors.INVALID_RECORD.code()); // decompresses, records do not parse
        e.put("gzip of 100 MB of zeros", Errors.INVALID_RECORD.code()); // the first record's length is 0
        e.put("gzip bomb: one 70 MB record", Errors.MESSAGE_TOO_LARGE.code()); // over the decompressed cap
        e.put("snappy chunk claiming 2 GB", Errors.CORRUPT_MESSAGE.code());
        e.put("bad crc", Errors.CORRUPT_MESSAGE.code());
        e.put("count above records", Errors.INVALID_RECORD.code());
        e.put("count below records", Errors.INVALID_RECORD.code());
        e.put("lastOffsetDelta off count", Errors.INVALID_RECORD.code());
        e.put("base offset not 0", Errors.INVALID_RECORD.code());
        e.put("client LogAppendTime", Errors.INVALID_TIMESTAMP.code());
        e.put("record length overruns", Errors.INVALID_RECORD.code());
        e.put("magic 3", Errors.CORRUPT_MESSAGE.code());
        e.put("batch length near 2^31", Errors.CORRUPT_MESSAGE.code());
        e.put("zstd frame declaring a 128 MB window", Errors.INVALID_RECORD.code()); // not retriable
        return e;
    }

    private static List<String> readAll(TestBroker b) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> c = b.consumer(Map.of())) {
            c.assign(List.of(new TopicPartition("hostile", 0)));
            long deadline = System.currentTimeMillis() + 20_000;
            while (values.size() < 2 && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) values.add(r.offset() + ":" + r.value());
            }
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(300))) values.add(r.offset() + ":" + r.value());
        }
        return values;
    }

    @Test
    void validBatchesOfEveryCodecAreAccepted() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("hostile", 1, (short) 1));
            Uuid id = admin.describeTopics(List.of("hostile")).allTopicNames().get().get("hostile").topicId();
            List<Compression> codecs = List.of(Compression.NONE, Compression.gzip().build(),
                    Compression.snappy().build(), Compression.lz4().build(), Compression.zstd().build());
            try (RawClient c = new RawClient(b.port())) {
                for (Compression codec : codecs) {
                    SimpleRecord[] recs = new SimpleRecord[20];
                    for (int i = 0; i < recs.length; i++) {
                        recs[i] = new SimpleRecord(1_700_000_000_000L + i, ("k" + i).getBytes(),
                                ("value " + i + " " + "x".repeat(i * 50)).getBytes(),
                                new org.apache.kafka.common.header.Header[] {
                                    new org.apache.kafka.common.header.internals.RecordHeader("h", new byte[] {1})});
                    }
                    assertEquals(Errors.NONE.code(), produce(c, id, copy(MemoryRecords.withRecords(codec, recs).buffer())),
                            codec.type().name);
                }
                // the same hand-made zstd frame with an 8 MiB window (the largest accepted) is fine
                assertEquals(Errors.NONE.code(), produce(c, id, zstdRawFrame(plain("ok"), 13)), "zstd 8 MiB window");
            }
            try (KafkaConsumer<String, String> consumer = b.consumer(Map.of())) {
                consumer.assign(List.of(new TopicPartition("hostile", 0)));
                int n = 0;
                long deadline = System.currentTimeMillis() + 20_000;
                while (n < 101 && System.currentTimeMillis() < deadline) n += consumer.poll(Duration.ofMillis(200)).count();
                assertEquals(101, n, "all 5 x 20 records and the hand-made zstd one read back");
            }
        }
    }

    @Test
    void everyBadBatchIsRefusedAndThePartitionStaysReadable() throws Exception {
        Map<String, Short> actual = new LinkedHashMap<>();
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("hostile", 1, (short) 1));
            Uuid id = admin.describeTopics(List.of("hostile")).allTopicNames().get().get("hostile").topicId();
            try (RawClient c = new RawClient(b.port())) {
                assertEquals(Errors.NONE.code(), produce(c, id, plain("first")));
                for (Map.Entry<String, ByteBuffer> e : hostileBatches().entrySet()) {
                    actual.put(e.getKey(), produce(c, id, e.getValue()));
                }
                assertEquals(Errors.NONE.code(), produce(c, id, plain("second")));
            }
            assertEquals(expected(), actual);
            assertEquals(List.of("0:first", "1:second"), readAll(b));
        }
        try (TestBroker again = TestBroker.start(dir)) {
            assertEquals(List.of("0:first", "1:second"), readAll(again), "after a restart on the same directory");
        }
    }
}
