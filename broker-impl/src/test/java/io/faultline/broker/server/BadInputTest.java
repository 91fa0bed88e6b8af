package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Garbage on one connection never hurts another: each bad input is answered (where the protocol has an answer)
 * or its connection is closed, while a well-behaved producer keeps getting acks=all acknowledgements.
 */
class BadInputTest {
    @TempDir
    static Path dir;
    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(dir, Map.of("socket.request.max.bytes", "1048576"));
        try (Admin a = broker.admin()) {
            TestBroker.createTopics(a, new NewTopic("steady", 1, (short) 1));
        }
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    private static byte[] frame(int declaredLength, byte[] payload) {
        return ByteBuffer.allocate(4 + payload.length).putInt(declaredLength).put(payload).array();
    }

    private static byte[] header(short apiKey, short version) {
        // request header v2: key, version, correlation id, client id (nullable string), empty tagged fields
        return ByteBuffer.allocate(11).putShort(apiKey).putShort(version).putInt(7).putShort((short) -1)
                .put((byte) 0).array();
    }

    @Test
    void badInputIsAnsweredOrClosedWhileAWellBehavedClientKeepsWorking() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger acked = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread steady = new Thread(() -> {
            try (KafkaProducer<String, String> p = broker.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
                while (!stop.get()) {
                    p.send(new ProducerRecord<>("steady", "k", "v" + acked.get())).get();
                    acked.incrementAndGet();
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        steady.start();
        try {
            Random random = new Random(42);
            for (int i = 0; i < 20; i++) { // random bytes, framed with a plausible length
                byte[] garbage = new byte[64];
                random.nextBytes(garbage);
                garbage[0] = 0x7f; // an API key no one has
                try (RawClient c = new RawClient(broker.port())) {
                    c.sendBytes(frame(garbage.length, garbage));
                    assertTrue(c.closedByPeer(), "random frame " + i);
                }
            }
            try (RawClient c = new RawClient(broker.port())) { // truncated header inside a complete frame
                c.sendBytes(frame(3, new byte[] {0, 3, 0}));
                assertTrue(c.closedByPeer(), "truncated header");
            }
            try (RawClient c = new RawClient(broker.port())) { // a 2 GB length prefix
                c.sendBytes(frame(Integer.MAX_VALUE, new byte[16]));
                assertTrue(c.closedByPeer(), "2 GB frame");
            }
            try (RawClient c = new RawClient(broker.port())) { // negative length
                c.sendBytes(frame(-5, new byte[0]));
                assertTrue(c.closedByPeer(), "negative length");
            }
            try (RawClient c = new RawClient(broker.port())) { // unknown API key, well-formed header
                c.sendBytes(frame(11, header((short) 9999, (short) 0)));
                assertTrue(c.closedByPeer(), "unknown api key");
            }
            try (RawClient c = new RawClient(broker.port())) { // too-new Metadata: no protocol answer, closed
                c.sendBytes(frame(11, header(ApiKeys.METADATA.id, (short) 99)));
                assertTrue(c.closedByPeer(), "too-new metadata");
            }
            try (RawClient c = new RawClient(broker.port())) { // too-new ApiVersions: answered at v0
                int cid = c.send(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequestData()
                        .setClientSoftwareName("x").setClientSoftwareVersion("1"));
                assertTrue(cid > 0);
                c.sendBytes(frame(11, header(ApiKeys.API_VERSIONS.id, (short) 99)));
                ApiVersionsResponseData ok = (ApiVersionsResponseData) c.receive(ApiKeys.API_VERSIONS, (short) 3, cid);
                assertEquals(Errors.NONE.code(), ok.errorCode());
                ApiVersionsResponseData v0 = (ApiVersionsResponseData) c.receive(ApiKeys.API_VERSIONS, (short) 0, 7);
                assertEquals(Errors.UNSUPPORTED_VERSION.code(), v0.errorCode());
                assertTrue(v0.apiKeys().find(ApiKeys.PRODUCE.id) != null);
                // the connection stays usable after the protocol-defined answer
                MetadataResponseData md = (MetadataResponseData) c.call(ApiKeys.METADATA, (short) 12,
                        new MetadataRequestData().setTopics(null));
                assertEquals(1, md.brokers().size());
            }
            try (RawClient c = new RawClient(broker.port())) { // unparsable body of a known API
                byte[] h = header(ApiKeys.METADATA.id, (short) 9);
                byte[] payload = ByteBuffer.allocate(h.length + 2).put(h).put((byte) 0x7f).put((byte) 0x7f).array();
                c.sendBytes(frame(payload.length, payload));
                assertTrue(c.closedByPeer(), "garbage body");
            }
            int before = acked.get();
            long deadline = System.currentTimeMillis() + 10_000;
            while (acked.get() < before + 10 && System.currentTimeMillis() < deadline) Thread.sleep(20);
            assertTrue(acked.get() >= before + 10, "the well-behaved producer kept getting acks");
        } finally {
            stop.set(true);
            steady.join(10_000);
        }
        assertEquals(null, failure.get());
        assertTrue(acked.get() > 10);
    }
}
