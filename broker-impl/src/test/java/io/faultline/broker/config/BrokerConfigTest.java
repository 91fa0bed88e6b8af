package io.faultline.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.faultline.broker.storage.CleanupPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.Properties;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerConfigTest {
    @TempDir
    Path dir;

    @Test
    void readsAServerPropertiesFileWithKafkaNames() throws Exception {
        Path f = dir.resolve("server.properties");
        Files.writeString(f, String.join("\n",
                "node.id=3",
                "listeners=PLAINTEXT://0.0.0.0:19092",
                "advertised.listeners=PLAINTEXT://broker-3:19092",
                "log.dirs=/data/a,/data/b",
                "log.retention.hours=2",
                "log.segment.bytes=1048576",
                "log.cleanup.policy=compact",
                "socket.request.max.bytes=1000",
                "max.connections=7",
                "auto.create.topics.enable=false",
                "offsets.topic.num.partitions=5",
                "faultline.fsync.every.append=true"));
        BrokerConfig c = BrokerConfig.load(f);
        assertEquals(3, c.nodeId());
        assertEquals("0.0.0.0", c.listenerHost());
        assertEquals(19092, c.listenerPort());
        assertEquals("broker-3", c.advertisedHost());
        assertEquals(19092, c.advertisedPort());
        assertEquals(Path.of("/data/a"), c.logDir());
        assertEquals(List.of(Path.of("/data/a"), Path.of("/data/b")), c.logDirs());
        assertEquals(2 * 3_600_000L, c.defaultLogConfig().retentionMs());
        assertEquals(1048576, c.defaultLogConfig().segmentBytes());
        assertEquals(Set.of(CleanupPolicy.COMPACT), c.defaultLogConfig().cleanupPolicy());
        assertTrue(c.defaultLogConfig().fsyncEveryAppend());
        assertEquals(1000, c.socketRequestMaxBytes());
        assertEquals(7, c.maxConnections());
        assertEquals(false, c.autoCreateTopics());
        assertEquals(5, c.offsetsTopicPartitions());
    }

    @Test
    void defaultsFollowKafka() throws Exception {
        Path f = dir.resolve("min.properties");
        Files.writeString(f, "listeners=PLAINTEXT://127.0.0.1:9092\nlog.dirs=" + dir + "\n");
        BrokerConfig c = BrokerConfig.load(f);
        assertEquals("127.0.0.1", c.advertisedHost(), "advertised defaults to the listener");
        assertEquals(104857600, c.socketRequestMaxBytes());
        assertEquals(50, c.offsetsTopicPartitions());
        assertEquals(3000, c.groupInitialRebalanceDelayMs());
        assertEquals(1, c.numPartitions());
        assertEquals(null, c.rack());
        assertFalse(c.rackAwareReads(), "Kafka's default selector: the leader serves every read");
        assertTrue(c.autoCreateTopics());
        assertTrue(c.cluster().standalone(), "no controller.quorum.voters: a one-voter quorum of itself");
        assertEquals(Set.of(ClusterConfig.ProcessRole.BROKER, ClusterConfig.ProcessRole.CONTROLLER), c.cluster().roles());
        assertEquals("PLAINTEXT", c.listeners().interBroker());
        assertTrue(c.listeners().controllerListener().isEmpty());
        assertEquals(2000, c.cluster().brokerHeartbeatIntervalMs());
        assertEquals(9000, c.cluster().brokerSessionTimeoutMs());
        assertEquals(1, c.cluster().defaultReplicationFactor());
        assertEquals(1, c.cluster().minInsyncReplicas());
        assertFalse(c.cluster().uncleanLeaderElection());
        assertEquals(30_000, c.cluster().replicaLagTimeMaxMs());
        assertTrue(c.cluster().autoLeaderRebalance(), "on by default, as in Kafka");
        assertEquals(300_000, c.cluster().leaderImbalanceCheckIntervalMs());
        assertEquals(10, c.cluster().leaderImbalancePerBrokerPercentage());
    }

    private static Properties props(Map<String, String> m) {
        Properties p = new Properties();
        m.forEach(p::setProperty);
        return p;
    }

    @Test
    void readsAClusterNodeWithThreeListeners() {
        BrokerConfig c = BrokerConfig.from(props(Map.ofEntries(
                Map.entry("node.id", "2"),
                Map.entry("process.roles", "broker,controller"),
                Map.entry("listeners", "CLIENT://:9092,REPLICATION://:9091,CONTROLLER://:9093"),
                Map.entry("advertised.listeners", "CLIENT://n2:9092,REPLICATION://n2:9091"),
                Map.entry("listener.security.protocol.map", "CLIENT:PLAINTEXT,REPLICATION:PLAINTEXT,CONTROLLER:PLAINTEXT"),
                Map.entry("inter.broker.listener.name", "REPLICATION"),
                Map.entry("controller.listener.names", "CONTROLLER"),
                Map.entry("controller.quorum.voters", "1@n1:9093,2@n2:9093,3@n3:9093"),
                Map.entry("log.dirs", "/d1"),
                Map.entry("broker.heartbeat.interval.ms", "500"),
                Map.entry("broker.session.timeout.ms", "2000"),
                Map.entry("default.replication.factor", "3"),
                Map.entry("min.insync.replicas", "2"),
                Map.entry("unclean.leader.election.enable", "true"),
                Map.entry("replica.lag.time.max.ms", "5000"),
                Map.entry("auto.leader.rebalance.enable", "false"),
                Map.entry("leader.imbalance.check.interval.seconds", "30"))));
        assertEquals(2, c.nodeId());
        assertEquals(List.of("CLIENT", "REPLICATION", "CONTROLLER"),
                c.listeners().listeners().stream().map(Listener::name).toList());
        assertEquals("CLIENT", c.listeners().clientListener().name());
        assertEquals("0.0.0.0", c.listenerHost());
        assertEquals("n2", c.advertisedHost());
        assertEquals("REPLICATION", c.listeners().interBroker());
        assertEquals(9093, c.listeners().controllerListener().orElseThrow().port());
        assertEquals(List.of(1, 2, 3), List.copyOf(c.cluster().voters().keySet()));
        assertTrue(c.cluster().isVoter(2));
        assertEquals(500, c.cluster().brokerHeartbeatIntervalMs());
        assertEquals(2000, c.cluster().brokerSessionTimeoutMs());
        assertEquals(3, c.cluster().defaultReplicationFactor());
        assertEquals(2, c.cluster().minInsyncReplicas());
        assertTrue(c.cluster().uncleanLeaderElection());
        assertEquals(5000, c.cluster().replicaLagTimeMaxMs());
        assertFalse(c.cluster().autoLeaderRebalance());
        assertEquals(30_000, c.cluster().leaderImbalanceCheckIntervalMs());
    }

    @Test
    void badValuesAreReportedTogetherEachNamingItsKey() {
        ConfigException e = assertThrows(ConfigException.class, () -> BrokerConfig.from(props(Map.of(
                "listeners", "CLIENT://:9092,SECURE://:9094",
                "listener.security.protocol.map", "CLIENT:PLAINTEXT,SECURE:SSL",
                "process.roles", "broker,wizard",
                "num.io.threads", "many",
                "unclean.leader.election.enable", "maybe",
                "replica.selector.class", "com.example.Nearest",
                "controller.quorum.voters", "1@n1"))));
        String all = e.getMessage();
        assertTrue(all.contains("SECURE uses SSL; only PLAINTEXT is implemented"), all);
        assertTrue(all.contains("process.roles: unknown role 'wizard'"), all);
        assertTrue(all.contains("num.io.threads: 'many' is not an integer"), all);
        assertTrue(all.contains("unclean.leader.election.enable: 'maybe' is not true or false"), all);
        assertTrue(all.contains("controller.quorum.voters"), all);
        assertTrue(all.contains("replica.selector.class: 'com.example.Nearest'"), all);
        assertEquals(6, e.problems().size(), all);
    }

    @Test
    void aVoterNeedsTheControllerRoleAndAControllerListener() {
        ConfigException e = assertThrows(ConfigException.class, () -> BrokerConfig.from(props(Map.of(
                "node.id", "1",
                "process.roles", "broker",
                "listeners", "PLAINTEXT://:9092",
                "controller.quorum.voters", "1@n1:9093"))));
        assertTrue(e.getMessage().contains("is in controller.quorum.voters but has no controller role"), e.getMessage());
        assertTrue(e.getMessage().contains("controller.listener.names: required"), e.getMessage());
        ConfigException unknownListener = assertThrows(ConfigException.class, () -> BrokerConfig.from(props(Map.of(
                "listeners", "CLIENT://:9092", "inter.broker.listener.name", "OTHER"))));
        assertTrue(unknownListener.getMessage().contains("CLIENT has no entry in listener.security.protocol.map"));
        assertTrue(unknownListener.getMessage().contains("inter.broker.listener.name: OTHER is not in listeners"));
    }
}
