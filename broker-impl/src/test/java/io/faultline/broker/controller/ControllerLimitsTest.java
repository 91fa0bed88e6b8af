package io.faultline.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.ManualTime;
import io.faultline.broker.metadata.MetadataImage;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;

/** One request cannot produce a Raft entry too large to replicate: sizes and config names are bounded. */
class ControllerLimitsTest {

    private static IncrementalAlterConfigsRequestData.AlterConfigsResource resource(ConfigResource.Type type, String name,
                                                                                    String... kv) {
        IncrementalAlterConfigsRequestData.AlterConfigsResource r = new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(type.id()).setResourceName(name);
        for (int i = 0; i < kv.length; i += 2) {
            r.configs().add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName(kv[i]).setValue(kv[i + 1])
                    .setConfigOperation((byte) 0));
        }
        return r;
    }

    private static Errors alter(LogicHarness h, IncrementalAlterConfigsRequestData.AlterConfigsResource r) {
        IncrementalAlterConfigsRequestData req = new IncrementalAlterConfigsRequestData();
        req.resources().add(r);
        IncrementalAlterConfigsResponseData resp = h.run(req);
        return Errors.forCode(resp.responses().get(0).errorCode());
    }

    @Test
    void brokerConfigNamesAreCheckedAndValuesBounded() {
        LogicHarness h = new LogicHarness();
        h.brokers(1);
        h.createTopic("t", 1, 1);
        assertEquals(Errors.INVALID_CONFIG, alter(h, resource(ConfigResource.Type.BROKER, "", "no.such.config", "x")));
        assertEquals(Errors.INVALID_CONFIG, alter(h, resource(ConfigResource.Type.BROKER, "1", "unclean.leader.election.enable", "maybe")));
        assertEquals(Errors.NONE, alter(h, resource(ConfigResource.Type.BROKER, "", "unclean.leader.election.enable", "true")));
        String big = "x".repeat(TopicConfigs.MAX_VALUE_LENGTH + 1);
        // compression.type is a known topic config whose value the controller does not otherwise check.
        assertEquals(Errors.INVALID_CONFIG, alter(h, resource(ConfigResource.Type.TOPIC, "t", "compression.type", big)));
        assertEquals(Map.of("unclean.leader.election.enable", "true"), h.image.brokerConfig(""));
        assertEquals(Map.of(), h.image.topicConfig("t"));

        // Legacy AlterConfigs on a broker is checked the same way (log.cleaner.threads is dynamic, but not negative).
        AlterConfigsRequestData ac = new AlterConfigsRequestData();
        AlterConfigsRequestData.AlterConfigsResource r = new AlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(ConfigResource.Type.BROKER.id()).setResourceName("");
        r.configs().add(new AlterConfigsRequestData.AlterableConfig().setName("log.cleaner.threads").setValue("-1"));
        ac.resources().add(r);
        AlterConfigsResponseData acr = h.run(ac);
        assertEquals(Errors.INVALID_CONFIG.code(), acr.responses().get(0).errorCode());

        CreateTopicsRequestData ct = new CreateTopicsRequestData();
        CreateTopicsRequestData.CreatableTopic topic = new CreateTopicsRequestData.CreatableTopic().setName("u")
                .setNumPartitions(1).setReplicationFactor((short) 1);
        topic.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("compression.type").setValue(big));
        ct.topics().add(topic);
        CreateTopicsResponseData ctr = h.run(ct);
        assertEquals(Errors.INVALID_CONFIG.code(), ctr.topics().find("u").errorCode());
        assertTrue(h.image.topic("u").isEmpty());
    }

    @Test
    void aRequestWhoseBatchWouldExceedTheLimitIsRefusedWholeWithAMessage() {
        LogicHarness h = new LogicHarness();
        h.brokers(1);
        // Each value is allowed on its own; together they are far more than one batch may carry.
        String value = "v".repeat(TopicConfigs.MAX_VALUE_LENGTH - 1);
        IncrementalAlterConfigsRequestData req = new IncrementalAlterConfigsRequestData();
        int topics = 2 * ControllerLogic.MAX_REQUEST_BATCH_BYTES / (2 * value.length()) + 1;
        for (int i = 0; i < topics; i++) {
            h.createTopic("t" + i, 1, 1);
            req.resources().add(resource(ConfigResource.Type.TOPIC, "t" + i, "compression.type", value,
                    "message.timestamp.type", value));
        }
        MetadataImage before = h.image;
        int logged = h.log.size();
        IncrementalAlterConfigsResponseData resp = h.run(req);
        assertEquals(topics, resp.responses().size());
        for (IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse r : resp.responses()) {
            assertEquals(Errors.INVALID_CONFIG.code(), r.errorCode(), r.resourceName());
            assertTrue(r.errorMessage().contains("limit"), r.errorMessage());
        }
        assertEquals(logged, h.log.size(), "nothing is written");
        assertEquals(before.topicConfigs(), h.image.topicConfigs());

        // A create with the same configs on many topics: POLICY_VIOLATION for each topic, as Kafka's policies answer.
        CreateTopicsRequestData ct = new CreateTopicsRequestData();
        for (int i = 0; i < topics; i++) {
            CreateTopicsRequestData.CreatableTopic t = new CreateTopicsRequestData.CreatableTopic().setName("n" + i)
                    .setNumPartitions(1).setReplicationFactor((short) 1);
            t.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("compression.type").setValue(value));
            t.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("message.timestamp.type").setValue(value));
            ct.topics().add(t);
        }
        CreateTopicsResponseData ctr = h.run(ct);
        for (CreateTopicsResponseData.CreatableTopicResult r : ctr.topics()) {
            assertEquals(Errors.POLICY_VIOLATION.code(), r.errorCode(), r.name());
        }
        assertEquals(logged, h.log.size(), "nothing is written");
    }

    @Test
    void ratisCanBufferTheLargestBatchTheControllerWrites() {
        ControllerNodeConfig cfg = new ControllerNodeConfig(1, Map.of(1, new InetSocketAddress("127.0.0.1", 19093)),
                Map.of(), Path.of("unused"), new ManualTime(), ControllerSettings.DEFAULTS, null);
        RaftProperties p = RaftSetup.properties(cfg);
        long appender = RaftServerConfigKeys.Log.Appender.bufferByteLimit(p).getSize();
        assertTrue(ControllerLogic.MAX_REQUEST_BATCH_BYTES < ControllerLogic.MAX_BATCH_BYTES);
        assertTrue(appender >= 2L * ControllerLogic.MAX_BATCH_BYTES, "appender buffer " + appender);
        assertTrue(RaftServerConfigKeys.Log.writeBufferSize(p).getSize() >= appender + 8);
    }
}
