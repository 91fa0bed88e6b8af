package io.faultline.broker.server;

import static io.faultline.broker.server.HostileProduceTest.copy;
import static io.faultline.broker.server.HostileProduceTest.gzipHeaderOver;
import static io.faultline.broker.server.HostileProduceTest.produce;
import static io.faultline.broker.server.HostileProduceTest.withCodec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.network.MemoryPool;
import io.faultline.broker.storage.DecompressionMemory;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory produce validation needs counts against the broker's request memory pool: the records are validated
 * and written from the pooled request buffer (no copy), and the decoder's buffers of a compressed batch are reserved
 * in the pool before decompressing, so hostile compressed batches cannot take the heap beyond the budget.
 */
class ProduceMemoryTest {
    private static final int POOL = 8 << 20;

    @TempDir
    Path dir;

    /** A snappy batch (xerial framing) whose one chunk declares {@code declared} uncompressed bytes over noise. */
    private static ByteBuffer snappyDeclaring(int declared) {
        ByteBuffer chunk = ByteBuffer.allocate(5 + 200);
        for (int v = declared; ; v >>>= 7) { // the raw block's uncompressed length, little-endian base-128
            if (v < 0x80) {
                chunk.put((byte) v);
                break;
            }
            chunk.put((byte) (v & 0x7f | 0x80));
        }
        while (chunk.hasRemaining()) chunk.put((byte) 0x55);
        ByteBuffer framed = ByteBuffer.allocate(16 + 4 + chunk.capacity())
                .put(new byte[] {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}).putInt(1).putInt(1)
                .putInt(chunk.capacity()).put(chunk.array());
        return withCodec(gzipHeaderOver(framed.array(), 1), 2);
    }

    private static void awaitUsed(MemoryPool pool, java.util.function.LongPredicate ok) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 20_000;
        while (!ok.test(pool.used()) && System.currentTimeMillis() < deadline) Thread.sleep(10);
        assertTrue(ok.test(pool.used()), "pool used " + pool.used());
    }

    private static TestBroker start(Path dir) throws Exception {
        return TestBroker.start(dir, Map.of("queued.max.request.bytes", Integer.toString(POOL)));
    }

    private static Uuid create(Admin admin, String topic) throws Exception {
        TestBroker.createTopics(admin, new NewTopic(topic, 1, (short) 1));
        return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId();
    }

    @Test
    void aLargeCompressedBatchReservesItsDecoderMemoryInThePool() throws Exception {
        try (TestBroker b = start(dir); Admin admin = b.admin(); RawClient c = new RawClient(b.port())) {
            Uuid id = create(admin, "zstd");
            MemoryPool pool = b.broker.context().requestMemory();
            SimpleRecord[] recs = new SimpleRecord[64];
            for (int i = 0; i < recs.length; i++) recs[i] = new SimpleRecord(("k" + i).getBytes(), new byte[64 * 1024]);
            ByteBuffer batch = copy(MemoryRecords.withRecords(Compression.zstd().build(), recs).buffer());
            long decode = DecompressionMemory.of(MemoryRecords.readableRecords(batch.duplicate()));
            assertTrue(decode > 0 && batch.remaining() < decode, "4 MiB of zeros compress to " + batch.remaining()
                    + " bytes and need " + decode + " to decode");
            awaitUsed(pool, u -> u == 0);
            long before = pool.peakUsed();
            assertEquals(Errors.NONE.code(), produce(c, id, batch));
            assertTrue(pool.peakUsed() >= Math.max(before, decode + batch.remaining()),
                    "request bytes and decoder memory were held together: peak " + pool.peakUsed());
            awaitUsed(pool, u -> u == 0); // everything given back once answered

            // A chunk declaring more than the whole pool is refused before anything is allocated.
            assertEquals(Errors.MESSAGE_TOO_LARGE.code(), produce(c, id, snappyDeclaring(20 << 20)));
            assertTrue(pool.peakUsed() < POOL, "nothing near 20 MiB was reserved: " + pool.peakUsed());
        }
    }

    @Test
    void hostileCompressedBatchesWaitForThePoolWhileOtherClientsAreAnswered() throws Exception {
        try (TestBroker b = start(dir); Admin admin = b.admin()) {
            Uuid id = create(admin, "hostile");
            create(admin, "calm");
            MemoryPool pool = b.broker.context().requestMemory();
            ByteBuffer hostile = snappyDeclaring(3 << 20); // 3 MiB decoder buffer for 200 bytes of noise

            // Another connection's half-sent 6 MiB frame holds most of the pool: no room for the decoder now.
            Socket holder = new Socket("127.0.0.1", b.port());
            OutputStream out = holder.getOutputStream();
            out.write(ByteBuffer.allocate(4).putInt(6 << 20).array());
            out.write(new byte[32 * 1024]);
            out.flush();
            awaitUsed(pool, u -> u >= 6 << 20);
            try (RawClient c = new RawClient(b.port())) {
                assertEquals(Errors.REQUEST_TIMED_OUT.code(), produce(c, id, hostile), "retriable: no memory now");
                holder.close();
                awaitUsed(pool, u -> u < 1 << 20);
                assertEquals(Errors.CORRUPT_MESSAGE.code(), produce(c, id, hostile), "decoded once memory was free");
            }

            // Several connections sending such batches nonstop: the pool bounds them, other clients are answered.
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger refusals = new AtomicInteger();
            List<Thread> attackers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Thread t = new Thread(() -> {
                    try (RawClient c = new RawClient(b.port())) {
                        while (!stop.get()) {
                            short e = produce(c, id, hostile);
                            if (e != Errors.NONE.code()) refusals.incrementAndGet();
                        }
                    } catch (Exception e) {
                        // the broker may close the connection: the test's assertions are about the others
                    }
                }, "attacker-" + i);
                t.setDaemon(true);
                t.start();
                attackers.add(t);
            }
            try (KafkaProducer<String, String> p = b.producer(Map.of())) {
                for (int i = 0; i < 20; i++) p.send(new ProducerRecord<>("calm", "k", "v" + i)).get(30, TimeUnit.SECONDS);
                assertEquals(1, admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());
            } finally {
                stop.set(true);
                for (Thread t : attackers) t.join(10_000);
            }
            assertTrue(refusals.get() > 0, "the attackers were answered with errors");
            assertTrue(pool.peakUsed() <= POOL + POOL / 8, "never beyond capacity + reserve: " + pool.peakUsed());
            awaitUsed(pool, u -> u == 0);
        }
    }
}
