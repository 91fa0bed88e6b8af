package io.faultline.docker.sut;

import io.faultline.docker.NodeAddress;
import io.faultline.docker.sut.KafkaVersion.Metadata;
import io.faultline.kafkacompat.KafkaClientLine;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KafkaVersionTest {
    private static final List<NodeAddress> NODES = List.of(new NodeAddress("n1", 1, "10.0.0.11"),
            new NodeAddress("n2", 2, "10.0.0.12"), new NodeAddress("n3", 3, "10.0.0.13"), new NodeAddress("n4", 4, "10.0.0.14"));

    @Test
    void familiesDecideScalaMetadataAndClients() {
        var old = KafkaVersion.parse("0.10.2.1");
        assertEquals("2.11", old.scala());
        assertEquals(Metadata.ZK, old.defaultMetadata());
        assertEquals(KafkaClientLine.LEGACY, old.clientLine());
        assertEquals(KafkaClientLine.LEGACY, KafkaVersion.parse("2.0.1").clientLine());
        assertEquals(KafkaClientLine.CURRENT, KafkaVersion.parse("2.1.1").clientLine());
        assertEquals("2.12", KafkaVersion.parse("2.1.1").scala());
        assertEquals(Metadata.KRAFT, KafkaVersion.parse("3.9.1").defaultMetadata());
        assertEquals(Metadata.ZK, KafkaVersion.parse("3.9.1").metadata(Metadata.ZK));
        assertTrue(KafkaVersion.parse("4.4.0").usesLog4j2());
        assertTrue(KafkaVersion.parse("0.10.2.1").compareTo(KafkaVersion.parse("0.10.2")) > 0);
    }

    @Test
    void aModeOrVersionThatDoesNotExistIsOneLine() {
        var e = assertThrows(IllegalArgumentException.class, () -> KafkaVersion.parse("4.4.0").metadata(Metadata.ZK));
        assertTrue(e.getMessage().contains("no ZooKeeper mode"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> KafkaVersion.parse("2.1.1").metadata(Metadata.KRAFT));
        assertThrows(IllegalArgumentException.class, () -> KafkaVersion.parse("latest"));
        assertThrows(IllegalArgumentException.class, () -> KafkaVersion.parse("0.9.0.1"));
        assertThrows(IllegalArgumentException.class, () -> Metadata.parse("etcd"));
    }

    @Test
    void thePomAddsExactlyTheJava17FixesEachFamilyNeeds() {
        String v0102 = KafkaDistribution.pom(KafkaVersion.parse("0.10.2.1"));
        assertTrue(v0102.contains("<artifactId>kafka_2.11</artifactId><version>0.10.2.1</version>"));
        assertTrue(v0102.contains("jaxb-api"));
        assertFalse(v0102.contains("reload4j"), "0.10 brings log4j 1.2 and its binding itself");
        String v201 = KafkaDistribution.pom(KafkaVersion.parse("2.0.1"));
        assertTrue(v201.contains("<artifactId>zookeeper</artifactId><version>3.4.9</version>"), "ZOOKEEPER-3779: the 3.4.13 client is swapped");
        assertTrue(v201.contains("<exclusion><groupId>org.apache.zookeeper</groupId>"));
        assertTrue(v201.contains("reload4j"));
        String v391 = KafkaDistribution.pom(KafkaVersion.parse("3.9.1"));
        assertFalse(v391.contains("jaxb-api"));
        assertFalse(v391.contains("3.4.9"));
        assertTrue(v391.contains("kafka_2.13"));
    }

    @Test
    void uncleanElectionWasOnByDefaultBefore0_11() {
        assertTrue(KafkaVersion.parse("0.10.2.1").uncleanElectionByDefault());
        assertFalse(KafkaVersion.parse("0.11.0.3").uncleanElectionByDefault(), "KIP-106 turned it off in 0.11");
        assertFalse(KafkaVersion.parse("2.0.1").uncleanElectionByDefault());
    }

    /** A node's files as the bundled descriptor of the release's mode renders them. */
    private static java.util.Map<String, String> files(String release, KafkaSettings settings, int node) {
        var kafka = new ApacheKafka(settings, KafkaVersion.parse(release), null);
        return kafka.renderedConfigs(NODES.get(node), NODES);
    }

    @Test
    void zooKeeperModeConfigLeavesOutWhatTheReleaseDoesNotKnow() {
        var settings = KafkaSettings.defaults();
        var n4 = files("0.10.2.1", settings, 3);
        String props = n4.get("/opt/kafka/config/server.properties");
        assertTrue(props.contains("broker.id=4\n"));
        assertTrue(props.contains("zookeeper.connect=10.0.0.11:2181,10.0.0.12:2181,10.0.0.13:2181\n"));
        assertFalse(props.contains("broker.session.timeout.ms"), "a KRaft-only setting");
        assertFalse(props.contains("transaction.state.log"), "0.10 has no transactions");
        assertTrue(props.contains("unclean.leader.election.enable=false\n"), "what the test sets is written");
        assertEquals("", n4.get("/data/zookeeper/myid"), "n4 is outside the ensemble: no ZooKeeper server there");
        assertTrue(files("2.0.1", settings, 0).get("/opt/kafka/config/server.properties")
                .contains("transaction.state.log.min.isr=2\n"));
        String ownDefault = files("0.10.2.1", settings.withUncleanLeaderElection(null), 0).get("/opt/kafka/config/server.properties");
        assertFalse(ownDefault.contains("unclean.leader.election.enable"), "unset: the release's own default applies");
        var n3 = files("0.10.2.1", settings, 2);
        assertEquals("3", n3.get("/data/zookeeper/myid"));
        String zk = n3.get("/opt/kafka/config/zookeeper.properties");
        assertTrue(zk.contains("server.2=10.0.0.12:2888:3888\nserver.3=10.0.0.13:2888:3888\n"), zk);
        assertFalse(zk.contains("server.4"), "the ensemble is the first three nodes");
    }

    @Test
    void kraftModeConfigMakesTheFirstThreeNodesTheQuorum() {
        var settings = KafkaSettings.defaults();
        var kafka = new ApacheKafka(settings, KafkaVersion.parse("3.9.1"), null);
        assertEquals("3.9.1", kafka.version());
        assertEquals("apache-kafka-jars:3.9.1", kafka.descriptor().context().get("libs"), "the release's own jars");
        assertEquals(BrokerDescriptor.Controller.QUORUM, kafka.descriptor().controller());
        String voter = files("4.4.0", settings, 0).get("/opt/kafka/config/server.properties");
        assertTrue(voter.contains("process.roles=broker,controller\n"));
        assertTrue(voter.contains("listeners=PLAINTEXT://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093\n"));
        assertTrue(voter.contains("controller.quorum.voters=1@10.0.0.11:9093,2@10.0.0.12:9093,3@10.0.0.13:9093\n"));
        assertTrue(voter.contains("broker.session.timeout.ms="), "KRaft releases get every setting");
        String broker = files("4.4.0", settings, 3).get("/opt/kafka/config/server.properties");
        assertTrue(broker.contains("process.roles=broker\n"));
        assertTrue(broker.contains("listeners=PLAINTEXT://0.0.0.0:9092\n"));
        assertEquals(BrokerDescriptor.Controller.METADATA,
                new ApacheKafka(settings, KafkaVersion.parse("3.9.1"), Metadata.ZK).descriptor().controller());
        assertEquals("3.9.1 (zk)", new ApacheKafka(settings, KafkaVersion.parse("3.9.1"), Metadata.ZK).version());
        assertEquals(List.of(9092, 9093), kafka.peerPorts(), "KRaft: the broker and controller listeners");
        assertEquals(List.of(9092, 2181, 2888, 3888), new ApacheKafka(settings, KafkaVersion.parse("2.0.1"), null).peerPorts(),
                "ZooKeeper mode: the broker listener and the ensemble's ports");
    }
}
