package io.faultline.broker.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.network.MemoryPool;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Request memory is bounded: frames that declare 100 MB cost only the bytes that arrive, frames that really send
 * their bytes stop being read when the pool is full, and a well-behaved client's round trip succeeds meanwhile.
 */
class RequestMemoryTest {
    @TempDir
    Path dir;

    /** A produce (acks=all) and a consume of the same record, each within the clients' timeouts. */
    private static void roundTrip(TestBroker b, String topic, String value) throws Exception {
        try (KafkaProducer<String, String> p = b.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000))) {
            p.send(new ProducerRecord<>(topic, "k", value)).get(30, TimeUnit.SECONDS);
        }
        try (KafkaConsumer<String, String> c = b.consumer(Map.of())) {
            c.assign(List.of(new TopicPartition(topic, 0)));
            List<String> seen = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 20_000;
            while (!seen.contains(value) && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) seen.add(r.value());
            }
            assertTrue(seen.contains(value), "consumed " + value + " (saw " + seen + ")");
        }
    }

    @Test
    void aDozenStalledHundredMegabyteFramesCostAlmostNothing() throws Exception {
        try (TestBroker b = TestBroker.start(dir, Map.of("queued.max.request.bytes", "104857600"));
             Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("calm", 1, (short) 1));
            MemoryPool pool = b.broker.socketServer().memoryPool();
            List<Socket> hostile = new ArrayList<>();
            try {
                for (int i = 0; i < 12; i++) {
                    Socket s = new Socket("127.0.0.1", b.port());
                    OutputStream out = s.getOutputStream();
                    out.write(ByteBuffer.allocate(4 + 100).putInt(100_000_000).array());
                    out.flush();
                    hostile.add(s);
                }
                roundTrip(b, "calm", "during");
                assertTrue(pool.used() <= 12 * 16 * 1024, "stalled frames hold their first buffers only: " + pool.used());
            } finally {
                for (Socket s : hostile) s.close();
            }
            roundTrip(b, "calm", "after");
        }
    }

    @Test
    void framesThatSendTheirBytesWaitForThePoolWhileSmallRequestsGoThrough() throws Exception {
        int frame = 4 << 20;
        try (TestBroker b = TestBroker.start(dir, Map.of("queued.max.request.bytes", Integer.toString(frame * 2),
                "socket.request.max.bytes", Integer.toString(frame)));
             Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("calm", 1, (short) 1));
            MemoryPool pool = b.broker.socketServer().memoryPool();
            List<Socket> hostile = new ArrayList<>();
            List<Thread> writers = new ArrayList<>();
            try {
                for (int i = 0; i < 6; i++) { // 6 x 4 MB of real bytes (minus the last one) against an 8 MB pool
                    Socket s = new Socket("127.0.0.1", b.port());
                    hostile.add(s);
                    Thread w = new Thread(() -> {
                        try {
                            OutputStream out = s.getOutputStream();
                            out.write(ByteBuffer.allocate(4).putInt(frame).array());
                            byte[] chunk = new byte[64 * 1024];
                            for (int sent = 0; sent < frame - chunk.length; sent += chunk.length) out.write(chunk);
                            out.flush();
                        } catch (Exception e) {
                            // closed by the test
                        }
                    });
                    w.setDaemon(true);
                    w.start();
                    writers.add(w);
                }
                // Full means no large frame can grow any more: which frames got their first 16 KB buffer before
                // which grew depends on scheduling (two grown frames, or one grown frame and first buffers that
                // leave less than a frame's growth free), so the test waits for that state, not a byte count.
                long growth = frame - 16 * 1024;
                await("the pool fills up").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                        .until(() -> pool.used() >= frame && pool.capacity() - pool.used() < growth);
                roundTrip(b, "calm", "small requests use the reserve");
                assertTrue(pool.used() <= frame * 2 + frame / 4, "never beyond capacity + reserve: " + pool.used());
            } finally {
                for (Socket s : hostile) s.close();
            }
            for (Thread w : writers) w.join(5000);
            roundTrip(b, "calm", "after"); // (the pool drains after the frame timeout: see MemoryBackPressureTest)
        }
    }
}
