package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group configs as kafka-configs --entity-type groups uses them (DescribeConfigs with synonyms,
 * IncrementalAlterConfigs), answered as a Kafka 4.4.0 broker with default settings answers (values and messages
 * observed on one).
 */
class GroupConfigsTest {
    @TempDir
    Path dir;

    private static final ConfigResource G1 = new ConfigResource(ConfigResource.Type.GROUP, "g1");

    private static Config describe(Admin admin, ConfigResource res) throws Exception {
        return admin.describeConfigs(List.of(res), new DescribeConfigsOptions().includeSynonyms(true)).all().get()
                .get(res);
    }

    /** As kafka-configs prints them. */
    private static List<String> synonyms(ConfigEntry e) {
        return e.synonyms().stream().map(s -> s.source() + ":" + s.name() + "=" + s.value()).toList();
    }

    private static void set(Admin admin, ConfigResource res, String key, String value) throws Exception {
        admin.incrementalAlterConfigs(Map.of(res, List.of(new AlterConfigOp(new ConfigEntry(key, value),
                AlterConfigOp.OpType.SET)))).all().get();
    }

    private static Throwable refusal(Admin admin, ConfigResource res, String key, String value) {
        return assertThrows(ExecutionException.class, () -> set(admin, res, key, value)).getCause();
    }

    @Test
    void describedWithKafkasDefaultsAndAlteredWithItsChecks() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            Config defaults = describe(admin, G1); // the group need not exist
            assertEquals(21, defaults.entries().size(), "Kafka 4.4 describes 21 non-internal group configs");
            ConfigEntry session = defaults.get("consumer.session.timeout.ms");
            assertEquals("45000", session.value());
            assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, session.source());
            assertEquals(ConfigEntry.ConfigType.INT, session.type());
            assertFalse(session.isReadOnly());
            assertEquals(List.of("DEFAULT_CONFIG:group.consumer.session.timeout.ms=45000"), synonyms(session));
            assertEquals("5000", defaults.get("consumer.heartbeat.interval.ms").value());
            assertEquals("latest", defaults.get("share.auto.offset.reset").value());
            assertEquals("30000", defaults.get("share.record.lock.duration.ms").value());
            assertEquals(null, defaults.get("consumer.assignor.offload.enable"), "internal configs are not described");

            Throwable unknown = refusal(admin, G1, "nosuch.key", "1");
            assertInstanceOf(InvalidConfigurationException.class, unknown);
            assertEquals("Unknown group config name: nosuch.key", unknown.getMessage());
            Throwable outOfRange = refusal(admin, G1, "consumer.session.timeout.ms", "10000");
            assertInstanceOf(InvalidConfigurationException.class, outOfRange);
            assertEquals("consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive.",
                    outOfRange.getMessage());
            assertEquals("Invalid value abc for configuration consumer.session.timeout.ms: Not a number of type INT",
                    refusal(admin, G1, "consumer.session.timeout.ms", "abc").getMessage());
            assertInstanceOf(InvalidRequestException.class,
                    refusal(admin, new ConfigResource(ConfigResource.Type.GROUP, ""), "consumer.session.timeout.ms", "50000"));
            ExecutionException emptyName = assertThrows(ExecutionException.class,
                    () -> describe(admin, new ConfigResource(ConfigResource.Type.GROUP, "")));
            assertInstanceOf(InvalidRequestException.class, emptyName.getCause());

            set(admin, G1, "consumer.session.timeout.ms", "50000");
            ConfigEntry changed = describe(admin, G1).get("consumer.session.timeout.ms");
            assertEquals("50000", changed.value());
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG, changed.source());
            assertEquals(List.of("DYNAMIC_GROUP_CONFIG:consumer.session.timeout.ms=50000",
                    "DEFAULT_CONFIG:group.consumer.session.timeout.ms=45000"), synonyms(changed));
            assertEquals("45000", describe(admin, new ConfigResource(ConfigResource.Type.GROUP, "g2"))
                    .get("consumer.session.timeout.ms").value(), "other groups keep the default");
        }
        try (TestBroker again = TestBroker.start(dir); Admin admin = again.admin()) {
            assertEquals("50000", describe(admin, G1).get("consumer.session.timeout.ms").value(),
                    "group configs survive a restart");
            admin.incrementalAlterConfigs(Map.of(G1, List.of(new AlterConfigOp(
                    new ConfigEntry("consumer.session.timeout.ms", null), AlterConfigOp.OpType.DELETE)))).all().get();
            ConfigEntry back = describe(admin, G1).get("consumer.session.timeout.ms");
            assertTrue(back.value().equals("45000") && back.source() == ConfigEntry.ConfigSource.DEFAULT_CONFIG,
                    back.toString());
        }
    }
}
