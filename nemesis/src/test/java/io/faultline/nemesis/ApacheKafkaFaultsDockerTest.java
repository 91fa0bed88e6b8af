package io.faultline.nemesis;

import io.faultline.docker.DockerBacked;
import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.docker.Node;
import io.faultline.docker.sut.ApacheKafka;
import io.faultline.docker.sut.KafkaAdmin;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.docker.sut.SutCluster;
import io.faultline.nemesis.ClusterView.PartitionRef;
import io.faultline.nemesis.disk.DiskFault;
import io.faultline.nemesis.disk.DiskNemesis;
import io.faultline.nemesis.process.Target;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Membership changes, disk faults and a minute of mixed faults against real Apache Kafka on three nodes. */
@DockerBacked
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ApacheKafkaFaultsDockerTest {
    private static final String TOPIC = "faults";
    private static final int RECORDS = 3000;
    private static SutCluster kafka;

    @BeforeAll
    static void start() throws Exception {
        kafka = SutCluster.start(new ApacheKafka(KafkaSettings.defaults()), 3, Duration.ofSeconds(180));
        try (Admin admin = KafkaAdmin.create(kafka.bootstrapServers())) {
            KafkaAdmin.createTopics(admin, Duration.ofSeconds(60), new NewTopic(TOPIC, Optional.of(1), Optional.of((short) 3))
                    .configs(Map.of("min.insync.replicas", "2")));
        }
        try (var producer = producer()) {
            List<Future<?>> acks = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) acks.add(producer.send(new ProducerRecord<>(TOPIC, 0, null, Integer.toString(i))));
            for (Future<?> f : acks) f.get(120, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        if (kafka != null) kafka.teardown(null);
    }

    private static KafkaProducer<String, String> producer() {
        var p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    /** Every value in the partition, read from the start by a fresh consumer. */
    private static Set<String> readAll(int atLeast) {
        var p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        Set<String> seen = new HashSet<>();
        try (var consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            var tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.currentTimeMillis() + 90_000;
            while (seen.size() < atLeast && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(r -> seen.add(r.value()));
            }
        }
        return seen;
    }

    private static List<Integer> isr() {
        try (Admin admin = KafkaAdmin.create(kafka.bootstrapServers())) {
            return admin.describeTopics(List.of(TOPIC)).allTopicNames().get(10, TimeUnit.SECONDS).get(TOPIC)
                    .partitions().get(0).isr().stream().map(org.apache.kafka.common.Node::id).sorted().toList();
        } catch (Exception e) {
            return List.of();
        }
    }

    private static boolean awaitFullIsr(long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline) {
            if (isr().equals(List.of(1, 2, 3))) return true;
            Probes.sleep(500);
        }
        return false;
    }

    /** Who listens where, for a failure message. */
    private static String listeners() {
        var sb = new StringBuilder();
        for (Node n : kafka.nodes()) {
            sb.append(n.name()).append(": ").append(n.exec("sh", "-c", "ss -ltn 2>/dev/null | tail -n +2 | awk '{print $4}' | tr '\\n' ' '").stdout())
                    .append("| ");
            String log = n.readString("/logs/server.log");
            var lines = log.lines().toList();
            sb.append(String.join("\n   ", lines.subList(Math.max(0, lines.size() - 8), lines.size()))).append('\n');
        }
        return sb.toString();
    }

    @Test
    @Order(1)
    void aBrokerWithTruncatedFlippedAndIndexlessSegmentsStartsAndCatchesUp() {
        var ctx = NemesisContext.builder(kafka).seed(3).build();
        String leader = ctx.leaderOf(new PartitionRef(TOPIC, 0)).orElseThrow();
        Target target = new Target.Nodes(List.of(leader));
        var disk = new DiskNemesis();
        FaultOp cut = disk.invoke(ctx, FaultOp.of(DiskNemesis.TRUNCATE, new DiskFault.Truncate(target, 300)));
        assertTrue(cut.result().contains("truncated /data/kafka/" + TOPIC + "-0/") && cut.result().contains("by 300 bytes"),
                cut.toString());
        FaultOp flip = disk.invoke(ctx, FaultOp.of(DiskNemesis.BITFLIP, new DiskFault.BitFlip(target, 4)));
        assertTrue(flip.result().contains("flipped bits"), flip.toString());
        FaultOp index = disk.invoke(ctx, FaultOp.of(DiskNemesis.DELETE_INDEX, new DiskFault.DeleteIndex(target)));
        assertTrue(index.result().contains("deleted") && index.result().contains(".index"), index.toString());

        Node node = kafka.node(leader);
        assertTrue(node.isRunning(), leader + " runs again");
        kafka.sut().awaitReady(kafka.cluster(), Duration.ofSeconds(120));
        assertTrue(awaitFullIsr(120_000), leader + " rejoins the ISR, isr=" + isr());
        String log = node.readString("/logs/server.log");
        assertTrue(log.contains("ecover") || log.contains("ebuild"), "the broker recovered its log");
        Set<String> values = readAll(RECORDS);
        for (int i = 0; i < RECORDS; i++) assertTrue(values.contains(Integer.toString(i)), "acked record " + i + " kept");
    }

    @Test
    @Order(3) // last: its topic's segments would be the newest the disk faults of the first test pick
    void membershipMovesAPartitionElectsAndCancels() throws Exception {
        String topic = "moves";
        try (Admin admin = KafkaAdmin.create(kafka.bootstrapServers())) {
            KafkaAdmin.createTopics(admin, Duration.ofSeconds(60), new NewTopic(topic, Optional.of(1), Optional.of((short) 2)));
        }
        try (var producer = producer()) {
            for (int i = 0; i < 100; i++) producer.send(new ProducerRecord<>(topic, 0, null, "m" + i)).get(60, TimeUnit.SECONDS);
        }
        var ctx = NemesisContext.builder(kafka).seed(7).build();
        var nemesis = new io.faultline.nemesis.membership.MembershipNemesis();
        var part = new PartitionRef(topic, 0);
        try {
            FaultOp move = nemesis.invoke(ctx, FaultOp.of(io.faultline.nemesis.membership.MembershipNemesis.MOVE,
                    new io.faultline.nemesis.membership.MembershipNemesis.Move(part)));
            // "moves-0 [a, b] -> [c, d]": wait for Kafka to finish the move it accepted
            String target = move.result().substring(move.result().indexOf("-> ") + 3);
            long deadline = System.currentTimeMillis() + 90_000;
            String now = "";
            while (System.currentTimeMillis() < deadline) {
                try (Admin admin = KafkaAdmin.create(kafka.bootstrapServers())) {
                    now = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
                            .partitions().get(0).replicas().stream().map(org.apache.kafka.common.Node::id).toList().toString();
                } catch (Exception e) {
                    now = e.toString();
                }
                if (now.equals(target)) break;
                Probes.sleep(500);
            }
            assertEquals(target, now, "the partition moved: " + move);
            FaultOp elect = nemesis.invoke(ctx, FaultOp.of(io.faultline.nemesis.membership.MembershipNemesis.ELECT,
                    new io.faultline.nemesis.membership.MembershipNemesis.Elect(List.of(part))));
            assertTrue(elect.result().contains(topic + "-0="), elect.toString());
            FaultOp cancel = nemesis.invoke(ctx, FaultOp.of(io.faultline.nemesis.membership.MembershipNemesis.CANCEL));
            assertEquals("no move in progress", cancel.result());
        } finally {
            nemesis.teardown(ctx);
        }
        var p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        Set<String> seen = new HashSet<>();
        try (var consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            var tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.currentTimeMillis() + 60_000;
            while (seen.size() < 100 && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(r -> seen.add(r.value()));
            }
        }
        assertEquals(100, seen.size(), "every record is on the new replicas");
    }

    @Test
    @Order(2)
    void aMinuteOfMixedFaultsEndsHealedAndServing() throws Exception {
        var recorder = HistoryRecorder.inMemory(1);
        var timeline = new FaultTimeline();
        var ctx = NemesisContext.builder(kafka).seed(2026).recorder(recorder).alsoLog(timeline).build();
        var options = FaultOptions.defaults().withPrimaries(List.of(new PartitionRef(TOPIC, 0)))
                .withStrobe(2_000, 4_000).withMaxBumpMillis(120_000);
        List<FaultPackage> packages = FaultPackages.create(FaultPackages.NAMES, ctx, options);
        Schedule schedule = new Schedule(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofSeconds(60), 2026);
        List<String> plannedFs = Scheduler.plan(packages, schedule).stream().map(p -> p.op().f()).toList();

        var scheduler = new Scheduler(ctx, packages);
        try {
            scheduler.start(schedule);
            assertTrue(scheduler.awaitFinished(Duration.ofSeconds(180)), "the schedule ends");
            List<FaultOp> heals = scheduler.finalHeal(Duration.ofSeconds(2));
            assertEquals(FaultPackages.NAMES.size(), heals.size(), "one final heal per package");
            for (FaultOp h : heals) assertFalse(h.isFailed(), "heal failed: " + h);

            List<FaultOp> ran = scheduler.executed();
            List<String> ranFs = ran.subList(0, ran.size() - heals.size()).stream().map(FaultOp::f).toList();
            assertEquals(plannedFs.subList(0, ranFs.size()), ranFs, "ran the seeded plan, in order");
            // cycles of window, fault, hold, heal, window: about 7 faults with their heals planned in 60 s; slow ops
            // on a busy machine delay the rest, so ask for 3 cycles' worth
            assertTrue(plannedFs.size() >= 10, "a fault cycle every few seconds: " + plannedFs);
            assertTrue(ranFs.size() >= 6, "a fault cycle every few seconds: " + ranFs);
            System.out.println("faults: " + String.join("\n  ", ran.stream().map(FaultOp::toString).toList()));

            // verified, not assumed: every node up, unfrozen, unpartitioned, on real time, and Kafka serving
            assertEquals(List.of(), ClusterHealth.awaitHealthy(ctx, Duration.ofSeconds(60)));
            kafka.sut().awaitReady(kafka.cluster(), Duration.ofSeconds(180));
            // a broker opens its client port only once it has caught up: give the last restarted ones time
            var reached = Probes.reachability(kafka.cluster(), ApacheKafka.PORT);
            long deadline = System.currentTimeMillis() + 90_000;
            while (!reached.equals(Probes.full(kafka.cluster())) && System.currentTimeMillis() < deadline) {
                Probes.sleep(1000);
                reached = Probes.reachability(kafka.cluster(), ApacheKafka.PORT);
            }
            assertEquals(Probes.full(kafka.cluster()), reached, "every broker reaches every other's Kafka port; "
                    + listeners());
            System.out.printf("all Kafka ports reachable %d ms before the 90 s limit%n", deadline - System.currentTimeMillis());
            try (var producer = producer()) {
                producer.send(new ProducerRecord<>(TOPIC, 0, null, "after-faults")).get(120, TimeUnit.SECONDS);
            }
            assertTrue(readAll(RECORDS + 1).contains("after-faults"));

            List<Op> history = recorder.ops();
            assertEquals(2 * ran.size(), history.size(), "each fault op starts and ends in the history");
            assertTrue(history.stream().allMatch(o -> o.type() == OpType.INFO && o.process() == Op.NEMESIS));
            assertFalse(timeline.bands(packages).isEmpty(), "fault bands for the report");
            assertEquals(FaultPackages.legends().stream().filter(l -> FaultPackages.NAMES.contains(l.name())).toList(),
                    packages.stream().map(FaultPackage::legend).toList());
            // the history cannot tell whose "start" it was, so it may close a kill band early: compare packages only
            assertEquals(timeline.bands(packages).stream().map(FaultTimeline.FaultBand::packageName).collect(java.util.stream.Collectors.toSet()),
                    FaultTimeline.fromHistory(history, FaultPackages.legends()).stream()
                            .map(FaultTimeline.FaultBand::packageName).collect(java.util.stream.Collectors.toSet()),
                    "the history shows the same kinds of fault");
            assertTrue(timeline.bands(packages).stream().allMatch(b -> b.endNanos() >= b.startNanos()), "every band closed");
            ctx.clocks().series().forEach((node, samples) ->
                    assertEquals(0, samples.get(samples.size() - 1).offsetMillis(), node + " clock series ends at 0"));
        } finally {
            scheduler.teardown();
        }
    }
}
