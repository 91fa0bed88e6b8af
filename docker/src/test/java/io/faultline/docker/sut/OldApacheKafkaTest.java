package io.faultline.docker.sut;

import io.faultline.docker.DockerBacked;
import io.faultline.kafkacompat.ClusterAdmin;
import io.faultline.kafkacompat.KafkaClientLine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Apache Kafka 0.10.2.1 (jars fetched from Maven Central, made to run on Java 17) on three containers, each also a
 * member of the ZooKeeper ensemble, driven by kafka-clients 3.9.1 behind the class-loader boundary: 4.4 clients
 * cannot talk to a broker this old (KIP-896).
 */
@DockerBacked
class OldApacheKafkaTest {
    private static SutCluster kafka;
    private static ApacheKafka sut;

    @BeforeAll
    static void start() {
        sut = new ApacheKafka(KafkaSettings.defaults(), KafkaVersion.parse("0.10.2.1"), null);
        long t0 = System.nanoTime();
        kafka = SutCluster.start(sut, 3, Duration.ofSeconds(150));
        System.out.printf("apache-kafka 0.10.2.1 (zk) 3 nodes ready in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    }

    @AfterAll
    static void stop() {
        if (kafka != null) kafka.close();
    }

    @Test
    void zooKeeperModeWithTheLegacyClientLine() {
        assertEquals(KafkaVersion.Metadata.ZK, sut.metadata());
        assertEquals(KafkaClientLine.LEGACY, sut.clientLine());
    }

    @Test
    void recordsRoundTripThroughTheLegacyClients() throws Exception {
        @SuppressWarnings("unchecked")
        var read = (List<String>) KafkaClientLine.LEGACY.invokeStatic(LegacyClientRoundTrip.class.getName(), "roundTrip",
                new Class<?>[]{String.class, String.class, Integer.class}, kafka.bootstrapServers(), "old-roundtrip", 50);
        assertEquals(IntStream.range(0, 50).mapToObj(i -> "v" + i).toList(), read);
        try (ClusterAdmin admin = ClusterAdmin.open(kafka.bootstrapServers(), KafkaClientLine.LEGACY)) {
            var state = admin.partition("old-roundtrip", 0).orElseThrow();
            assertEquals(3, state.replicas().size());
            assertEquals(3, state.isr().size());
            assertEquals("n" + state.leader().orElseThrow(), sut.leaderOf(kafka.cluster(), "old-roundtrip", 0).orElseThrow().name());
        }
    }

    @Test
    void theActiveControllerIsTheBrokerZooKeeperElected() throws Exception {
        var controller = sut.activeController(kafka.cluster()).orElseThrow();
        // The /controller znode holds {"version":1,"brokerid":N,...}: ask ZooKeeper itself on a node.
        var znode = controller.sh("timeout 20 java -Xmx64m -cp '/opt/kafka/libs/*' org.apache.zookeeper.ZooKeeperMain"
                + " -server 127.0.0.1:2181 get /controller 2>/dev/null | grep brokerid");
        assertTrue(znode.stdout().contains("\"brokerid\":" + controller.name().substring(1)),
                "ZooKeeper's /controller names " + controller.name() + ": " + znode.stdout());
        try (ClusterAdmin admin = ClusterAdmin.open(kafka.bootstrapServers(), KafkaClientLine.LEGACY)) {
            assertEquals(3, admin.brokerIds().size());
        }
    }
}
