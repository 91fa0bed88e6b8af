package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.apache.kafka.tools.AclCommand;
import org.apache.kafka.tools.ConfigCommand;
import org.apache.kafka.tools.FeatureCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's own command-line tools (kafka-configs, kafka-features, kafka-acls from kafka-tools 4.4.0), run in this JVM
 * against the broker: what an operator types gets Kafka's output, and an error is one line, not a stack trace.
 */
class AdminCliToolsTest {
    @TempDir
    Path dir;

    @Test
    void kafkaConfigsFeaturesAndAclsWork() throws Exception {
        try (TestBroker b = TestBroker.start(dir)) {
            String bs = b.bootstrap();
            KafkaTool.Result alterQuota = KafkaTool.run(ConfigCommand::main, "--bootstrap-server", bs, "--alter", "--entity-type", "users",
                    "--entity-name", "alice", "--add-config", "producer_byte_rate=1048576,consumer_byte_rate=2097152");
            assertEquals(0, alterQuota.exit(), alterQuota.toString());
            KafkaTool.Result describeQuota = KafkaTool.run(ConfigCommand::main, "--bootstrap-server", bs, "--describe", "--entity-type", "users",
                    "--entity-name", "alice");
            assertEquals(0, describeQuota.exit(), describeQuota.toString());
            assertTrue(describeQuota.out().contains("Quota configs for user-principal 'alice' are "
                    + "consumer_byte_rate=2097152.0, producer_byte_rate=1048576.0"), describeQuota.out());

            KafkaTool.Result badQuota = KafkaTool.run(ConfigCommand::main, "--bootstrap-server", bs, "--alter", "--entity-type", "clients",
                    "--entity-default", "--add-config", "bogus_rate=1");
            assertTrue(badQuota.exit() != 0 || !badQuota.err().isEmpty(), badQuota.toString());

            KafkaTool.Result alterBroker = KafkaTool.run(ConfigCommand::main, "--bootstrap-server", bs, "--alter", "--entity-type", "brokers",
                    "--entity-default", "--add-config", "log.cleaner.threads=2");
            assertEquals(0, alterBroker.exit(), alterBroker.toString());
            KafkaTool.Result describeDefault = KafkaTool.run(ConfigCommand::main, "--bootstrap-server", bs, "--describe", "--entity-type",
                    "brokers", "--entity-default");
            assertTrue(describeDefault.out().contains("Default configs for brokers in the cluster are:\n  "
                    + "log.cleaner.threads=2 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.cleaner.threads=2}"),
                    describeDefault.out());
            KafkaTool.Result describeAll = KafkaTool.run(ConfigCommand::main, "--bootstrap-server", bs, "--describe", "--entity-type",
                    "brokers", "--entity-name", "1", "--all");
            assertTrue(describeAll.out().contains("log.cleaner.threads=2 sensitive=false "
                    + "synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.cleaner.threads=2, DEFAULT_CONFIG:log.cleaner.threads=1}"),
                    describeAll.out());
            KafkaTool.Result unknownBrokerConfig = KafkaTool.run(ConfigCommand::main, "--bootstrap-server", bs, "--alter", "--entity-type",
                    "brokers", "--entity-name", "1", "--add-config", "no.such.config=1");
            assertEquals(1, unknownBrokerConfig.exit(), unknownBrokerConfig.toString());
            assertTrue(unknownBrokerConfig.err().contains("InvalidConfigurationException: Cannot update broker config "
                    + "no.such.config dynamically"), unknownBrokerConfig.err());

            KafkaTool.Result alterLogger = KafkaTool.run(ConfigCommand::main, "--bootstrap-server", bs, "--alter", "--entity-type",
                    "broker-loggers", "--entity-name", "1", "--add-config", "io.faultline.broker.api.KafkaApis=DEBUG");
            assertEquals(0, alterLogger.exit(), alterLogger.toString());
            KafkaTool.Result describeLoggers = KafkaTool.run(ConfigCommand::main, "--bootstrap-server", bs, "--describe", "--entity-type",
                    "broker-loggers", "--entity-name", "1");
            assertTrue(describeLoggers.out().contains("io.faultline.broker.api.KafkaApis=DEBUG"), describeLoggers.out());
            KafkaTool.run(ConfigCommand::main, "--bootstrap-server", bs, "--alter", "--entity-type", "broker-loggers",
                    "--entity-name", "1", "--delete-config", "io.faultline.broker.api.KafkaApis");

            KafkaTool.Result features = KafkaTool.run(FeatureCommand::main, "--bootstrap-server", bs, "describe");
            assertEquals(0, features.exit(), features.toString());
            assertTrue(features.out().replaceAll("\\s+", " ").contains("Feature: metadata.version SupportedMinVersion: "
                    + "4.4-IV2 SupportedMaxVersion: 4.4-IV2 FinalizedVersionLevel: 4.4-IV2 Epoch: 0"), features.out());

            KafkaTool.Result acls = KafkaTool.run(AclCommand::main, "--bootstrap-server", bs, "--list");
            assertTrue(acls.out().contains("No Authorizer is configured") || acls.err().contains("No Authorizer is configured"),
                    acls.toString());
        }
    }
}
