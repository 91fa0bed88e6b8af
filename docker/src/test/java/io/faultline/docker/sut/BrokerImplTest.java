package io.faultline.docker.sut;

import io.faultline.docker.DockerBacked;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Our own broker in the same container runtime as Apache Kafka, driven by the same real clients. */
@DockerBacked
class BrokerImplTest {
    @Test
    void singleNodeBrokerServesRealClientsAndSurvivesAKill(@TempDir Path collected) throws Exception {
        var settings = KafkaSettings.defaults().withReplicationFactor(1).withMinInsyncReplicas(1);
        var kafka = SutCluster.start(new BrokerImpl(settings), 1, Duration.ofSeconds(60));
        try {
            String bootstrap = kafka.bootstrapServers();
            KafkaTestClients.createTopic(bootstrap, KafkaTestClients.topic("roundtrip", 1, 1));
            KafkaTestClients.roundTrip(bootstrap, "roundtrip", 2_000);
            var sut = (BrokerImpl) kafka.sut();
            assertEquals("n1", sut.leaderOf(kafka.cluster(), "roundtrip", 0).orElseThrow().name());

            // kill -9 and start: every acknowledged record is still there, and the broker serves again
            kafka.node("n1").kill();
            kafka.node("n1").start();
            sut.awaitReady(kafka.cluster(), Duration.ofSeconds(60));
            try (var producer = KafkaTestClients.producer(bootstrap, "all", 30_000)) {
                producer.send(new ProducerRecord<>("roundtrip", 0, null, "after-restart")).get(30, TimeUnit.SECONDS);
            }
            // The image's class-data archive (made by a training run at build time) maps in this image's JVM:
            // -Xshare:on refuses to start when it cannot, where the node's -Xshare:auto would start without it.
            var cds = kafka.node("n1").exec(Duration.ofSeconds(60), "sh", "-c", "java -Xshare:on"
                    + " -XX:SharedArchiveFile=/opt/broker/broker.jsa -XX:+UseSerialGC -cp '/opt/broker/libs/*' -version");
            assertEquals(0, cds.exitCode(), "the class-data archive maps: " + cds);
        } finally {
            kafka.teardown(collected);
        }
        assertTrue(Files.isDirectory(collected.resolve("n1/data/broker/roundtrip-0")), "partition data collected");
        assertTrue(Files.size(collected.resolve("n1/console.log")) > 0, "console log collected");
    }

    /**
     * A node whose program exits while the cluster starts can never make it ready: the wait ends at once with the
     * node named and its last lines, instead of after the whole bound (here a bound no run reaches).
     */
    @Test
    void aNodeThatExitsAtStartEndsTheWaitWithItsReason() {
        var settings = KafkaSettings.defaults().withReplicationFactor(1).withMinInsyncReplicas(1)
                .withProperty("faultline.bug.read-past-hw", "true"); // refused without faultline.bugs.allowed
        var e = assertThrows(ClusterNotReadyException.class,
                () -> SutCluster.start(new BrokerImpl(settings), 1, Duration.ofHours(2)));
        assertTrue(e.getMessage().contains("the program of [n1] exited while starting"), e.getMessage());
        assertTrue(e.getMessage().contains("faultline.bugs.allowed"), "the node's own reason: " + e.getMessage());
    }
}
