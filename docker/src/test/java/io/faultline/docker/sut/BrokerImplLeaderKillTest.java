package io.faultline.docker.sut;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.docker.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;

/**
 * Real clients on a 3-node broker-impl cluster (RF 3, min ISR 2): an idempotent acks=all producer keeps writing
 * 0, 1, 2, … while the partition leader is killed (-9) and later restarted. Afterwards every acknowledged value
 * is read back exactly once and every value read is in send order; an unacknowledged value may be there at most
 * once (its write may have committed before the leader died).
 */
class BrokerImplLeaderKillTest {
    private static final String TOPIC = "leader-kill";

    @Test
    void acknowledgedWritesSurviveAKilledAndRestartedLeader() throws Exception {
        // The nodes' logs and data stay in target/ after the run, so a failure can be read from them.
        Path collected = NodeLogs.freshDir("BrokerImplLeaderKillTest");
        var kafka = SutCluster.start(new BrokerImpl(KafkaSettings.defaults()), 3, Duration.ofSeconds(120));
        Writer writer = null;
        try (Admin admin = KafkaAdmin.create(kafka.bootstrapServers())) {
            KafkaTestClients.createTopic(kafka.bootstrapServers(), KafkaTestClients.topic(TOPIC, 3, 2));
            TopicPartitionInfo before = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions().until(() -> BrokerImplClusterTest.partition(admin, TOPIC), p -> p.isr().size() == 3);
            int leaderId = before.leader().id();
            Node leader = kafka.node("n" + leaderId);

            writer = new Writer(KafkaTestClients.producer(kafka.bootstrapServers(), "all", 60_000));
            writer.start();
            writer.awaitAcked(200, Duration.ofSeconds(30));

            leader.kill();
            int ackedAtKill = writer.acked.size();
            // The two survivors elect a new leader, shrink the ISR to themselves (still min ISR) and take writes.
            writer.awaitAcked(ackedAtKill + 200, Duration.ofSeconds(40));
            TopicPartitionInfo during = BrokerImplClusterTest.partition(admin, TOPIC);
            assertTrue(during.leader() != null && during.leader().id() != leaderId, "a new leader: " + during);

            leader.start();
            await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                    .until(() -> BrokerImplClusterTest.partition(admin, TOPIC).isr().stream().anyMatch(n -> n.id() == leaderId));
            writer.awaitAcked(writer.acked.size() + 200, Duration.ofSeconds(30));
            writer.stopAndClose();

            assertTrue(writer.fatal.isEmpty(), "the producer stayed usable: " + writer.fatal);
            List<Long> read = readAll(kafka.bootstrapServers());
            System.out.printf("leader n%d killed at %d acknowledged; %d sent, %d acknowledged, %d read%n", leaderId,
                    ackedAtKill, writer.sent(), writer.acked.size(), read.size());
            check(read, writer);
        } finally {
            if (writer != null) writer.stopAndClose();
            kafka.teardown(collected);
        }
    }

    private static void check(List<Long> read, Writer writer) {
        Set<Long> seen = new TreeSet<>();
        List<Long> duplicates = new ArrayList<>();
        List<Long> outOfOrder = new ArrayList<>();
        long previous = -1;
        for (long v : read) {
            if (!seen.add(v)) duplicates.add(v);
            if (v <= previous) outOfOrder.add(v);
            previous = Math.max(previous, v);
        }
        List<Long> lost = writer.acked.stream().filter(v -> !seen.contains(v)).toList();
        assertEquals(List.of(), lost, "acknowledged values missing (" + writer.acked.size() + " acknowledged, "
                + read.size() + " read)");
        assertEquals(List.of(), duplicates, "values read twice");
        assertEquals(List.of(), outOfOrder, "values read out of send order");
        List<Long> unknown = read.stream().filter(v -> v >= writer.sent()).toList();
        assertEquals(List.of(), unknown, "values never sent");
    }

    /** Every record of the partition, from the beginning to its end offset now. */
    private static List<Long> readAll(String bootstrap) {
        List<Long> values = new ArrayList<>();
        try (var consumer = KafkaTestClients.consumer(bootstrap)) {
            var tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ZERO).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) values.add(Long.parseLong(r.value()));
                return consumer.position(tp) >= end;
            });
        }
        return values;
    }

    /** Sends 0, 1, 2, … with at most 100 unanswered; remembers which values were acknowledged. */
    private static final class Writer extends Thread {
        final Set<Long> acked = new ConcurrentSkipListSet<>();
        final Map<Long, String> fatal = new ConcurrentHashMap<>();
        private final KafkaProducer<String, String> producer;
        private final Semaphore window = new Semaphore(100);
        private final AtomicBoolean running = new AtomicBoolean(true);
        private volatile long next;
        private boolean closed;

        Writer(KafkaProducer<String, String> producer) {
            super("leader-kill-writer");
            this.producer = producer;
        }

        long sent() {
            return next;
        }

        @Override
        public void run() {
            try {
                while (running.get()) {
                    if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) continue;
                    long value = next;
                    producer.send(new ProducerRecord<>(TOPIC, 0, null, Long.toString(value)), (md, e) -> {
                        window.release();
                        if (e == null) {
                            acked.add(value);
                        } else if (!(e instanceof org.apache.kafka.common.errors.RetriableException)) {
                            fatal.put(value, e.toString());
                        }
                    });
                    next = value + 1;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                fatal.put(next, e.toString());
            }
        }

        void awaitAcked(int count, Duration within) {
            await().atMost(within).pollInterval(Duration.ofMillis(100))
                    .failFast("the producer failed: " + fatal, () -> !fatal.isEmpty())
                    .until(() -> acked.size() >= count);
        }

        /** Stops sending, waits for every answer (the producer's flush), closes. */
        synchronized void stopAndClose() throws InterruptedException {
            if (closed) return;
            closed = true;
            running.set(false);
            join(10_000);
            producer.flush();
            producer.close(Duration.ofSeconds(10));
        }
    }
}
