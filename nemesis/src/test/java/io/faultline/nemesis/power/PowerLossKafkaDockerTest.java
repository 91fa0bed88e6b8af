package io.faultline.nemesis.power;

import io.faultline.docker.LazyFsMount;
import io.faultline.docker.sut.ApacheKafka;
import io.faultline.docker.sut.KafkaAdmin;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.docker.sut.SutCluster;
import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.NemesisContext;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Power loss on three Apache Kafka nodes with their data on lazyfs (acks=all, RF 3, min ISR 2). The check is the
 * one that matters here: every acknowledged record is read back at the end, after every node is powered on.
 */
@DisabledIfSystemProperty(named = "faultline.skipDocker", matches = "true")
class PowerLossKafkaDockerTest {
    private static final String TOPIC = "power";

    /** One node at a time loses power while a producer runs: a copy always survives, so nothing may be lost. */
    @Test
    void oneNodeAtATimeLosesNothing() throws Exception {
        // The nodes' logs stay in target/collected/ after the run: a CI failure (Kafka went on trying a powered-off
        // node for minutes, once) can then be read from them.
        Path collected = freshDir("PowerLossKafkaDockerTest-oneNodeAtATime");
        var kafka = start(KafkaSettings.defaults());
        AtomicBoolean stop = new AtomicBoolean();
        try {
            var ctx = NemesisContext.builder(kafka).seed(18).build();
            var power = new PowerNemesis();
            power.setup(ctx);
            Set<String> acked = new ConcurrentSkipListSet<>();
            Thread producer = new Thread(() -> produceUntil(kafka, acked, stop), "producer");
            producer.start();
            for (int round = 0; round < 3; round++) {
                awaitAcked(acked, (round + 1) * 300);
                FaultOp off = power.invoke(ctx, FaultOp.of(PowerNemesis.OFF, new Target.One()));
                System.out.println("round " + round + ": " + off.result());
                awaitAcked(acked, acked.size() + 100); // the two survivors keep acknowledging (min ISR 2)
                power.invoke(ctx, FaultOp.of(PowerNemesis.ON, new Target.All()));
                assertTrue(awaitFullIsr(kafka, 120_000), "the powered-off replica rejoined the ISR");
            }
            stop.set(true);
            producer.join(60_000);
            var promise = DurabilityPromise.of(null, null, 2, power.maxOffAtOnce());
            assertEquals(1, power.maxOffAtOnce());
            assertTrue(promise.promised(), promise.explanation());
            Set<String> lost = lost(kafka, acked);
            assertEquals(Set.of(), lost, acked.size() + " acknowledged; " + promise.explanation());
        } finally {
            stop.set(true);
            kafka.teardown(collected);
        }
    }

    /** target/collected/NAME, emptied first (a previous run's files would mislead). */
    private static Path freshDir(String name) throws IOException {
        Path dir = Path.of("target", "collected", name).toAbsolutePath();
        if (Files.exists(dir)) {
            try (Stream<Path> all = Files.walk(dir)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
            }
        }
        return Files.createDirectories(dir);
    }

    /** With an fsync per message, even every node losing power at once keeps every acknowledged record. */
    @Test
    void allNodesAtOnceWithFlushEveryMessageLosesNothing() throws Exception {
        var settings = KafkaSettings.defaults().withFlush(1L, null);
        var outcome = correlatedLoss(settings);
        assertTrue(outcome.promise().promised(), outcome.promise().explanation());
        assertEquals(Set.of(), outcome.lost(), outcome.promise().explanation());
    }

    /**
     * Default flushing (none): every node at once loses what only page caches held. Whatever the verdict, it is
     * reported with the explanation; the test checks that the disks really forgot and that the settings are
     * judged not to have promised durability.
     */
    @Test
    void allNodesAtOnceWithDefaultFlushingIsReportedWithItsExplanation() throws Exception {
        var outcome = correlatedLoss(KafkaSettings.defaults());
        System.out.println("default flushing, all nodes at once: " + (outcome.lost().isEmpty() ? "valid" : "invalid: "
                + outcome.lost().size() + " of " + outcome.acked() + " acknowledged records lost") + ". "
                + outcome.promise().explanation());
        assertFalse(outcome.promise().promised());
        assertTrue(outcome.powerOff().contains("filesReverted="), outcome.powerOff());
        assertFalse(outcome.powerOff().matches(".*filesReverted=0.*filesReverted=0.*filesReverted=0.*"),
                "some node had un-synced data to forget: " + outcome.powerOff());
    }

    record Outcome(int acked, Set<String> lost, DurabilityPromise promise, String powerOff) {}

    private Outcome correlatedLoss(KafkaSettings settings) throws Exception {
        try (var kafka = start(settings)) {
            var ctx = NemesisContext.builder(kafka).seed(19).build();
            var power = new PowerNemesis();
            power.setup(ctx);
            Set<String> acked = new ConcurrentSkipListSet<>();
            try (var producer = producer(kafka)) {
                List<Future<?>> sends = new ArrayList<>();
                for (int i = 0; i < 2000; i++) {
                    String v = Integer.toString(i);
                    sends.add(producer.send(new ProducerRecord<>(TOPIC, 0, null, v), (md, e) -> {
                        if (e == null) acked.add(v);
                    }));
                }
                for (Future<?> f : sends) f.get(120, TimeUnit.SECONDS);
            }
            assertEquals(2000, acked.size(), "every record acknowledged before the power went");
            FaultOp off = power.invoke(ctx, FaultOp.of(PowerNemesis.OFF, new Target.All()));
            power.invoke(ctx, FaultOp.of(PowerNemesis.ON, new Target.All()));
            kafka.sut().awaitReady(kafka.cluster(), Duration.ofSeconds(300));
            var promise = DurabilityPromise.of(settings.flushIntervalMessages(), settings.flushIntervalMs(),
                    settings.minInsyncReplicas(), power.maxOffAtOnce());
            return new Outcome(acked.size(), lost(kafka, acked), promise, off.result());
        }
    }

    private static SutCluster start(KafkaSettings settings) throws Exception {
        var sut = new ApacheKafka(settings);
        var kafka = SutCluster.start(sut, sut.buildImage(), 3, Duration.ofSeconds(300), LazyFsMount::on);
        try (Admin admin = KafkaAdmin.create(kafka.bootstrapServers())) {
            KafkaAdmin.createTopics(admin, Duration.ofSeconds(60), new NewTopic(TOPIC, Optional.of(1), Optional.of((short) 3))
                    .configs(Map.of("min.insync.replicas", "2")));
        }
        return kafka;
    }

    private static KafkaProducer<String, String> producer(SutCluster kafka) {
        var p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        // Long enough that a powered-off node is mostly in backoff, not connecting: kafka-clients waits with its
        // metadata request while any node is connecting, so a short backoff kept this producer on the dead node for
        // 240 s once (CI, 3 Dec), never learning the new leader.
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 1000);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 2000);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000);
        // A powered-off node's address stops answering (no RST): with the default connection setup timeout (10 s,
        // growing to 30 s) the producer can spend most of a round waiting on it for metadata (as the workloads do).
        p.put(ProducerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, 1000);
        p.put(ProducerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, 2000);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    /** Sends numbered values, a few in flight at a time, recording those acknowledged, until told to stop. */
    private static void produceUntil(SutCluster kafka, Set<String> acked, AtomicBoolean stop) {
        try (var producer = producer(kafka)) {
            for (int i = 0; !stop.get(); i++) {
                String v = "v" + i;
                Future<?> f = producer.send(new ProducerRecord<>(TOPIC, 0, null, v), (md, e) -> {
                    if (e == null) acked.add(v);
                });
                if (i % 20 == 19) {
                    try {
                        f.get(60, TimeUnit.SECONDS);
                    } catch (Exception failed) {
                        // not acknowledged: not counted
                    }
                }
            }
        }
    }

    /** Waits for acknowledgements; the bound is generous (a loaded CI machine once saw no ack for 120 s after a power-off). */
    private static void awaitAcked(Set<String> acked, int atLeast) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 240_000;
        while (acked.size() < atLeast) {
            if (System.currentTimeMillis() > deadline) throw new AssertionError("only " + acked.size() + " acknowledged");
            Thread.sleep(50);
        }
    }

    private static boolean awaitFullIsr(SutCluster kafka, long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        try (Admin admin = KafkaAdmin.create(kafka.bootstrapServers())) {
            while (System.currentTimeMillis() < deadline) {
                try {
                    var isr = admin.describeTopics(List.of(TOPIC)).allTopicNames().get(10, TimeUnit.SECONDS).get(TOPIC)
                            .partitions().get(0).isr();
                    if (isr.size() == 3) return true;
                } catch (Exception notYet) {
                    // brokers still coming back
                }
                Thread.sleep(250);
            }
        }
        return false;
    }

    /** The acknowledged values a fresh consumer does not find, reading the partition up to its end. */
    private static Set<String> lost(SutCluster kafka, Set<String> acked) {
        var p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000);
        Set<String> seen = new TreeSet<>();
        try (var consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            var tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            long deadline = System.currentTimeMillis() + 120_000;
            while (consumer.position(tp) < end && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(r -> seen.add(r.value()));
            }
        }
        Set<String> lost = new TreeSet<>(acked);
        lost.removeAll(seen);
        return lost;
    }
}
