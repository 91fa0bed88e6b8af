package io.faultline.nemesis.link;

import io.faultline.docker.sut.BrokerImpl;
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
import org.apache.kafka.common.serialization.StringSerializer;
import io.faultline.nemesis.net.PartitionShape;
import io.faultline.nemesis.net.Partitioner;
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

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Link faults on a real three-node broker-impl cluster, whose followers fetch on a replication listener of their own
 * and whose controllers talk Raft on a further port: every one of those ports is routed through the proxies (until
 * 6 December 2026 only the client port was, so a slowed or one-way link never touched broker-impl's replication).
 * The cluster works through the proxies, 300 ms on the leader's replication links slows acks=all produces by at
 * least that, and the heal brings everything back. On the same cluster, without proxies: a cut of the replication
 * port alone (the nightly mix's {@code cut-replication-only}) takes a follower out of the ISR while it stays a
 * registered, unfenced broker, and the heal brings it back; and the nightly mix's {@code replica-set-churn} steps: a
 * follower removed from the replica set and added back copies the whole log, and a preferred-leader election hands
 * it the leadership with every acknowledged record.
 */
@DisabledIfSystemProperty(named = "faultline.skipDocker", matches = "true")
class LinkFaultsBrokerImplDockerTest {
    private static final String TOPIC = "links";
    private static final PartitionRef PARTITION = new PartitionRef(TOPIC, 0);
    private static final BrokerImpl SUT = new BrokerImpl(KafkaSettings.defaults());
    private static SutCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        cluster = SutCluster.start(SUT, 3, Duration.ofSeconds(180));
        admin = KafkaAdmin.create(cluster.bootstrapServers());
        KafkaAdmin.createTopics(admin, Duration.ofSeconds(60), new NewTopic(TOPIC, Optional.of(1), Optional.of((short) 3))
                .configs(Map.of("min.insync.replicas", "2")));
    }

    @AfterAll
    static void stop() {
        if (admin != null) admin.close();
        if (cluster != null) cluster.close();
    }

    @Test
    void aReplicationCutTakesAFollowerOutOfTheIsrWhileItStaysRegistered() throws Exception {
        var ctx = NemesisContext.builder(cluster).seed(16).build();
        await("full ISR").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() -> isr(admin).size() == 3);
        String leader = ctx.leaderOf(PARTITION).orElseThrow();
        String follower = cluster.cluster().nodes().stream().map(io.faultline.docker.Node::name)
                .filter(n -> !n.equals(leader)).findFirst().orElseThrow();
        int followerId = Integer.parseInt(follower.substring(1));
        var others = cluster.cluster().nodes().stream().map(io.faultline.docker.Node::name).filter(n -> !n.equals(follower)).toList();
        var grudge = new io.faultline.nemesis.net.Grudge(Map.of(follower, java.util.Set.copyOf(others),
                others.get(0), java.util.Set.of(follower), others.get(1), java.util.Set.of(follower)));
        var partitioner = new Partitioner();
        partitioner.setup(ctx);
        try {
            FaultOp cut = partitioner.invoke(ctx, FaultOp.of(Partitioner.START, new PartitionShape.ReplicationCut(grudge)));
            assertTrue(cut.result().contains("port " + SUT.replicationPort()), cut.toString());
            try (var producer = producer(cluster.bootstrapServers())) {
                // an idle follower whose log ends where the leader's does stays in sync (as in Kafka): writes make it lag
                await("the cut follower " + follower + " leaves the ISR").atMost(Duration.ofMinutes(2))
                        .pollInterval(Duration.ofMillis(500)).until(() -> {
                            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(TOPIC, "k", "during the cut"));
                            return !isr(admin).contains(followerId);
                        });
                assertTrue(brokers(admin).contains(followerId), follower + " still heartbeats: a registered, unfenced broker");
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(TOPIC, "k", "v")).get(2, TimeUnit.MINUTES);
            }
            partitioner.invoke(ctx, FaultOp.of(Partitioner.STOP));
            await("back in the ISR after the heal").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                    .until(() -> isr(admin).size() == 3);
        } finally {
            partitioner.teardown(ctx);
        }
    }

    @Test
    void aFollowerRemovedAndAddedBackCopiesTheWholeLogAndCanLead() throws Exception {
        String topic = "churn";
        KafkaAdmin.createTopics(admin, Duration.ofSeconds(60), new NewTopic(topic, Optional.of(1), Optional.of((short) 3))
                .configs(Map.of("min.insync.replicas", "2")));
        var ctx = NemesisContext.builder(cluster).seed(17).build();
        var part = new PartitionRef(topic, 0);
        var membership = new io.faultline.nemesis.membership.MembershipNemesis();
        try (var producer = producer(cluster.bootstrapServers())) {
            for (int i = 0; i < 50; i++) producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, "r" + i)).get(2, TimeUnit.MINUTES);
            await("a leader").atMost(Duration.ofMinutes(1)).until(() -> ctx.leaderOf(part).isPresent());
            int leader = Integer.parseInt(ctx.leaderOf(part).orElseThrow().substring(1));
            List<Integer> others = java.util.stream.IntStream.rangeClosed(1, 3).filter(b -> b != leader).boxed().toList();
            int removed = others.get(0), kept = others.get(1);
            FaultOp shrink = membership.invoke(ctx, FaultOp.of(io.faultline.nemesis.membership.MembershipNemesis.REASSIGN,
                    new io.faultline.nemesis.membership.MembershipNemesis.Reassign(part, List.of(leader, kept))));
            assertFalse(shrink.isFailed(), shrink.toString());
            await("the replica set shrinks to " + leader + ", " + kept).atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                    .until(() -> replicas(topic).equals(List.of(leader, kept)));
            for (int i = 50; i < 100; i++) producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, "r" + i)).get(2, TimeUnit.MINUTES);
            FaultOp grow = membership.invoke(ctx, FaultOp.of(io.faultline.nemesis.membership.MembershipNemesis.REASSIGN,
                    new io.faultline.nemesis.membership.MembershipNemesis.Reassign(part, List.of(removed, leader, kept))));
            assertFalse(grow.isFailed(), grow.toString());
            await(removed + " added back and in sync").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                    .until(() -> replicas(topic).equals(List.of(removed, leader, kept)) && isr(admin, topic).contains(removed));
            await(removed + " elected as the preferred leader").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(1000))
                    .until(() -> {
                        try {
                            membership.invoke(ctx, FaultOp.of(io.faultline.nemesis.membership.MembershipNemesis.ELECT,
                                    new io.faultline.nemesis.membership.MembershipNemesis.Elect(List.of(part))));
                        } catch (IllegalStateException e) {
                            return false; // no answer yet: ask again
                        }
                        return ctx.leaderOf(part).map(n -> n.equals("n" + removed)).orElse(false);
                    });
        } finally {
            membership.teardown(ctx);
        }
        var p = new Properties();
        p.put(org.apache.kafka.clients.consumer.ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        java.util.Set<String> seen = new java.util.HashSet<>();
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<>(p,
                new org.apache.kafka.common.serialization.StringDeserializer(), new org.apache.kafka.common.serialization.StringDeserializer())) {
            var tp = new org.apache.kafka.common.TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            await("every acknowledged record read from the re-added leader").atMost(Duration.ofMinutes(1)).until(() -> {
                consumer.poll(Duration.ofMillis(500)).forEach(r -> seen.add(r.value()));
                return seen.size() >= 100;
            });
        }
        for (int i = 0; i < 100; i++) assertTrue(seen.contains("r" + i), "acknowledged record r" + i);
    }

    private static List<Integer> replicas(String topic) {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
                    .partitions().get(0).replicas().stream().map(org.apache.kafka.common.Node::id).toList();
        } catch (Exception e) {
            return List.of();
        }
    }

    @Test
    void replicationAndTheQuorumRunThroughTheProxiesAndASlowReplicationLinkSlowsAcksAll() throws Exception {
        var sut = SUT;
        {
            var ctx = NemesisContext.builder(cluster).seed(15).build();
            var links = new LinkNemesis(List.of());
            try {
                links.setup(ctx);
                assertEquals(sut.peerPorts().stream().sorted().toList(), links.router().ports(), "every port the nodes talk to each other on");
                assertEquals(3 * 2 * sut.peerPorts().size(), links.router().routes().size());
                await("full ISR through the proxies").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                        .until(() -> isr(admin).size() == 3);

                // the replication listener only (the controller's and Raft's ports stay fast, so leadership stays): the
                // followers' fetch answers cross the slowed link before the leader can acknowledge acks=all
                String leader = ctx.leaderOf(PARTITION).orElseThrow();
                var slow = new LinkFault.Slow(new LinkTarget.Leader(PARTITION), 300, 0);
                String result = links.apply(slow, slow.target().resolve(ctx, ctx.random()), List.of(BrokerImpl.REPLICATION_PORT));
                try (var producer = producer(cluster.bootstrapServers())) {
                    long during = ProduceLatency.medianMillis(producer, TOPIC, 9);
                    System.out.printf("broker-impl acks=all produce median with 300 ms on the leader's replication links: %d ms (%s)%n",
                            during, result);
                    // a lower bound the proxy guarantees: a busy machine only adds to it
                    assertTrue(during >= 300, "acks=all median " + during + " ms with 300 ms on " + leader
                            + "'s replication links: " + result);
                }

                FaultOp heal = links.invoke(ctx, FaultOp.of(LinkNemesis.STOP));
                assertFalse(heal.isFailed(), heal.toString());
                assertEquals(List.of(), links.problems(), "every toxic removed, every proxy enabled");
                await("full ISR after the heal").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                        .until(() -> isr(admin).size() == 3);
            } finally {
                links.teardown(ctx);
            }
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        var p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private static java.util.Set<Integer> brokers(Admin admin) throws Exception {
        return admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream().map(org.apache.kafka.common.Node::id)
                .collect(java.util.stream.Collectors.toSet());
    }

    private static List<Integer> isr(Admin admin) {
        return isr(admin, TOPIC);
    }

    private static List<Integer> isr(Admin admin, String topic) {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
                    .partitions().get(0).isr().stream().map(org.apache.kafka.common.Node::id).sorted().toList();
        } catch (Exception e) {
            return List.of();
        }
    }
}
