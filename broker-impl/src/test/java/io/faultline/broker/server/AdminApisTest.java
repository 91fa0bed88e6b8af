package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidUpdateVersionException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The admin APIs kafka-configs, kafka-acls and kafka-features use, through the real Admin client: client quotas,
 * dynamic broker configs, broker loggers, ACLs without an authorizer, and feature flags; what is stored survives a
 * restart, and bad input gets Kafka's error.
 */
class AdminApisTest {
    @TempDir
    Path dir;

    private static final ConfigResource CLUSTER = new ConfigResource(ConfigResource.Type.BROKER, "");
    private static final ConfigResource BROKER_1 = new ConfigResource(ConfigResource.Type.BROKER, "1");
    private static final ConfigResource LOGGERS_1 = new ConfigResource(ConfigResource.Type.BROKER_LOGGER, "1");

    private static ClientQuotaEntity user(String name) {
        return new ClientQuotaEntity(java.util.Collections.singletonMap(ClientQuotaEntity.USER, name));
    }

    private static void quota(Admin admin, ClientQuotaEntity entity, String key, Double value) throws Exception {
        admin.alterClientQuotas(List.of(new ClientQuotaAlteration(entity,
                List.of(new ClientQuotaAlteration.Op(key, value))))).all().get();
    }

    private static Map<ClientQuotaEntity, Map<String, Double>> quotas(Admin admin, ClientQuotaFilter filter) throws Exception {
        return admin.describeClientQuotas(filter).entities().get();
    }

    private static <T> Throwable failure(KafkaFuture<T> f) {
        return assertThrows(ExecutionException.class, f::get).getCause();
    }

    private static void set(Admin admin, ConfigResource res, String key, String value) throws Exception {
        alter(admin, res, AlterConfigOp.OpType.SET, key, value);
    }

    private static void alter(Admin admin, ConfigResource res, AlterConfigOp.OpType op, String key, String value)
            throws Exception {
        admin.incrementalAlterConfigs(Map.of(res, List.of(new AlterConfigOp(new ConfigEntry(key, value), op)))).all().get();
    }

    private static Config describe(Admin admin, ConfigResource res) throws Exception {
        return admin.describeConfigs(List.of(res), new DescribeConfigsOptions().includeSynonyms(true)).all().get().get(res);
    }

    @Test
    void clientQuotasAreStoredDescribedCheckedAndSurviveARestart() throws Exception {
        ClientQuotaEntity alice = user("alice");
        ClientQuotaEntity defaultUser = user(null);
        ClientQuotaEntity aliceApp = new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "alice",
                ClientQuotaEntity.CLIENT_ID, "app"));
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            quota(admin, alice, "producer_byte_rate", 1024.0);
            quota(admin, alice, "request_percentage", 12.5);
            quota(admin, defaultUser, "consumer_byte_rate", 2048.0);
            quota(admin, aliceApp, "controller_mutation_rate", 3.0);
            assertEquals(Map.of(alice, Map.of("producer_byte_rate", 1024.0, "request_percentage", 12.5),
                    defaultUser, Map.of("consumer_byte_rate", 2048.0),
                    aliceApp, Map.of("controller_mutation_rate", 3.0)), quotas(admin, ClientQuotaFilter.all()));
            // kafka-configs --describe --entity-type users --entity-name alice: exactly that entity (strict)
            assertEquals(Map.of(alice, Map.of("producer_byte_rate", 1024.0, "request_percentage", 12.5)), quotas(admin,
                    ClientQuotaFilter.containsOnly(List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "alice")))));
            assertEquals(Map.of(defaultUser, Map.of("consumer_byte_rate", 2048.0)), quotas(admin, ClientQuotaFilter
                    .containsOnly(List.of(ClientQuotaFilterComponent.ofDefaultEntity(ClientQuotaEntity.USER)))));
            assertEquals(Map.of(aliceApp, Map.of("controller_mutation_rate", 3.0)), quotas(admin, ClientQuotaFilter
                    .contains(List.of(ClientQuotaFilterComponent.ofEntityType(ClientQuotaEntity.CLIENT_ID)))));
            quota(admin, alice, "request_percentage", null); // --delete-config

            Throwable unknownKey = failure(admin.alterClientQuotas(List.of(new ClientQuotaAlteration(alice,
                    List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1.0),
                            new ClientQuotaAlteration.Op("bogus_rate", 1.0))))).all());
            assertInstanceOf(InvalidRequestException.class, unknownKey);
            assertEquals("Invalid configuration key bogus_rate", unknownKey.getMessage());
            Throwable fraction = failure(admin.alterClientQuotas(List.of(new ClientQuotaAlteration(alice,
                    List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1.5))))).all());
            assertInstanceOf(InvalidRequestException.class, fraction);
            Throwable ipWithUser = failure(admin.alterClientQuotas(List.of(new ClientQuotaAlteration(new ClientQuotaEntity(
                    Map.of(ClientQuotaEntity.USER, "alice", ClientQuotaEntity.IP, "10.0.0.1")),
                    List.of(new ClientQuotaAlteration.Op("connection_creation_rate", 5.0))))).all());
            assertInstanceOf(InvalidRequestException.class, ipWithUser);
            assertEquals(Map.of("producer_byte_rate", 1024.0), quotas(admin, ClientQuotaFilter.all()).get(alice),
                    "a refused alteration changes nothing");
        }
        try (TestBroker again = TestBroker.start(dir); Admin admin = again.admin()) {
            assertEquals(Map.of(alice, Map.of("producer_byte_rate", 1024.0),
                    defaultUser, Map.of("consumer_byte_rate", 2048.0),
                    aliceApp, Map.of("controller_mutation_rate", 3.0)), quotas(admin, ClientQuotaFilter.all()));
        }
    }

    @Test
    void dynamicBrokerConfigsAreDescribedWithTheirSourceAppliedAndSurviveARestart() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("dyn", 1, (short) 1));
            set(admin, BROKER_1, "log.cleaner.threads", "2");
            set(admin, CLUSTER, "log.cleaner.threads", "3");
            set(admin, CLUSTER, "log.retention.ms", "3600000");

            Config broker = describe(admin, BROKER_1);
            ConfigEntry threads = broker.get("log.cleaner.threads");
            assertEquals("2", threads.value());
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG, threads.source());
            assertEquals(List.of("DYNAMIC_BROKER_CONFIG=2", "DYNAMIC_DEFAULT_BROKER_CONFIG=3", "DEFAULT_CONFIG=1"),
                    threads.synonyms().stream().map(s -> s.source() + "=" + s.value()).toList());
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, broker.get("log.retention.ms").source());
            assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, broker.get("num.replica.fetchers").source());
            assertEquals(ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG, broker.get("num.io.threads").source());
            assertEquals("4", broker.get("num.io.threads").value());
            Config cluster = describe(admin, CLUSTER);
            assertEquals(Map.of("log.cleaner.threads", "3", "log.retention.ms", "3600000"), cluster.entries().stream()
                    .collect(java.util.stream.Collectors.toMap(ConfigEntry::name, ConfigEntry::value)));
            // A topic default: the topic without its own retention.ms now has the broker's.
            ConfigEntry topicRetention = describe(admin, new ConfigResource(ConfigResource.Type.TOPIC, "dyn"))
                    .get("retention.ms");
            assertEquals("3600000", topicRetention.value());
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, topicRetention.source());

            // Applied to the existing log: a record larger than the new cluster-wide message.max.bytes is refused.
            set(admin, CLUSTER, "message.max.bytes", "1000");
            try (KafkaProducer<String, String> p = b.producer(Map.of())) {
                Throwable tooLarge = assertThrows(ExecutionException.class,
                        () -> p.send(new ProducerRecord<>("dyn", "x".repeat(5000))).get()).getCause();
                assertInstanceOf(RecordTooLargeException.class, tooLarge);
                alter(admin, CLUSTER, AlterConfigOp.OpType.DELETE, "message.max.bytes", null);
                p.send(new ProducerRecord<>("dyn", "x".repeat(5000))).get();
            }

            Throwable unknown = failure(admin.incrementalAlterConfigs(Map.of(CLUSTER, List.of(new AlterConfigOp(
                    new ConfigEntry("no.such.config", "1"), AlterConfigOp.OpType.SET)))).all());
            assertInstanceOf(InvalidConfigurationException.class, unknown);
            assertTrue(unknown.getMessage().contains("no.such.config"), unknown.getMessage());
            Throwable negative = failure(admin.incrementalAlterConfigs(Map.of(BROKER_1, List.of(new AlterConfigOp(
                    new ConfigEntry("num.io.threads", "0"), AlterConfigOp.OpType.SET)))).all());
            assertInstanceOf(InvalidConfigurationException.class, negative);
            assertEquals("Invalid value 0 for configuration num.io.threads: Value must be at least 1", negative.getMessage());
        }
        try (TestBroker again = TestBroker.start(dir); Admin admin = again.admin()) {
            Config broker = describe(admin, BROKER_1);
            assertEquals("2", broker.get("log.cleaner.threads").value());
            assertEquals("3600000", broker.get("log.retention.ms").value());
            assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, broker.get("message.max.bytes").source());
        }
    }

    @Test
    void brokerLoggersAreListedAndTheirLevelsChange() throws Exception {
        String name = "io.faultline.broker.server.AdminApisTest.probe";
        org.slf4j.Logger probe = LoggerFactory.getLogger(name);
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            Config loggers = describe(admin, LOGGERS_1);
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG, loggers.get("root").source());
            String before = loggers.get(name).value();
            assertEquals(probe.isTraceEnabled() ? "TRACE" : probe.isDebugEnabled() ? "DEBUG" : probe.isInfoEnabled()
                    ? "INFO" : probe.isWarnEnabled() ? "WARN" : "ERROR", before);

            set(admin, LOGGERS_1, name, "TRACE");
            assertTrue(probe.isTraceEnabled());
            assertEquals("TRACE", describe(admin, LOGGERS_1).get(name).value());
            set(admin, LOGGERS_1, "io.faultline.broker.server", "ERROR"); // a closer level wins over an ancestor's
            assertTrue(probe.isTraceEnabled());
            alter(admin, LOGGERS_1, AlterConfigOp.OpType.DELETE, name, null);
            assertTrue(!probe.isWarnEnabled() && probe.isErrorEnabled(), "inherits io.faultline.broker.server's ERROR");
            alter(admin, LOGGERS_1, AlterConfigOp.OpType.DELETE, "io.faultline.broker.server", null);
            assertEquals(before, describe(admin, LOGGERS_1).get(name).value());

            Throwable badLevel = failure(admin.incrementalAlterConfigs(Map.of(LOGGERS_1, List.of(new AlterConfigOp(
                    new ConfigEntry(name, "LOUD"), AlterConfigOp.OpType.SET)))).all());
            assertInstanceOf(InvalidConfigurationException.class, badLevel);
            Throwable noLogger = failure(admin.incrementalAlterConfigs(Map.of(LOGGERS_1, List.of(new AlterConfigOp(
                    new ConfigEntry("no.such.logger", "INFO"), AlterConfigOp.OpType.SET)))).all());
            assertEquals("Logger no.such.logger does not exist!", noLogger.getMessage());
            Throwable root = failure(admin.incrementalAlterConfigs(Map.of(LOGGERS_1, List.of(new AlterConfigOp(
                    new ConfigEntry("root", null), AlterConfigOp.OpType.DELETE)))).all());
            assertInstanceOf(InvalidRequestException.class, root);
        }
    }

    @Test
    void aclRequestsAreAnsweredAsByABrokerWithoutAnAuthorizer() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            Throwable describe = failure(admin.describeAcls(AclBindingFilter.ANY).values());
            assertInstanceOf(SecurityDisabledException.class, describe);
            assertEquals("No Authorizer is configured.", describe.getMessage());
            AclBinding binding = new AclBinding(new ResourcePattern(ResourceType.TOPIC, "t", PatternType.LITERAL),
                    new AccessControlEntry("User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW));
            assertInstanceOf(SecurityDisabledException.class, failure(admin.createAcls(List.of(binding)).all()));
            assertInstanceOf(SecurityDisabledException.class, failure(admin.deleteAcls(List.of(AclBindingFilter.ANY)).all()));
            // The connection survives: the next request is answered.
            assertEquals(1, admin.describeCluster().nodes().get().size());
        }
    }

    @Test
    void featuresDescribeMetadataVersionAndOnlyItsLevelIsAccepted() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            FeatureMetadata f = admin.describeFeatures().featureMetadata().get();
            assertEquals(33, f.finalizedFeatures().get("metadata.version").maxVersionLevel());
            assertEquals(33, f.supportedFeatures().get("metadata.version").maxVersion());
            assertTrue(f.finalizedFeaturesEpoch().isPresent());

            admin.updateFeatures(Map.of("metadata.version", new FeatureUpdate((short) 33,
                    FeatureUpdate.UpgradeType.UPGRADE)), new UpdateFeaturesOptions()).all().get();
            Throwable downgrade = failure(admin.updateFeatures(Map.of("metadata.version", new FeatureUpdate((short) 20,
                    FeatureUpdate.UpgradeType.SAFE_DOWNGRADE)), new UpdateFeaturesOptions()).all());
            assertInstanceOf(InvalidUpdateVersionException.class, downgrade);
            Throwable unknown = failure(admin.updateFeatures(Map.of("no.such.version", new FeatureUpdate((short) 1,
                    FeatureUpdate.UpgradeType.UPGRADE)), new UpdateFeaturesOptions()).all());
            assertInstanceOf(InvalidUpdateVersionException.class, unknown);
            assertNull(admin.describeFeatures().featureMetadata().get().finalizedFeatures().get("no.such.version"));
        }
    }
}
