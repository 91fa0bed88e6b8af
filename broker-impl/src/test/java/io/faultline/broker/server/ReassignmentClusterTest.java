package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.Time;
import io.faultline.broker.config.BrokerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.apache.kafka.common.errors.PreferredLeaderNotAvailableException;
import org.apache.kafka.tools.LeaderElectionCommand;
import org.apache.kafka.tools.reassign.ReassignPartitionsCommand;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replica movement and elections with the real Admin client on five in-process nodes (voters 1-3, Raft listeners
 * 4-5): a move under acks=all load, a move held in progress by a stopped target (listed, cancelled), a move that
 * a controller failover interrupts, preferred and unclean elections, and DescribeQuorum. One cluster for all
 * (starting five nodes is the expensive part); the tests run in order because node 5 is stopped in one and
 * restarted in a later one. Kafka's own kafka-metadata-quorum, kafka-reassign-partitions and kafka-leader-election
 * tools (kafka-tools 4.4.0) run in this JVM against the same cluster.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReassignmentClusterTest {
    private static final int NODES = 5;
    private final Properties[] configs = new Properties[NODES];
    private final KafkaBroker[] brokers = new KafkaBroker[NODES];
    private String bootstrap;
    private Admin admin;


    @BeforeAll
    void startCluster(@TempDir Path dir) throws Exception {
        LocalQuorum quorum = LocalQuorum.allocate(NODES, 3);
        for (int i = 0; i < NODES; i++) {
            Properties p = quorum.configure(TestBroker.config(dir.resolve("n" + (i + 1)), quorum.clientPort(i), Map.of()), i);
            p.setProperty("broker.heartbeat.interval.ms", "200");
            p.setProperty("broker.session.timeout.ms", "2000");
            p.setProperty("replica.lag.time.max.ms", "5000");
            // Leadership moves here only when a test asks (the periodic rebalance has its own test).
            p.setProperty("auto.leader.rebalance.enable", "false");
            configs[i] = p;
        }
        ExecutorService starter = Executors.newFixedThreadPool(NODES);
        try {
            List<Future<KafkaBroker>> started = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                BrokerConfig cfg = BrokerConfig.from(configs[i]);
                started.add(starter.submit(() -> new KafkaBroker(cfg, Time.SYSTEM).start()));
            }
            for (int i = 0; i < NODES; i++) brokers[i] = started.get(i).get(120, TimeUnit.SECONDS);
        } finally {
            starter.shutdownNow();
        }
        bootstrap = quorum.bootstrap();
        admin = TestBroker.admin(bootstrap);
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(60)).until(() ->
                admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size() == NODES);
    }

    @AfterAll
    void stopCluster() {
        if (admin != null) admin.close(Duration.ofSeconds(5));
        for (KafkaBroker b : brokers) {
            if (b != null) b.close();
        }
    }

    @Test
    @Order(1)
    void describeQuorumNamesTheRaftLeaderTheVotersAndTheListeners() throws Exception {
        QuorumInfo q = admin.describeMetadataQuorum().quorumInfo().get(20, TimeUnit.SECONDS);
        int active = activeController();
        assertEquals(active, q.leaderId());
        assertTrue(q.leaderEpoch() > 0, "the Raft term");
        assertTrue(q.highWatermark() > 0, "the metadata log has commits");
        assertEquals(List.of(1, 2, 3), q.voters().stream().map(QuorumInfo.ReplicaState::replicaId).sorted().toList());
        assertEquals(List.of(4, 5), q.observers().stream().map(QuorumInfo.ReplicaState::replicaId).sorted().toList());
        QuorumInfo.ReplicaState leader = q.voters().stream().filter(v -> v.replicaId() == active).findFirst().orElseThrow();
        assertTrue(leader.logEndOffset() >= q.highWatermark(), "the leader's log holds everything committed");

        // Kafka's own tool, as an operator runs it.
        String status = runTool(() -> org.apache.kafka.tools.MetadataQuorumCommand.main("--bootstrap-server", bootstrap,
                "describe", "--status"));
        assertTrue(status.contains("LeaderId:") && status.contains("CurrentVoters:"), status);
        assertTrue(Pattern.compile("LeaderId:\\s+" + active + "\\s").matcher(status).find(), status);
        String replication = runTool(() -> org.apache.kafka.tools.MetadataQuorumCommand.main("--bootstrap-server",
                bootstrap, "describe", "--replication"));
        assertTrue(replication.contains("Leader") && replication.contains("Observer"), replication);
        System.err.println("kafka-metadata-quorum describe --status:\n" + status + "\n--replication:\n" + replication);
    }

    /** The tool exits through Kafka's Exit, which throws here instead of ending the JVM. */
    private static final class ToolExit extends RuntimeException {
        final int code;

        ToolExit(int code, String message) {
            super("exit " + code + ": " + message);
            this.code = code;
        }
    }

    private static String runTool(Call main) throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.PrintStream old = System.out;
        org.apache.kafka.common.utils.internals.Exit.setExitProcedure((code, message) -> {
            throw new ToolExit(code, message);
        });
        System.setOut(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            main.run();
        } catch (ToolExit e) {
            if (e.code != 0) throw new AssertionError("the tool failed (" + e.getMessage() + "): " + out, e);
        } finally {
            System.setOut(old);
            org.apache.kafka.common.utils.internals.Exit.resetExitProcedure();
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    @Order(2)
    void aMoveToDisjointReplicasUnderAcksAllLoadKeepsEveryAcknowledgedRecord() throws Exception {
        TopicPartition tp = createTopic("move", List.of(1, 2));
        List<String> acked = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        Map<String, Object> pc = new HashMap<>(Map.of(ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10000, ProducerConfig.LINGER_MS_CONFIG, 5));
        try (KafkaProducer<String, String> producer = TestBroker.producer(bootstrap, pc)) {
            for (int i = 0; i < 300; i++) producer.send(new ProducerRecord<>("move", "k", "a" + i)).get(60, TimeUnit.SECONDS);
            for (int i = 0; i < 300; i++) acked.add("a" + i);
            Thread writer = new Thread(() -> {
                for (int i = 0; !stop.get(); i++) {
                    String v = "b" + i;
                    try {
                        producer.send(new ProducerRecord<>("move", "k", v)).get(60, TimeUnit.SECONDS);
                        acked.add(v);
                    } catch (Exception e) {
                        // not acknowledged: nothing is promised about it
                    }
                }
            }, "writer");
            writer.start();
            Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> acked.size() > 350);
            reassign(tp, List.of(3, 4));
            Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(90)).until(() -> describe("move").replicas().stream()
                    .map(Node::id).toList().equals(List.of(3, 4)));
            int before = acked.size();
            Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(60)).until(() -> acked.size() > before + 50);
            stop.set(true);
            writer.join(120_000);
        }
        TopicPartitionInfo p = describe("move");
        assertTrue(Set.of(3, 4).contains(p.leader().id()), "a new replica leads: " + p);
        assertTrue(p.isr().stream().allMatch(n -> n.id() == 3 || n.id() == 4), "old replicas left the ISR: " + p);
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() ->
                admin.listPartitionReassignments().reassignments().get(10, TimeUnit.SECONDS).isEmpty());
        // The old replicas dropped the partition (and its log).
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> brokers[0].context().partitions().get(tp).isEmpty()
                && brokers[1].context().partitions().get(tp).isEmpty());
        List<String> got = readAll(tp, acked.size());
        assertTrue(new LinkedHashSet<>(got).containsAll(acked),
                "every acknowledged record is readable from the new leader; missing: " + missing(acked, got));
    }

    @Test
    @Order(3)
    void badTargetsAreRefusedAndAnUncleanElectionIsRefusedWhileTheIsrIsAlive() throws Exception {
        TopicPartition tp = createTopic("guard", List.of(2, 3));
        ExecutionException unknown = assertThrowsExecution(() -> reassign(tp, List.of(2, 9)));
        assertInstanceOf(InvalidReplicaAssignmentException.class, unknown.getCause());
        ExecutionException dup = assertThrowsExecution(() -> reassign(tp, List.of(3, 3)));
        assertInstanceOf(InvalidReplicaAssignmentException.class, dup.getCause());
        ExecutionException none = assertThrowsExecution(() -> admin.alterPartitionReassignments(
                Map.of(tp, Optional.empty())).all().get(20, TimeUnit.SECONDS));
        assertInstanceOf(NoReassignmentInProgressException.class, none.getCause());

        Map<TopicPartition, Optional<Throwable>> r = admin.electLeaders(ElectionType.UNCLEAN, Set.of(tp))
                .partitions().get(20, TimeUnit.SECONDS);
        assertInstanceOf(ElectionNotNeededException.class, r.get(tp).orElseThrow());
        assertEquals(2, describe("guard").leader().id(), "the leader stays");
    }

    @Test
    @Order(4)
    void aMoveToAStoppedBrokerStaysListedUntilCancelledThenReverts() throws Exception {
        TopicPartition pref = createTopic("pref", List.of(5, 4));
        TopicPartition tp = createTopic("slow", List.of(1, 2));
        brokers[4].close(); // node 5: its leadership of "pref" moves to 4
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> describe("pref").leader().id() == 4);
        Map<TopicPartition, Optional<Throwable>> r = admin.electLeaders(ElectionType.PREFERRED, Set.of(pref))
                .partitions().get(20, TimeUnit.SECONDS);
        assertInstanceOf(PreferredLeaderNotAvailableException.class, r.get(pref).orElseThrow());

        reassign(tp, List.of(1, 5));
        // Each node answers from its own committed metadata: wait until the one asked has the change.
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> ongoing(tp) != null
                && describe("slow").replicas().stream().map(Node::id).toList().equals(List.of(1, 5, 2)));
        PartitionReassignment ongoing = ongoing(tp);
        assertEquals(List.of(1, 5, 2), ongoing.replicas());
        assertEquals(List.of(5), ongoing.addingReplicas());
        assertEquals(List.of(2), ongoing.removingReplicas());
        assertTrue(describe("slow").isr().stream().noneMatch(n -> n.id() == 5), "the stopped target never joins the ISR");

        admin.alterPartitionReassignments(Map.of(tp, Optional.empty())).all().get(20, TimeUnit.SECONDS);
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> ongoing(tp) == null
                && describe("slow").replicas().stream().map(Node::id).toList().equals(List.of(1, 2)));
        assertEquals(Set.of(1, 2), Set.copyOf(describe("slow").isr().stream().map(Node::id).toList()));
    }

    @Test
    @Order(5)
    void aControllerFailoverInTheMiddleOfAMoveCompletesItAndPreferredElectionReturnsLeadership() throws Exception {
        int active = activeController();
        List<Integer> others = new ArrayList<>(List.of(1, 2, 3, 4));
        others.remove(Integer.valueOf(active));
        int keep = others.get(0);
        int leave = others.get(1);
        TopicPartition tp = createTopic("failover", List.of(keep, leave));
        try (KafkaProducer<String, String> producer = TestBroker.producer(bootstrap, Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
            for (int i = 0; i < 100; i++) producer.send(new ProducerRecord<>("failover", "k", "v" + i)).get(60, TimeUnit.SECONDS);
        }
        reassign(tp, List.of(keep, 5)); // node 5 is stopped: the move waits for it
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> ongoing(tp) != null);

        brokers[active - 1].close();
        brokers[active - 1] = null;
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(60)).until(() -> {
            int now = activeController();
            return now > 0 && now != active;
        });
        brokers[4] = new KafkaBroker(BrokerConfig.from(configs[4]), Time.SYSTEM).start();

        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(90)).until(() ->
                describe("failover").replicas().stream().map(Node::id).toList().equals(List.of(keep, 5)));
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> ongoing(tp) == null);
        assertEquals(100, readAll(tp, 100).size());

        // Node 5 is back: once in the ISR of "pref" again, a preferred election gives it its leadership back.
        TopicPartition pref = new TopicPartition("pref", 0);
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(60)).until(() ->
                describe("pref").isr().stream().anyMatch(n -> n.id() == 5));
        assertNotEquals(5, describe("pref").leader().id());
        Map<TopicPartition, Optional<Throwable>> r = admin.electLeaders(ElectionType.PREFERRED, Set.of(pref))
                .partitions().get(20, TimeUnit.SECONDS);
        assertTrue(r.get(pref).isEmpty(), "elected: " + r);
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> describe("pref").leader().id() == 5);
    }

    @Test
    @Order(6)
    void kafkaReassignPartitionsGeneratesExecutesAndVerifiesAMove(@TempDir Path dir) throws Exception {
        restartStoppedNodes();
        TestBroker.createTopics(admin, new NewTopic("tool-move", Map.of(0, List.of(1, 2), 1, List.of(2, 1))));
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> describeAll("tool-move").stream()
                .allMatch(p -> p.isr().size() == 2));
        try (KafkaProducer<String, String> producer = TestBroker.producer(bootstrap, Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
            for (int i = 0; i < 50; i++) {
                producer.send(new ProducerRecord<>("tool-move", i % 2, null, "v" + i)).get(60, TimeUnit.SECONDS);
            }
        }
        Path topics = Files.writeString(dir.resolve("topics.json"), "{\"version\":1,\"topics\":[{\"topic\":\"tool-move\"}]}");
        KafkaTool.Result generate = KafkaTool.run(ReassignPartitionsCommand::main, "--bootstrap-server", bootstrap,
                "--generate", "--topics-to-move-json-file", topics.toString(), "--broker-list", "4,5");
        assertEquals(0, generate.exit(), generate.toString());
        List<String> lines = generate.out().lines().toList();
        String current = lines.get(lines.indexOf("Current partition replica assignment") + 1);
        String proposed = lines.get(lines.indexOf("Proposed partition reassignment configuration") + 1);
        assertEquals(List.of(List.of(1, 2), List.of(2, 1)), replicaLists(current), generate.out());
        List<List<Integer>> target = replicaLists(proposed);
        assertEquals(2, target.size(), proposed);
        assertTrue(target.stream().allMatch(r -> r.size() == 2 && Set.copyOf(r).equals(Set.of(4, 5))), proposed);

        Path plan = Files.writeString(dir.resolve("plan.json"), proposed);
        KafkaTool.Result execute = KafkaTool.run(ReassignPartitionsCommand::main, "--bootstrap-server", bootstrap,
                "--execute", "--reassignment-json-file", plan.toString());
        assertEquals(0, execute.exit(), execute.toString());
        assertTrue(execute.out().contains("Successfully started partition reassignments for tool-move-0,tool-move-1"),
                execute.out());
        KafkaTool.Result[] verify = new KafkaTool.Result[1];
        Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() -> {
            verify[0] = KafkaTool.run(ReassignPartitionsCommand::main, "--bootstrap-server", bootstrap,
                    "--verify", "--reassignment-json-file", plan.toString());
            return !verify[0].out().contains("still in progress");
        });
        assertEquals(0, verify[0].exit(), verify[0].toString());
        assertTrue(verify[0].out().contains("Reassignment of partition tool-move-0 is completed.")
                && verify[0].out().contains("Reassignment of partition tool-move-1 is completed."), verify[0].out());
        List<TopicPartitionInfo> after = describeAll("tool-move");
        for (TopicPartitionInfo p : after) {
            assertEquals(target.get(p.partition()), p.replicas().stream().map(Node::id).toList(), "as planned: " + p);
        }
        assertTrue(admin.listPartitionReassignments().reassignments().get(10, TimeUnit.SECONDS).isEmpty());
        List<String> got = new ArrayList<>(readAll(new TopicPartition("tool-move", 0), 25));
        got.addAll(readAll(new TopicPartition("tool-move", 1), 25));
        assertEquals(50, new LinkedHashSet<>(got).size(), "every record moved with its partition: " + got);
    }

    @Test
    @Order(7)
    void kafkaLeaderElectionRunsPreferredAndUncleanElections() throws Exception {
        restartStoppedNodes();
        // Preferred: node 4 prefers to lead; while it is away 5 leads; back in the ISR, the tool returns leadership.
        createTopic("tool-pref", List.of(4, 5));
        stop(4);
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> describe("tool-pref").leader().id() == 5);
        brokers[3] = new KafkaBroker(BrokerConfig.from(configs[3]), Time.SYSTEM).start();
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(60)).until(() -> describe("tool-pref").isr().size() == 2);
        assertEquals(5, describe("tool-pref").leader().id());
        KafkaTool.Result preferred = KafkaTool.run(LeaderElectionCommand::main, "--bootstrap-server", bootstrap,
                "--election-type", "PREFERRED", "--topic", "tool-pref", "--partition", "0");
        assertEquals(0, preferred.exit(), preferred.toString());
        assertTrue(preferred.out().contains("Successfully completed leader election (PREFERRED) for partitions tool-pref-0"),
                preferred.toString());
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> describe("tool-pref").leader().id() == 4);

        // Unclean: the only ISR member (5) stops after 4 left the ISR; 4 comes back out of sync and the partition has
        // no leader until the operator accepts an unclean election.
        createTopic("tool-unclean", List.of(5, 4));
        stop(4);
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() ->
                describe("tool-unclean").isr().stream().map(Node::id).toList().equals(List.of(5)));
        stop(5);
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> {
            Node leader = describe("tool-unclean").leader();
            return leader == null || leader.id() < 0;
        });
        brokers[3] = new KafkaBroker(BrokerConfig.from(configs[3]), Time.SYSTEM).start();
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(60)).until(() ->
                admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).stream().anyMatch(n -> n.id() == 4));
        TopicPartitionInfo offline = describe("tool-unclean");
        assertTrue(offline.leader() == null || offline.leader().id() < 0, "no clean leader: " + offline);
        KafkaTool.Result unclean = KafkaTool.run(LeaderElectionCommand::main, "--bootstrap-server", bootstrap,
                "--election-type", "UNCLEAN", "--topic", "tool-unclean", "--partition", "0");
        assertEquals(0, unclean.exit(), unclean.toString());
        assertTrue(unclean.out().contains("Successfully completed leader election (UNCLEAN) for partitions tool-unclean-0"),
                unclean.toString());
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> describe("tool-unclean").leader().id() == 4);
        assertEquals(List.of(4), describe("tool-unclean").isr().stream().map(Node::id).toList());
    }

    private void stop(int node) {
        brokers[node - 1].close();
        brokers[node - 1] = null;
    }

    /** Starts again any node an earlier test stopped, so each test below begins with all five. */
    private void restartStoppedNodes() throws Exception {
        for (int i = 0; i < NODES; i++) {
            if (brokers[i] == null) {
                brokers[i] = new KafkaBroker(BrokerConfig.from(configs[i]), Time.SYSTEM).start();
            }
        }
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(60)).until(() ->
                admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size() == NODES);
    }

    /** The "replicas" lists of a reassignment JSON, in the order it names the partitions. */
    private static List<List<Integer>> replicaLists(String json) {
        List<List<Integer>> lists = new ArrayList<>();
        Matcher m = Pattern.compile("\"replicas\":\\[([0-9,]*)]").matcher(json);
        while (m.find()) lists.add(Arrays.stream(m.group(1).split(",")).map(Integer::valueOf).toList());
        return lists;
    }

    private List<TopicPartitionInfo> describeAll(String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic).partitions();
    }

    private int activeController() {
        for (KafkaBroker b : brokers) {
            if (b != null && b.controller() != null && b.controller().isActive()) return b.controller().nodeId();
        }
        return -1;
    }

    private TopicPartition createTopic(String name, List<Integer> replicas) throws Exception {
        TestBroker.createTopics(admin, new NewTopic(name, Map.of(0, replicas)));
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> describe(name).isr().size() == replicas.size());
        return new TopicPartition(name, 0);
    }

    /** The move of {@code tp} in progress as ListPartitionReassignments shows it, or null. */
    private PartitionReassignment ongoing(TopicPartition tp) throws Exception {
        return admin.listPartitionReassignments(Set.of(tp)).reassignments().get(20, TimeUnit.SECONDS).get(tp);
    }

    private void reassign(TopicPartition tp, List<Integer> target) throws Exception {
        admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(target))))
                .all().get(20, TimeUnit.SECONDS);
    }

    private TopicPartitionInfo describe(String topic) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
        return d.partitions().get(0);
    }

    private List<String> readAll(TopicPartition tp, int atLeast) {
        try (KafkaConsumer<String, String> c = TestBroker.consumer(bootstrap, Map.of())) {
            c.assign(Set.of(tp));
            c.seekToBeginning(Set.of(tp));
            List<String> got = new ArrayList<>();
            Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(60)).until(() -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) got.add(r.value());
                return got.size() >= atLeast;
            });
            return got;
        }
    }

    private static List<String> missing(List<String> acked, List<String> got) {
        Set<String> have = new LinkedHashSet<>(got);
        return acked.stream().filter(v -> !have.contains(v)).limit(20).toList();
    }

    private interface Call {
        void run() throws Exception;
    }

    private static ExecutionException assertThrowsExecution(Call call) throws Exception {
        try {
            call.run();
        } catch (ExecutionException e) {
            return e;
        }
        throw new AssertionError("expected the call to fail");
    }
}
