package io.faultline.docker.sut;

import io.faultline.docker.DockerBacked;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The worked example of docs/your-broker.md end to end: Apache Kafka 4.4.0 described by a file alone (no class of
 * its own) builds, starts a KRaft node, round-trips records, and names the partition leader and the controller. One
 * node keeps it short in the default suite; the three-node rendering (voters, broker-only nodes) is checked in
 * {@link BrokerDescriptorTest}.
 */
@DockerBacked
class DescribedBrokerDockerTest {

    @Test
    void theWorkedExampleDescriptorStartsAClusterThatRoundTripsRecords() throws Exception {
        var sut = DescribedBroker.of(BrokerDescriptor.load(BrokerDescriptorTest.workedExample()), KafkaSettings.defaults());
        long t0 = System.nanoTime();
        try (SutCluster kafka = SutCluster.start(sut, 1, Duration.ofSeconds(120))) {
            System.out.printf("%s: 1 node ready in %d ms%n", sut.name(), (System.nanoTime() - t0) / 1_000_000);
            String bootstrap = kafka.bootstrapServers();
            KafkaTestClients.createTopic(bootstrap, KafkaTestClients.topic("described", 1, 1));
            KafkaTestClients.roundTrip(bootstrap, "described", 1000);

            var leader = sut.leaderOf(kafka.cluster(), "described", 0);
            assertTrue(leader.isPresent(), "the Admin API names the partition's leader");
            var controller = ((ControllerAware) sut).activeController(kafka.cluster());
            assertTrue(controller.isPresent(), "the KRaft quorum names its leader");
            assertEquals("n1", leader.get().name());
            assertEquals("n1", controller.get().name());
            // the template reached the node: the file the broker reads is the one rendered for it
            assertEquals(sut.renderedConfigs(kafka.addresses().get(0), kafka.addresses()).get("/opt/kafka/server.properties"),
                    kafka.node("n1").readString("/opt/kafka/server.properties"));
        }
    }
}
