package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.kafka.common.utils.internals.Exit;
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

    /** A tool's exit code and what it printed on stdout and stderr. */
    private record Run(int exit, String out, String err) { }

    private static final class ExitCalled extends RuntimeException {
        final int code;

        ExitCalled(int code) {
            super(null, null, false, false);
            this.code = code;
        }
    }

    private interface Tool {
        void main(String[] args) throws Exception;
    }

    private static synchronized Run run(Tool tool, String... args) throws Exception {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        Exit.setExitProcedure((code, msg) -> {
            throw new ExitCalled(code);
        });
        int code = 0;
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            tool.main(args);
        } catch (ExitCalled x) {
            code = x.code;
        } finally {
            System.setOut(out);
            System.setErr(err);
            Exit.resetExitProcedure();
        }
        return new Run(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    @Test
    void kafkaConfigsFeaturesAndAclsWork() throws Exception {
        try (TestBroker b = TestBroker.start(dir)) {
            String bs = b.bootstrap();
            Run alterQuota = run(ConfigCommand::main, "--bootstrap-server", bs, "--alter", "--entity-type", "users",
                    "--entity-name", "alice", "--add-config", "producer_byte_rate=1048576,consumer_byte_rate=2097152");
            assertEquals(0, alterQuota.exit(), alterQuota.toString());
            Run describeQuota = run(ConfigCommand::main, "--bootstrap-server", bs, "--describe", "--entity-type", "users",
                    "--entity-name", "alice");
            assertEquals(0, describeQuota.exit(), describeQuota.toString());
            assertTrue(describeQuota.out().contains("Quota configs for user-principal 'alice' are "
                    + "consumer_byte_rate=2097152.0, producer_byte_rate=1048576.0"), describeQuota.out());

            Run badQuota = run(ConfigCommand::main, "--bootstrap-server", bs, "--alter", "--entity-type", "clients",
                    "--entity-default", "--add-config", "bogus_rate=1");
            assertTrue(badQuota.exit() != 0 || !badQuota.err().isEmpty(), badQuota.toString());

            Run alterBroker = run(ConfigCommand::main, "--bootstrap-server", bs, "--alter", "--entity-type", "brokers",
                    "--entity-default", "--add-config", "log.cleaner.threads=2");
            assertEquals(0, alterBroker.exit(), alterBroker.toString());
            Run describeDefault = run(ConfigCommand::main, "--bootstrap-server", bs, "--describe", "--entity-type",
                    "brokers", "--entity-default");
            assertTrue(describeDefault.out().contains("Default configs for brokers in the cluster are:\n  "
                    + "log.cleaner.threads=2 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.cleaner.threads=2}"),
                    describeDefault.out());
            Run describeAll = run(ConfigCommand::main, "--bootstrap-server", bs, "--describe", "--entity-type",
                    "brokers", "--entity-name", "1", "--all");
            assertTrue(describeAll.out().contains("log.cleaner.threads=2 sensitive=false "
                    + "synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.cleaner.threads=2, DEFAULT_CONFIG:log.cleaner.threads=1}"),
                    describeAll.out());
            Run unknownBrokerConfig = run(ConfigCommand::main, "--bootstrap-server", bs, "--alter", "--entity-type",
                    "brokers", "--entity-name", "1", "--add-config", "no.such.config=1");
            assertEquals(1, unknownBrokerConfig.exit(), unknownBrokerConfig.toString());
            assertTrue(unknownBrokerConfig.err().contains("InvalidConfigurationException: Cannot update broker config "
                    + "no.such.config dynamically"), unknownBrokerConfig.err());

            Run alterLogger = run(ConfigCommand::main, "--bootstrap-server", bs, "--alter", "--entity-type",
                    "broker-loggers", "--entity-name", "1", "--add-config", "io.faultline.broker.api.KafkaApis=DEBUG");
            assertEquals(0, alterLogger.exit(), alterLogger.toString());
            Run describeLoggers = run(ConfigCommand::main, "--bootstrap-server", bs, "--describe", "--entity-type",
                    "broker-loggers", "--entity-name", "1");
            assertTrue(describeLoggers.out().contains("io.faultline.broker.api.KafkaApis=DEBUG"), describeLoggers.out());
            run(ConfigCommand::main, "--bootstrap-server", bs, "--alter", "--entity-type", "broker-loggers",
                    "--entity-name", "1", "--delete-config", "io.faultline.broker.api.KafkaApis");

            Run features = run(FeatureCommand::main, "--bootstrap-server", bs, "describe");
            assertEquals(0, features.exit(), features.toString());
            assertTrue(features.out().replaceAll("\\s+", " ").contains("Feature: metadata.version SupportedMinVersion: "
                    + "4.4-IV2 SupportedMaxVersion: 4.4-IV2 FinalizedVersionLevel: 4.4-IV2 Epoch: 0"), features.out());

            Run acls = run(AclCommand::main, "--bootstrap-server", bs, "--list");
            assertTrue(acls.out().contains("No Authorizer is configured") || acls.err().contains("No Authorizer is configured"),
                    acls.toString());
        }
    }
}
