package io.faultline.harness;

import io.faultline.docker.sut.DescribedBroker;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.kafkacompat.KafkaClientLine;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** `--sut file:PATH`: a broker descriptor is a system under test like the built-in ones. */
class DescribedSutsTest {
    private static String workedExample() {
        String root = System.getProperty("faultline.projectRoot");
        for (Path d = root != null ? Path.of(root) : Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path p = d.resolve("examples/brokers/apache-kafka-4.4.0/broker.properties");
            if (Files.isRegularFile(p)) return p.toString();
        }
        throw new IllegalStateException("worked example not found");
    }

    @Test
    void aDescriptorPathIsASystemUnderTest() {
        String name = "file:" + workedExample();
        var sut = Suts.named(name);
        assertTrue(sut.transactions(), "the descriptor says transactions=true");
        assertEquals(KafkaClientLine.CURRENT, sut.clientLine());
        var created = assertInstanceOf(DescribedBroker.class, sut.create().apply(KafkaSettings.defaults()));
        assertEquals("kafka-4.4-descriptor", created.name());
        assertTrue(Suts.known(name));
    }

    @Test
    void aRunOfADescriptorIsStoredUnderANameWithoutPathSeparators() {
        String name = "file:" + workedExample();
        TestConfig config = ScenarioCommand.config(Scenarios.forRun("kip-101-loss"), name, null, null, 1L);
        assertFalse(config.testName().contains("/"), config.testName());
        assertTrue(config.testName().startsWith("file:"), config.testName());
        assertEquals("file:a_b_broker.properties", Suts.label("file:a/b/broker.properties"));
        assertEquals("apache-kafka:3.9.1", Suts.label("apache-kafka:3.9.1"));
    }

    @Test
    void aMissingOrBrokenDescriptorIsOneLine() {
        var missing = assertThrows(IllegalArgumentException.class, () -> Suts.named("file:/nowhere/broker.properties"));
        assertEquals("broker descriptor /nowhere/broker.properties: no such file", missing.getMessage());
        var empty = assertThrows(IllegalArgumentException.class, () -> Suts.named("file:"));
        assertTrue(empty.getMessage().contains("needs the path of a broker descriptor"), empty.getMessage());
        assertFalse(Suts.known("file:/nowhere/broker.properties"));
    }
}
