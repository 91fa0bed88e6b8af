package io.faultline.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.metadata.PartitionRegistration;
import io.faultline.broker.metadata.TopicImage;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** CreateTopics validation and placement, DeleteTopics, CreatePartitions and configs. */
class TopicAdminTest {

    private static Errors err(CreatableTopicResult r) {
        return Errors.forCode(r.errorCode());
    }

    @Test
    void placementIsRoundRobinOverLiveBrokersWithTheIsrFullAndLeadersSpread() {
        LogicHarness h = new LogicHarness();
        h.brokers(1, 2, 3);
        CreatableTopicResult r = h.createTopic("t", 6, 3);
        assertEquals(Errors.NONE, err(r));
        assertEquals(6, r.numPartitions());
        assertEquals(3, r.replicationFactor());
        TopicImage t = h.image.topic("t").orElseThrow();
        assertEquals(r.topicId(), t.id());
        Set<Integer> leaders = new HashSet<>();
        for (PartitionRegistration p : t.partitions().values()) {
            assertEquals(3, new HashSet<>(p.replicas()).size());
            assertEquals(p.replicas(), p.isr());
            assertEquals(p.replicas().get(0), p.leader());
            assertEquals(0, p.leaderEpoch());
            leaders.add(p.leader());
        }
        assertEquals(Set.of(1, 2, 3), leaders);
    }

    @Test
    void aHugePartitionCountIsRefusedAsAPolicyViolationAndWritesNothing() {
        LogicHarness h = new LogicHarness();
        h.brokers(1);
        int before = h.log.size();
        CreatableTopicResult r = h.createTopic("huge", 1_860_000_000, 1);
        assertEquals(Errors.POLICY_VIOLATION, err(r));
        assertEquals("Excessively large number of partitions per request.", r.errorMessage());
        assertEquals(before, h.log.size());
    }

    @Test
    void theLargestAllowedTopicIsCreatedAndABrokerLossReElectsAllItsPartitions() {
        LogicHarness h = new LogicHarness();
        h.brokers(1, 2, 3);
        assertEquals(Errors.NONE, err(h.createTopic("big", h.settings.maxPartitionsPerRequest(), 3)));
        h.time.advance(2000);
        h.heartbeat(1);
        h.heartbeat(2);
        assertEquals(List.of(3), h.tick());
        for (PartitionRegistration p : h.image.topic("big").orElseThrow().partitions().values()) {
            assertTrue(p.hasLeader() && p.leader() != 3 && p.isr().size() == 2, p.toString());
        }
        // Replaying the whole log as one batch gives the same state (brokers then all registered at its offset).
        assertEquals(h.image.toRecords(), io.faultline.broker.metadata.MetadataImage.EMPTY.apply(h.image.offset(), h.log).toRecords());
    }

    @Test
    void badNamesDuplicatesAndBadCountsGetKafkasErrors() {
        LogicHarness h = new LogicHarness();
        h.brokers(1, 2);
        for (String bad : List.of("", ".", "..", "a b", "x".repeat(250), "ünï")) {
            assertEquals(Errors.INVALID_TOPIC_EXCEPTION, err(h.createTopic(bad, 1, 1)), "name '" + bad + "'");
        }
        assertEquals(Errors.NONE, err(h.createTopic("x".repeat(249), 1, 1)));
        assertEquals(Errors.INVALID_PARTITIONS, err(h.createTopic("zero", 0, 1)));
        assertEquals(Errors.INVALID_PARTITIONS, err(h.createTopic("neg", -5, 1)));
        assertEquals(Errors.INVALID_REPLICATION_FACTOR, err(h.createTopic("rf0", 1, 0)));
        CreatableTopicResult tooMany = h.createTopic("rf3", 1, 3);
        assertEquals(Errors.INVALID_REPLICATION_FACTOR, err(tooMany));
        assertTrue(tooMany.errorMessage().contains("only 2 broker(s)"), tooMany.errorMessage());
        assertEquals(Errors.INVALID_CONFIG, err(h.createTopic("cfg", 1, 1, "no.such.config", "1")));
        assertEquals(Errors.INVALID_CONFIG, err(h.createTopic("cfg", 1, 1, "min.insync.replicas", "zero")));
        assertEquals(Errors.NONE, err(h.createTopic("ok", 1, 2, "min.insync.replicas", "2")));
        assertEquals(Map.of("min.insync.replicas", "2"), h.image.topicConfig("ok"));
        assertEquals(Errors.TOPIC_ALREADY_EXISTS, err(h.createTopic("ok", 1, 1)));
        assertEquals(Errors.NONE, err(h.createTopic("o.k", 1, 1)));
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION, err(h.createTopic("o_k", 1, 1))); // '.' and '_' collide in metric names
    }

    @Test
    void duplicateNamesInOneRequestAndValidateOnly() {
        LogicHarness h = new LogicHarness();
        h.brokers(1);
        CreateTopicsRequestData req = new CreateTopicsRequestData();
        req.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("d").setNumPartitions(1).setReplicationFactor((short) 1));
        req.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("d").setNumPartitions(2).setReplicationFactor((short) 1));
        req.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("v").setNumPartitions(2).setReplicationFactor((short) 1));
        req.setValidateOnly(true);
        CreateTopicsResponseData resp = h.run(req);
        assertEquals(Errors.INVALID_REQUEST, err(resp.topics().find("d")));
        assertEquals(Errors.NONE, err(resp.topics().find("v")));
        assertEquals(2, resp.topics().find("v").numPartitions());
        assertTrue(h.image.topic("v").isEmpty(), "validate_only writes nothing");
    }

    private static CreateTopicsRequestData manual(String name, int partitions, int rf, List<List<Integer>> assignment) {
        CreateTopicsRequestData.CreatableTopic t = new CreateTopicsRequestData.CreatableTopic().setName(name)
                .setNumPartitions(partitions).setReplicationFactor((short) rf);
        for (int p = 0; p < assignment.size(); p++) {
            t.assignments().add(new CreateTopicsRequestData.CreatableReplicaAssignment().setPartitionIndex(p)
                    .setBrokerIds(new java.util.ArrayList<>(assignment.get(p))));
        }
        CreateTopicsRequestData req = new CreateTopicsRequestData();
        req.topics().add(t);
        return req;
    }

    @Test
    void manualAssignmentsAreCheckedAndKept() {
        LogicHarness h = new LogicHarness();
        h.brokers(1, 2, 3);
        CreateTopicsResponseData ok = h.run(manual("m", -1, -1, List.of(List.of(3, 1), List.of(2, 3))));
        assertEquals(Errors.NONE, err(ok.topics().find("m")));
        assertEquals(List.of(3, 1), h.partition("m", 0).replicas());
        assertEquals(3, h.partition("m", 0).leader());
        CreateTopicsResponseData unknown = h.run(manual("u", -1, -1, List.of(List.of(1, 9))));
        assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT, err(unknown.topics().find("u")));
        CreateTopicsResponseData uneven = h.run(manual("e", -1, -1, List.of(List.of(1, 2), List.of(3))));
        assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT, err(uneven.topics().find("e")));
        CreateTopicsResponseData both = h.run(manual("b", 2, -1, List.of(List.of(1), List.of(2))));
        assertEquals(Errors.INVALID_REQUEST, err(both.topics().find("b")));
        assertTrue(h.image.topic("u").isEmpty() && h.image.topic("e").isEmpty() && h.image.topic("b").isEmpty());
    }

    @Test
    void theClusterPartitionBudgetIsEnforced() {
        LogicHarness h = new LogicHarness(ControllerSettings.DEFAULTS.withPartitionLimits(100, 1000, 10));
        h.brokers(1);
        assertEquals(Errors.NONE, err(h.createTopic("a", 8, 1)));
        assertEquals(Errors.POLICY_VIOLATION, err(h.createTopic("b", 3, 1)));
        assertEquals(Errors.INVALID_PARTITIONS, err(h.createTopic("c", 101, 1)));
        assertEquals(Errors.NONE, err(h.createTopic("b", 2, 1)));
    }

    @Test
    void deleteByNameOrIdAndCreatePartitionsIncreaseOnly() {
        LogicHarness h = new LogicHarness();
        h.brokers(1, 2);
        h.createTopic("a", 1, 2);
        h.createTopic("b", 1, 2);
        assertEquals(Errors.NONE, h.setTopicConfig("a", "retention.ms", "1000"));

        CreatePartitionsRequestData cp = new CreatePartitionsRequestData();
        cp.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("a").setCount(3));
        cp.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("b").setCount(1));
        cp.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("nope").setCount(4));
        CreatePartitionsResponseData cpr = h.run(cp);
        assertEquals(List.of(Errors.NONE.code(), Errors.INVALID_PARTITIONS.code(), Errors.UNKNOWN_TOPIC_OR_PARTITION.code()),
                cpr.results().stream().map(r -> r.errorCode()).toList());
        assertEquals(3, h.image.topic("a").orElseThrow().partitionCount());
        assertEquals(2, h.partition("a", 2).replicas().size());

        DeleteTopicsRequestData del = new DeleteTopicsRequestData();
        del.topics().add(new DeleteTopicsRequestData.DeleteTopicState().setName("a"));
        del.topics().add(new DeleteTopicsRequestData.DeleteTopicState().setTopicId(h.topicId("b")));
        del.topics().add(new DeleteTopicsRequestData.DeleteTopicState().setName("gone"));
        DeleteTopicsResponseData dr = h.run(del);
        assertEquals(List.of(Errors.NONE.code(), Errors.NONE.code(), Errors.UNKNOWN_TOPIC_OR_PARTITION.code()),
                dr.responses().stream().map(r -> r.errorCode()).toList());
        assertTrue(h.image.topicsById().isEmpty());
        assertTrue(h.image.topicConfigs().isEmpty(), "a deleted topic's configs go with it");
    }

    @Test
    void configsAreSetDeletedAndReplaced() {
        LogicHarness h = new LogicHarness();
        h.brokers(1);
        h.createTopic("t", 1, 1);
        assertEquals(Errors.NONE, h.setTopicConfig("t", "min.insync.replicas", "1"));
        assertEquals(Errors.NONE, h.setTopicConfig("t", "cleanup.policy", "compact"));
        assertEquals(Errors.INVALID_CONFIG, h.setTopicConfig("t", "unclean.leader.election.enable", "maybe"));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, h.setTopicConfig("other", "retention.ms", "5"));
        assertEquals(Map.of("min.insync.replicas", "1", "cleanup.policy", "compact"), h.image.topicConfig("t"));
        assertEquals(Errors.NONE, h.setTopicConfig("t", "cleanup.policy", null));
        assertEquals(Map.of("min.insync.replicas", "1"), h.image.topicConfig("t"));

        AlterConfigsRequestData ac = new AlterConfigsRequestData();
        AlterConfigsRequestData.AlterConfigsResource r = new AlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("t");
        r.configs().add(new AlterConfigsRequestData.AlterableConfig().setName("retention.ms").setValue("60000"));
        ac.resources().add(r);
        AlterConfigsResponseData acr = h.run(ac);
        assertEquals(0, acr.responses().get(0).errorCode());
        assertEquals(Map.of("retention.ms", "60000"), h.image.topicConfig("t"));
        assertEquals("60000", TopicConfigs.describe(h.image, "t").get("retention.ms").value());
        assertTrue(TopicConfigs.describe(h.image, "t").get("min.insync.replicas").isDefault());
    }
}
