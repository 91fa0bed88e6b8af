package io.faultline.harness;

import io.faultline.kafkacompat.KafkaClientLine;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VersionedSutsTest {
    @Test
    void aReleaseNamesItsClientLineAndWhatItCanDo() {
        assertEquals(KafkaClientLine.LEGACY, Suts.clientLine("apache-kafka:0.10.2.1"));
        assertEquals(KafkaClientLine.CURRENT, Suts.clientLine("apache-kafka:2.1.1"));
        assertEquals(KafkaClientLine.CURRENT, Suts.clientLine("apache-kafka"));
        assertFalse(Suts.named("apache-kafka:0.10.2.1").transactions());
        assertTrue(Suts.named("apache-kafka:0.11.0.3").transactions());
        assertFalse(Suts.hasTransactionalProtocol("apache-kafka:0.10.2.1"));
        assertTrue(Suts.hasTransactionalProtocol("broker-impl"));
        // the nightly registers read as Kafka's consumer does: require_stable from 2.5 on (OffsetFetch v7)
        assertFalse(Suts.hasStableOffsetFetch("apache-kafka:2.1.1"));
        assertTrue(Suts.hasStableOffsetFetch("apache-kafka:2.5.0"));
        assertTrue(Suts.hasStableOffsetFetch("apache-kafka"));
        assertTrue(Suts.hasStableOffsetFetch("broker-impl"));
    }

    @Test
    void metadataIsASuffixAndAModeTheReleaseLacksIsOneLine() {
        assertEquals("apache-kafka:3.9.1:zk", Suts.withMetadata("apache-kafka:3.9.1", "zk"));
        assertEquals("apache-kafka:4.4.0:kraft", Suts.withMetadata("apache-kafka", "kraft"));
        assertEquals("apache-kafka:2.0.1", Suts.withMetadata("apache-kafka:2.0.1", null));
        var e = assertThrows(IllegalArgumentException.class, () -> Suts.withMetadata("apache-kafka", "zk"));
        assertTrue(e.getMessage().contains("no ZooKeeper mode"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Suts.withMetadata("broker-impl", "zk"));
        assertThrows(IllegalArgumentException.class, () -> Suts.named("apache-kafka:2.1.1:kraft"));
        assertThrows(IllegalArgumentException.class, () -> Suts.named("apache-kafka:banana"));
    }

    @Test
    void workloadsTheLegacyClientsCannotRunAreRefused() {
        var scenario = Scenarios.forRun("kip-101-loss");
        TestConfig config = ScenarioCommand.config(scenario, "apache-kafka:0.10.2.1", null, null, 1L);
        assertEquals("read_uncommitted", Workloads.queueSettings(config).isolationLevel());
        var e = assertThrows(IllegalArgumentException.class, () -> new TestConfig("apache-kafka:0.10.2.1", 3, "offsets",
                java.util.List.of(), 10, 10, 1, 1, "all", false, 1, 1, false, "assign", 5, 1L, 10, 30, java.util.Map.of()));
        assertTrue(e.getMessage().contains("use --workload queue"), e.getMessage());
        assertEquals(KafkaClientLine.LEGACY, Suts.clientLine(config.sut()));
    }
}
