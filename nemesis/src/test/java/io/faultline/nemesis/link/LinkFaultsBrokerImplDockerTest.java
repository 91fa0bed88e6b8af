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
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
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

/**
 * Link faults on a real three-node broker-impl cluster, whose followers fetch on a replication listener of their own
 * and whose controllers talk Raft on a further port: every one of those ports is routed through the proxies (until
 * 6 December 2026 only the client port was, so a slowed or one-way link never touched broker-impl's replication).
 * The cluster works through the proxies, one-way loss from a leader to its followers shrinks the ISR, and the heal
 * brings the ISR back.
 */
@DisabledIfSystemProperty(named = "faultline.skipDocker", matches = "true")
class LinkFaultsBrokerImplDockerTest {
    private static final String TOPIC = "links";
    private static final PartitionRef PARTITION = new PartitionRef(TOPIC, 0);

    @Test
    void replicationAndTheQuorumRunThroughTheProxiesAndAOneWayLinkFromTheLeaderShrinksTheIsr() throws Exception {
        var sut = new BrokerImpl(KafkaSettings.defaults());
        try (SutCluster cluster = SutCluster.start(sut, 3, Duration.ofSeconds(180));
             Admin admin = KafkaAdmin.create(cluster.bootstrapServers())) {
            var ctx = NemesisContext.builder(cluster).seed(15).build();
            var links = new LinkNemesis(List.of());
            try {
                links.setup(ctx);
                assertEquals(sut.peerPorts().stream().sorted().toList(), links.router().ports(), "every port the nodes talk to each other on");
                assertEquals(3 * 2 * sut.peerPorts().size(), links.router().routes().size());
                KafkaAdmin.createTopics(admin, Duration.ofSeconds(60), new NewTopic(TOPIC, Optional.of(1), Optional.of((short) 3))
                        .configs(Map.of("min.insync.replicas", "2")));
                await("full ISR through the proxies").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                        .until(() -> isr(admin).size() == 3);

                String leader = ctx.leaderOf(PARTITION).orElseThrow();
                FaultOp oneWay = links.invoke(ctx, FaultOp.of(LinkNemesis.START, new LinkFault.OneWay(new LinkTarget.Leader(PARTITION))));
                assertFalse(oneWay.isFailed(), oneWay.toString());
                // writes the leader takes alone (acks=1; the host's connection to it is not routed): its followers'
                // fetch answers are lost on the way back, so they fall behind and leave the ISR
                try (var producer = producer(cluster.bootstrapServers())) {
                    await("the ISR shrinks once nothing from the leader " + leader + " reaches its followers")
                            .atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
                            .until(() -> {
                                producer.send(new ProducerRecord<>(TOPIC, 0, null, "v"));
                                var now = isr(admin);
                                return !now.isEmpty() && now.size() < 3;
                            });
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
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private static List<Integer> isr(Admin admin) {
        try {
            return admin.describeTopics(List.of(TOPIC)).allTopicNames().get(10, TimeUnit.SECONDS).get(TOPIC)
                    .partitions().get(0).isr().stream().map(org.apache.kafka.common.Node::id).sorted().toList();
        } catch (Exception e) {
            return List.of();
        }
    }
}
