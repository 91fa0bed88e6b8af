package io.faultline.docker.sut;

import io.faultline.docker.DockerBacked;
import org.junit.jupiter.api.Test;

import java.time.Duration;

/** The smallest full quorum: three combined broker+controller nodes. */
@DockerBacked
class ApacheKafkaThreeNodeTest {
    @Test
    void threeNodeClusterServesTenThousandAcksAllRecordsInOrder() throws Exception {
        long t0 = System.nanoTime();
        try (var kafka = SutCluster.start(new ApacheKafka(KafkaSettings.defaults()), 3, Duration.ofSeconds(120))) {
            System.out.printf("apache-kafka 3 nodes ready in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            KafkaTestClients.createTopic(kafka.bootstrapServers(), KafkaTestClients.topic("roundtrip", 3, 2));
            KafkaTestClients.roundTrip(kafka.bootstrapServers(), "roundtrip", 10_000);
        }
    }
}
