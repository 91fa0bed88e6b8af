package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
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

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        try (TestBroker b = TestBroker.start(dir); org.apache.kafka.clients.admin.Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new org.apache.kafka.clients.admin.NewTopic("pipe", 1, (short) 1));
            org.apache.kafka.common.Uuid id = admin.describeTopics(List.of("pipe")).allTopicNames().get().get("pipe")
                    .topicId();
            try (RawClient c = new RawClient(b.port())) {
                // a slow request (a fetch parked for 500 ms) first, then fast ones: answers must keep the order
                org.apache.kafka.common.message.FetchRequestData slow = new org.apache.kafka.common.message.FetchRequestData()
                        .setMaxWaitMs(500).setMinBytes(1).setMaxBytes(1 << 20).setReplicaId(-1);
                org.apache.kafka.common.message.FetchRequestData.FetchTopic t =
                        new org.apache.kafka.common.message.FetchRequestData.FetchTopic().setTopicId(id);
                t.partitions().add(new org.apache.kafka.common.message.FetchRequestData.FetchPartition()
                        .setPartition(0).setFetchOffset(0).setPartitionMaxBytes(1000));
                slow.topics().add(t);
                int first = c.send(ApiKeys.FETCH, (short) 18, slow);
                int second = c.send(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
                int third = c.send(ApiKeys.API_VERSIONS, (short) 3, new org.apache.kafka.common.message.ApiVersionsRequestData()
                        .setClientSoftwareName("t").setClientSoftwareVersion("1"));
                c.receive(ApiKeys.FETCH, (short) 18, first); // each receive checks the correlation id
                c.receive(ApiKeys.METADATA, (short) 12, second);
                c.receive(ApiKeys.API_VERSIONS, (short) 3, third);
            }
        }
    }
}
