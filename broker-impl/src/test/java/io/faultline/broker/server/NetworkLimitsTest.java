package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** max.connections and connections.max.idle.ms. */
class NetworkLimitsTest {
    @TempDir
    Path dir;

    @Test
    void connectionsBeyondTheLimitAreRefusedAndIdleOnesClosed() throws Exception {
        try (TestBroker b = TestBroker.start(dir, Map.of("max.connections", "2", "connections.max.idle.ms", "1500"))) {
            try (RawClient c1 = new RawClient(b.port()); RawClient c2 = new RawClient(b.port())) {
                MetadataResponseData md = (MetadataResponseData) c1.call(ApiKeys.METADATA, (short) 12,
                        new MetadataRequestData().setTopics(null));
                assertEquals(b.port(), md.brokers().iterator().next().port());
                c2.call(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
                try (RawClient c3 = new RawClient(b.port())) {
                    assertTrue(c3.closedByPeer(), "third connection refused");
                }
                // c1 stays busy, c2 goes idle and is closed after connections.max.idle.ms
                long until = System.currentTimeMillis() + 3500;
                while (System.currentTimeMillis() < until) {
                    c1.call(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
                    Thread.sleep(200);
                }
                assertTrue(c2.closedByPeer(), "idle connection closed");
            }
            // the slots are free again and a new connection is served
            try (RawClient c4 = new RawClient(b.port())) {
                MetadataResponseData md = (MetadataResponseData) c4.call(ApiKeys.METADATA, (short) 12,
                        new MetadataRequestData().setTopics(null));
                assertEquals(1, md.brokers().size());
            }
        }
    }
}
