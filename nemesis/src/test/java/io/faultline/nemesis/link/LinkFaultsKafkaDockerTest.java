package io.faultline.nemesis.link;

import io.faultline.docker.Node;
import io.faultline.docker.sut.ApacheKafka;
import io.faultline.docker.sut.KafkaAdmin;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.docker.sut.SutCluster;
import io.faultline.nemesis.ClusterView.PartitionRef;
import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.NemesisContext;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Link faults on a real three-node Apache Kafka cluster whose inter-broker and controller traffic runs through
 * the Toxiproxy-compatible server: latency on the leader's links slows acks=all produces by at least the delay,
 * one-way loss from the leader to its followers shrinks the ISR, and the final heal brings everything back.
 */
@DisabledIfSystemProperty(named = "faultline.skipDocker", matches = "true")
class LinkFaultsKafkaDockerTest {
    private static final String TOPIC = "links";
    private static final PartitionRef PARTITION = new PartitionRef(TOPIC, 0);
    private static SutCluster kafka;
    private static NemesisContext ctx;
    private static LinkNemesis links;

    @BeforeAll
    static void start() throws Exception {
        kafka = SutCluster.start(new ApacheKafka(KafkaSettings.defaults()), 3, Duration.ofSeconds(180));
        ctx = NemesisContext.builder(kafka).seed(14).build();
        links = new LinkNemesis(List.of(), List.of(ApacheKafka.PORT)); // the host's clients are routed too
        links.setup(ctx); // routes every inter-node connection through the proxy; old ones are reset and reopen
        try (Admin admin = KafkaAdmin.create(kafka.bootstrapServers())) {
            KafkaAdmin.createTopics(admin, Duration.ofSeconds(60), new NewTopic(TOPIC, Optional.of(1), Optional.of((short) 3))
                    .configs(Map.of("min.insync.replicas", "2")));
        }
        assertTrue(awaitIsr(3, 120_000), "full ISR through the proxies, isr=" + isr());
    }

    @AfterAll
    static void stop() {
        if (links != null) links.teardown(ctx);
        if (kafka != null) kafka.teardown(null);
    }

    private static KafkaProducer<String, String> producer() {
        var p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private static List<Integer> isr() {
        try (Admin admin = KafkaAdmin.create(kafka.bootstrapServers())) {
            return admin.describeTopics(List.of(TOPIC)).allTopicNames().get(10, TimeUnit.SECONDS).get(TOPIC)
                    .partitions().get(0).isr().stream().map(org.apache.kafka.common.Node::id).sorted().toList();
        } catch (Exception e) {
            return List.of();
        }
    }

    private static boolean awaitIsr(int size, long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline) {
            if (isr().size() == size) return true;
            sleep(500);
        }
        return false;
    }

    private static boolean awaitIsrBelow(int size, long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline) {
            List<Integer> now = isr();
            if (!now.isEmpty() && now.size() < size) return true;
            sleep(500);
        }
        return false;
    }

    /** Each node's TCP connections, for a failure message. */
    private static String connections() {
        var sb = new StringBuilder();
        for (Node n : kafka.nodes()) sb.append(n.name()).append(" (").append(n.ip()).append("):\n")
                .append(n.exec("ss", "-tn").stdout()).append(n.exec("iptables", "-w", "-t", "nat", "-S", "OUTPUT").stdout());
        return sb.toString();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void slowLeaderLinksThenOneWayFromTheLeaderThenHeal() throws Exception {
        try (var producer = producer()) {
            long before = ProduceLatency.medianMillis(producer, TOPIC, 15);

            // the replication port only: 600 ms more per round trip on the controller port makes KRaft's 0.5-1 s
            // timeouts fire and leadership move away from the slowed node, which is a different experiment
            var slow = new LinkFault.Slow(new LinkTarget.Leader(PARTITION), 300, 0);
            String leader = ctx.leaderOf(PARTITION).orElseThrow();
            String result = links.apply(slow, slow.target().resolve(ctx, ctx.random()), List.of(ApacheKafka.PORT));
            long during = ProduceLatency.medianMillis(producer, TOPIC, 9);
            System.out.printf("acks=all produce median: %d ms before, %d ms with 300 ms on the leader's links (%s)%n",
                    before, during, result);
            assertEquals(leader, ctx.leaderOf(PARTITION).orElseThrow(), "the leader stayed while slowed");
            // the followers' fetch responses cross a slowed link before the leader can ack: at least the delay
            assertTrue(during >= 300, "produce median with 300 ms link latency was " + during + " ms; " + result
                    + "\n" + connections());

            FaultOp healed = links.invoke(ctx, FaultOp.of(LinkNemesis.STOP));
            assertFalse(healed.isFailed(), healed.toString());
            assertTrue(awaitIsr(3, 120_000), "full ISR after healing the latency, isr=" + isr());

            // the clients' own link to the leader: each produce request and its response cross it
            FaultOp clients = links.invoke(ctx, FaultOp.of(LinkNemesis.START,
                    new LinkFault.Slow(new LinkTarget.Clients(ctx.leaderOf(PARTITION).orElseThrow()), 200, 0)));
            assertFalse(clients.isFailed(), clients.toString());
            long slowClients = ProduceLatency.medianMillis(producer, TOPIC, 9);
            System.out.printf("acks=all produce median with 200 ms on the clients' link to the leader: %d ms (%s)%n",
                    slowClients, clients.result());
            assertTrue(slowClients >= 200, "produce median with a 200 ms client link was " + slowClients + " ms");
            assertFalse(links.invoke(ctx, FaultOp.of(LinkNemesis.STOP)).isFailed());
        }

        String leader = ctx.leaderOf(PARTITION).orElseThrow();
        FaultOp oneWay = links.invoke(ctx, FaultOp.of(LinkNemesis.START, new LinkFault.OneWay(new LinkTarget.Leader(PARTITION))));
        assertFalse(oneWay.isFailed(), oneWay.toString());
        assertTrue(oneWay.result().startsWith("one-way on " + leader + "->"), oneWay.result());
        assertTrue(awaitIsrBelow(3, 90_000), "data from the leader " + leader + " stopped: the ISR shrinks, isr=" + isr());
        System.out.println("one-way from " + leader + ": isr " + isr());

        FaultOp heal = links.invoke(ctx, FaultOp.of(LinkNemesis.STOP));
        assertFalse(heal.isFailed(), heal.toString());
        assertEquals(List.of(), links.problems(), "every toxic removed, every proxy enabled");
        assertTrue(awaitIsr(3, 120_000), "full ISR after the heal, isr=" + isr());

        // a restarted node gets its routes back, as partitions are re-applied
        Node follower = kafka.nodes().stream().filter(n -> !n.name().equals(leader)).findFirst().orElseThrow();
        follower.kill();
        follower.start();
        String nat = follower.exec("iptables", "-w", "-t", "nat", "-S", "OUTPUT").stdout();
        long dnat = nat.lines().filter(l -> l.contains("DNAT") && l.contains(links.router().ip())).count();
        assertEquals(2 * 2, dnat, "two peers x two ports routed again after a restart:\n" + nat);
        assertTrue(awaitIsr(3, 120_000), "the restarted follower rejoins through the proxy, isr=" + isr());
        try (var producer = producer()) {
            producer.send(new ProducerRecord<>(TOPIC, 0, null, "after")).get(120, TimeUnit.SECONDS);
        }
    }
}
