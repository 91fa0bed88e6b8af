package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.faultline.broker.common.Time;
import io.faultline.broker.config.BrokerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three combined broker+controller nodes in one JVM on loopback, real clients: a topic with replication factor 3
 * reaches an ISR of three through real replica fetchers; acks=all writes survive the leader's shutdown and a
 * consumer on the survivors reads every acknowledged value once, in order.
 */
class ReplicatedClusterTest {
    @TempDir
    Path dir;


    /**
     * Three nodes started together (each a voter); closed by the caller. The ports are picked free but bound only
     * seconds later (a client port once the broker is ready), when an outgoing connection of this busy machine may
     * have taken one: then the cluster starts again on new ports.
     */
    private static List<KafkaBroker> startCluster(Path dir, int[] client) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return startClusterOnce(dir.resolve("attempt" + attempt), client);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof java.net.BindException) || attempt == 3) throw e;
            }
        }
    }

    private static List<KafkaBroker> startClusterOnce(Path dir, int[] client) throws Exception {
        LocalQuorum quorum = LocalQuorum.allocate(3);
        for (int i = 0; i < 3; i++) client[i] = quorum.clientPort(i);
        List<KafkaBroker> brokers = new ArrayList<>();
        ExecutorService starter = Executors.newFixedThreadPool(3);
        try {
            List<Future<KafkaBroker>> started = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Properties p = quorum.configure(TestBroker.config(dir.resolve("n" + (i + 1)), client[i], Map.of()), i);
                p.setProperty("broker.heartbeat.interval.ms", "200");
                p.setProperty("broker.session.timeout.ms", "2000");
                p.setProperty("replica.lag.time.max.ms", "5000");
                p.setProperty("min.insync.replicas", "2");
                // each node its own rack, rack-aware reads on: only a consumer that names a rack reads from a follower
                p.setProperty("broker.rack", "rack" + (i + 1));
                p.setProperty("replica.selector.class", BrokerConfig.RACK_AWARE_SELECTOR);
                BrokerConfig cfg = BrokerConfig.from(p);
                started.add(starter.submit(() -> new KafkaBroker(cfg, Time.SYSTEM).start()));
            }
            Exception failed = null;
            for (Future<KafkaBroker> f : started) {
                try {
                    brokers.add(f.get(90, TimeUnit.SECONDS));
                } catch (Exception e) {
                    if (failed == null) failed = e; // the others still start: close them too
                }
            }
            if (failed != null) throw failed;
            return brokers;
        } catch (Exception e) {
            for (KafkaBroker b : brokers) b.close();
            throw e;
        } finally {
            starter.shutdownNow();
        }
    }

    @Test
    void acksAllWritesSurviveTheLeadersShutdown() throws Exception {
        int[] client = new int[3];
        List<KafkaBroker> brokers = startCluster(dir, client);
        try {
            String bootstrap = "127.0.0.1:" + client[0] + ",127.0.0.1:" + client[1] + ",127.0.0.1:" + client[2];
            try (Admin admin = TestBroker.admin(bootstrap)) {
                createFullyReplicated(admin);
            }
            List<String> acked = new ArrayList<>();
            Map<String, Object> pc = new HashMap<>(Map.of(ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60000,
                    ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000));
            try (KafkaProducer<String, String> producer = TestBroker.producer(bootstrap, pc)) {
                send(producer, 0, 100, acked);
                int leader;
                try (Admin admin = TestBroker.admin(bootstrap)) {
                    leader = describe(admin).partitions().get(0).leader().id();
                }
                brokers.get(leader - 1).close(); // controlled shutdown: leadership moves to an ISR member
                send(producer, 100, 200, acked);
            }
            assertEquals(200, acked.size());
            String survivors = bootstrap;
            try (KafkaConsumer<String, String> c = TestBroker.consumer(survivors, Map.of())) {
                TopicPartition tp = new TopicPartition("r", 0);
                c.assign(Set.of(tp));
                c.seekToBeginning(Set.of(tp));
                List<String> got = new ArrayList<>();
                long deadline = System.currentTimeMillis() + 30_000;
                while (got.size() < acked.size() && System.currentTimeMillis() < deadline) {
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) got.add(r.value());
                }
                assertEquals(acked, got, "every acknowledged value once, in order");
            }
        } finally {
            for (KafkaBroker b : brokers) b.close();
        }
    }

    /**
     * KIP-392: a consumer in a follower's rack is sent to that follower by the leader (no records from the leader, its
     * preferred read replica instead) and reads every acknowledged value there, in order, up to the follower's high
     * watermark; a follower that refused it would send the consumer back to the leader, which names it again.
     */
    @Test
    void aConsumerInAFollowersRackReadsFromThatFollower() throws Exception {
        int[] client = new int[3];
        List<KafkaBroker> brokers = startCluster(dir, client);
        try {
            String bootstrap = "127.0.0.1:" + client[0] + ",127.0.0.1:" + client[1] + ",127.0.0.1:" + client[2];
            int leader;
            try (Admin admin = TestBroker.admin(bootstrap)) {
                createFullyReplicated(admin);
                leader = describe(admin).partitions().get(0).leader().id();
            }
            List<String> acked = new ArrayList<>();
            try (KafkaProducer<String, String> producer = TestBroker.producer(bootstrap,
                    Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
                send(producer, 0, 100, acked);
            }
            int follower = leader % 3 + 1;
            try (KafkaConsumer<String, String> c = TestBroker.consumer(bootstrap,
                    Map.of("client.rack", "rack" + follower))) {
                TopicPartition tp = new TopicPartition("r", 0);
                c.assign(Set.of(tp));
                c.seekToBeginning(Set.of(tp));
                List<String> got = new ArrayList<>();
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) got.add(r.value());
                    return got.size() >= acked.size();
                });
                assertEquals(acked, got, "every acknowledged value once, in order, from the follower");
                Object replica = c.metrics().entrySet().stream()
                        .filter(e -> e.getKey().name().equals("preferred-read-replica")
                                && "r".equals(e.getKey().tags().get("topic")))
                        .map(e -> e.getValue().metricValue()).findFirst().orElse(null);
                assertEquals(follower, ((Number) replica).intValue(), "the consumer's preferred read replica");
            }
        } finally {
            for (KafkaBroker b : brokers) b.close();
        }
    }

    /**
     * Admin changes sent to one node are forwarded to the controller, replicated, and seen by every node: client
     * quotas, a cluster-wide and a per-broker dynamic config; each node answers for its own loggers.
     */
    @Test
    void adminChangesThroughOneNodeAreSeenOnEveryNode() throws Exception {
        int[] client = new int[3];
        List<KafkaBroker> brokers = startCluster(dir, client);
        ClientQuotaEntity bob = new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "bob"));
        ConfigResource broker3 = new ConfigResource(ConfigResource.Type.BROKER, "3");
        try (Admin viaNode1 = TestBroker.admin("127.0.0.1:" + client[0]);
             Admin viaNode2 = TestBroker.admin("127.0.0.1:" + client[1])) {
            viaNode1.incrementalAlterConfigs(Map.of(
                    new ConfigResource(ConfigResource.Type.BROKER, ""), List.of(new AlterConfigOp(
                            new ConfigEntry("log.retention.bytes", "123456789"), AlterConfigOp.OpType.SET)),
                    broker3, List.of(new AlterConfigOp(new ConfigEntry("num.replica.fetchers", "4"),
                            AlterConfigOp.OpType.SET)))).all().get();
            viaNode1.alterClientQuotas(List.of(new ClientQuotaAlteration(bob,
                    List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 4096.0))))).all().get();
            // Every node's own metadata shows them (DescribeClientQuotas and DescribeConfigs answer locally); nodes
            // apply the metadata log in order, so one that shows the quota shows the configs committed before it.
            for (int port : client) {
                try (Admin viaNode = TestBroker.admin("127.0.0.1:" + port)) {
                    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> Map.of(bob,
                            Map.of("producer_byte_rate", 4096.0)).equals(viaNode.describeClientQuotas(
                            ClientQuotaFilter.all()).entities().get()));
                }
            }
            ConfigEntry fetchers = viaNode2.describeConfigs(List.of(broker3)).all().get().get(broker3)
                    .get("num.replica.fetchers");
            assertEquals("4", fetchers.value());
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG, fetchers.source());
            ConfigResource broker2 = new ConfigResource(ConfigResource.Type.BROKER, "2");
            ConfigEntry retention = viaNode2.describeConfigs(List.of(broker2)).all().get().get(broker2)
                    .get("log.retention.bytes");
            assertEquals("123456789", retention.value());
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, retention.source());
            ConfigResource loggers2 = new ConfigResource(ConfigResource.Type.BROKER_LOGGER, "2");
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG, viaNode1.describeConfigs(List.of(loggers2))
                    .all().get().get(loggers2).get("root").source());
        } finally {
            for (KafkaBroker b : brokers) b.close();
        }
    }

    /** Topic "r", one partition on all three nodes, once its ISR is all three. */
    private static void createFullyReplicated(Admin admin) throws Exception {
        TestBroker.createTopics(admin, new NewTopic("r", 1, (short) 3));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> describe(admin).partitions().get(0).isr().size() == 3);
    }

    private static TopicDescription describe(Admin admin) throws Exception {
        return admin.describeTopics(List.of("r")).allTopicNames().get(10, TimeUnit.SECONDS).get("r");
    }

    private static void send(KafkaProducer<String, String> producer, int from, int to, List<String> acked)
            throws Exception {
        List<Future<RecordMetadata>> fs = new ArrayList<>();
        for (int i = from; i < to; i++) fs.add(producer.send(new ProducerRecord<>("r", "k", "v" + i)));
        for (int i = from; i < to; i++) {
            fs.get(i - from).get(60, TimeUnit.SECONDS);
            acked.add("v" + i);
        }
    }
}
