package io.faultline.kafkacompat;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

class KafkaClientLineTest {
    private static final String PROBE = "io.faultline.kafkacompat.VersionProbe";

    @Test
    void theSameCompiledClassLinksAgainstEachLinesKafkaClients() {
        assertEquals("4.4.0", KafkaClientLine.CURRENT.invokeStatic(PROBE, "version", new Class<?>[0]));
        assertEquals("3.9.1", KafkaClientLine.LEGACY.invokeStatic(PROBE, "version", new Class<?>[0]));
        assertEquals("kafka-clients-legacy", KafkaClientLine.LEGACY.invokeStatic(PROBE, "loaderOfAdmin", new Class<?>[0]));
    }

    @Test
    void sharedTypesCrossTheBoundaryAndKafkaUsingClassesDoNot() throws Exception {
        ClassLoader legacy = KafkaClientLine.LEGACY.loader();
        assertSame(ClusterAdmin.class, legacy.loadClass(ClusterAdmin.class.getName()), "an interface naming no Kafka class is shared");
        assertSame(String.class, legacy.loadClass("java.lang.String"));
        legacy.loadClass(ClusterAdmin.class.getName()); // now known to the legacy loader too, as a delegated class
        assertSame(ClusterAdmin.PartitionState.class, legacy.loadClass(ClusterAdmin.PartitionState.class.getName()),
                "a nested class of a shared class is shared");
        assertNotSame(AdminClusterAdmin.class, legacy.loadClass(AdminClusterAdmin.class.getName()), "a Kafka-using class is defined again");
        assertNotSame(org.apache.kafka.clients.admin.Admin.class, legacy.loadClass("org.apache.kafka.clients.admin.Admin"));
    }

    @Test
    void anAdminOfTheLegacyLineIsTheSharedInterface() {
        try (ClusterAdmin admin = ClusterAdmin.open("127.0.0.1:1", KafkaClientLine.LEGACY)) {
            assertEquals("kafka-clients-legacy", admin.getClass().getClassLoader().getName());
            assertEquals("3.9.1", KafkaClientLine.clientsVersionOf(admin.getClass()));
        }
    }
}
