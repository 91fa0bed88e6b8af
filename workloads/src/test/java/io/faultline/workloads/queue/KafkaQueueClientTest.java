package io.faultline.workloads.queue;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real Kafka client, with no broker: nothing listens on 127.0.0.1:1. Every op must end (bounded by the
 * timeouts), classified honestly, and the run must not hang. The end-to-end run against a real broker lives with
 * the Docker SUT.
 */
@Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES) // a hang guard only
class KafkaQueueClientTest {
    static QueueWorkloadConfig unreachable(boolean createTopics) {
        QueueSettings s = QueueSettings.defaults().withTimeouts(1000, 1500).withPolling(200, 100)
                .withTopics(1, (short) -1, createTopics);
        return QueueWorkloadConfig.defaults("127.0.0.1:1", "nobroker" + (createTopics ? "c" : "a"))
                .withSettings(s).withRun(3, Duration.ofSeconds(2), 2, 10).withFinalTimeout(Duration.ofSeconds(2));
    }

    static long count(List<Op> ops, String f, OpType type) {
        return ops.stream().filter(o -> o.f().equals(f) && o.type() == type).count();
    }

    @Test
    void topicCreationFailureMeansDefiniteFailure() throws Exception {
        QueueWorkloadConfig cfg = unreachable(true);
        HistoryRecorder rec = HistoryRecorder.inMemory(cfg.concurrency());
        QueueWorkload.run(cfg, rec); // a hang fails through the class's @Timeout, not a race with the clock
        List<Op> ops = rec.ops();
        assertEquals(0, count(ops, Op.SEND, OpType.OK));
        assertEquals(0, count(ops, Op.SEND, OpType.INFO));
        assertTrue(count(ops, Op.SEND, OpType.FAIL) + count(ops, Op.ASSIGN, OpType.FAIL) > 0);
        ops.stream().filter(o -> o.type() == OpType.FAIL && o.f().equals(Op.SEND))
                .forEach(o -> assertTrue(o.error().contains("could not create topics"), o.error()));
        CheckResult r = QueueWorkload.checker(cfg).check(ops);
        assertEquals(Verdict.UNKNOWN, r.verdict(), r::toString);
    }

    @Test
    void sendsThatTimeOutAreIndeterminateAndRetireTheProcess() throws Exception {
        // Every op after a thread's first (assign) sends, and the run leaves room for one: on a busy machine a thread
        // may get very few ops in, and before this a run of only assigns and polls failed the test.
        QueueWorkloadConfig cfg = unreachable(false).withKeys(QueueOps.Options.defaults().withMix(3, 1.0, 0, 0))
                .withRun(3, Duration.ofSeconds(4), 2, 10);
        // A starved machine may give the threads no send before the time limit: run again (a fresh recorder each
        // time) until one was made, rather than lengthen every run; what is asserted holds for whichever run is kept.
        HistoryRecorder rec = HistoryRecorder.inMemory(cfg.concurrency());
        QueueWorkload.run(cfg, rec);
        for (int attempt = 1; attempt < 5 && count(rec.ops(), Op.SEND, OpType.INFO) == 0
                && count(rec.ops(), Op.SEND, OpType.FAIL) == 0 && count(rec.ops(), Op.SEND, OpType.OK) == 0; attempt++) {
            rec = HistoryRecorder.inMemory(cfg.concurrency());
            QueueWorkload.run(cfg, rec);
        }
        List<Op> ops = rec.ops();
        assertEquals(0, count(ops, Op.SEND, OpType.OK));
        assertTrue(count(ops, Op.SEND, OpType.INFO) > 0, "timeouts are info");
        assertEquals(0, count(ops, Op.SEND, OpType.FAIL), "nothing here proves a send did not happen");
        ops.stream().filter(o -> o.f().equals(Op.SEND) && o.type() == OpType.INFO)
                .forEach(o -> assertTrue(o.error().contains("Timeout"), o.error()));
        boolean retired = false;
        for (int t = 0; t < cfg.concurrency(); t++) {
            retired |= rec.processOf(t) >= cfg.concurrency();
        }
        assertTrue(retired, "info retires processes");
        assertFalse(QueueWorkload.checker(cfg).check(ops).verdict() == Verdict.INVALID);
    }

    @Test
    void aSubscribeNamesTheGroupItsConsumerJoined() {
        // subscribe is local to the client (no topic creation here), so this needs no broker
        QueueWorkloadConfig cfg = unreachable(false).withSettings(unreachable(false).settings()
                .withConsumer(QueueSettings.ConsumerMode.SUBSCRIBE, "read_uncommitted"));
        try (TopicManager topics = new TopicManager(cfg);
             KafkaQueueClient client = new KafkaQueueClient(cfg, topics, 0)) {
            var keys = new io.faultline.checker.history.OpValue.Keys(List.of(0, 1), false);
            var shared = client.invoke(Op.SUBSCRIBE, keys);
            assertEquals(OpType.OK, shared.type());
            assertEquals(keys.withGroup(cfg.groupId()), shared.value());
            // from the beginning: a new group of its own, a different one each time, kept by later subscribes
            var fresh = new io.faultline.checker.history.OpValue.Keys(List.of(0, 1), true);
            String first = ((io.faultline.checker.history.OpValue.Keys) client.invoke(Op.SUBSCRIBE, fresh).value()).group();
            String second = ((io.faultline.checker.history.OpValue.Keys) client.invoke(Op.SUBSCRIBE, fresh).value()).group();
            assertTrue(first.startsWith(cfg.groupId() + "-new-"), first);
            assertFalse(first.equals(second), first);
            assertEquals(second, ((io.faultline.checker.history.OpValue.Keys) client.invoke(Op.SUBSCRIBE, keys).value()).group());
            // an assign records no group: its consumer does not commit
            var assign = client.invoke(Op.ASSIGN, keys);
            assertEquals(keys, assign.value());
        }
        // a group.id among the extra consumer properties is the one the consumer uses, so the one recorded
        QueueWorkloadConfig overridden = cfg.withSettings(cfg.settings().withExtra(Map.of(), Map.of("group.id", "mine")));
        try (TopicManager topics = new TopicManager(overridden);
             KafkaQueueClient client = new KafkaQueueClient(overridden, topics, 0)) {
            var keys = new io.faultline.checker.history.OpValue.Keys(List.of(0), false);
            assertEquals("mine", ((io.faultline.checker.history.OpValue.Keys) client.invoke(Op.SUBSCRIBE, keys).value()).group());
        }
    }

    @Test
    void propertiesFollowTheSettings() {
        QueueWorkloadConfig cfg = unreachable(false).withSettings(QueueSettings.defaults().withAcks("1", false)
                .withRetries(3).withConsumer(QueueSettings.ConsumerMode.SUBSCRIBE, "read_uncommitted")
                .withExtra(Map.of("linger.ms", "7"), Map.of()));
        Properties p = KafkaQueueClient.producerProps(cfg, "x");
        assertEquals("1", p.get("acks"));
        assertEquals(false, p.get("enable.idempotence"));
        assertEquals(3, p.get("retries"));
        assertEquals("7", p.get("linger.ms"));
        assertEquals(1, KafkaQueueClient.producerProps(cfg, 0, "x").get("batch.size"), "even workers pipeline");
        assertNull(KafkaQueueClient.producerProps(cfg, 1, "x").get("batch.size"), "odd workers batch");
        QueueWorkloadConfig set = cfg.withSettings(cfg.settings().withExtra(Map.of("batch.size", "512"), Map.of()));
        assertEquals("512", KafkaQueueClient.producerProps(set, 0, "x").get("batch.size"), "--producer-prop wins");
        assertEquals(List.of("none", "none", "gzip", "lz4", "snappy", "none"), java.util.stream.IntStream.range(0, 6)
                .mapToObj(t -> KafkaQueueClient.producerProps(cfg, t, "x").get("compression.type")).toList());
        QueueWorkloadConfig plain = cfg.withSettings(cfg.settings().withExtra(Map.of("compression.type", "zstd"), Map.of()));
        assertEquals("zstd", KafkaQueueClient.producerProps(plain, 2, "x").get("compression.type"));
        Properties c = KafkaQueueClient.consumerProps(cfg, "x");
        assertEquals("read_uncommitted", c.get("isolation.level"));
        assertEquals(cfg.groupId(), c.get("group.id"));
        assertFalse(KafkaQueueClient.consumerProps(unreachable(false), "x").containsKey("group.id"));
        // group members: short session and rebalance timeout; the drain's departing member waits out its session only
        assertEquals(6000, c.get("session.timeout.ms"));
        assertEquals(10_000, c.get("max.poll.interval.ms"));
        Properties departing = new Properties();
        GroupDeparture.mayDepart(departing, Map.of("session.timeout.ms", "7000"));
        assertNull(departing.get("session.timeout.ms"), "--consumer-prop wins (it is added after)");
        assertEquals(45_000, departing.get("max.poll.interval.ms"));
        assertEquals("false", departing.get("internal.leave.group.on.close"), "3.x clients leave no group on close");
        assertThrows(IllegalArgumentException.class, () -> QueueSettings.defaults().withAcks("1", true));
        // shaped records: worker 1 of 5 fetches little per partition, worker 3 of 5 waits for a minimum per fetch
        QueueWorkloadConfig shaped = cfg.withShapedRecords(true);
        assertEquals(List.of("-", "32768", "-", "-", "-", "-", "32768"), java.util.stream.IntStream.range(0, 7)
                .mapToObj(t -> String.valueOf(KafkaQueueClient.consumerProps(shaped, t, "x")
                        .getOrDefault("max.partition.fetch.bytes", "-"))).toList());
        assertEquals(8192, KafkaQueueClient.consumerProps(shaped, 3, "x").get("fetch.min.bytes"));
        assertNull(KafkaQueueClient.consumerProps(cfg, 1, "x").get("max.partition.fetch.bytes"), "only with shaped records");
        assertNull(KafkaQueueClient.consumerProps(cfg, 3, "x").get("fetch.min.bytes"));
        // racks: worker t names entry t mod size, "" none; the final drain's reader (no worker) names none
        QueueWorkloadConfig racked = cfg.withSettings(cfg.settings().withClientRacks(List.of("rack1", "rack2", "")));
        assertEquals(List.of("rack1", "rack2", "-", "rack1"), java.util.stream.IntStream.range(0, 4)
                .mapToObj(t -> String.valueOf(KafkaQueueClient.consumerProps(racked, t, "x")
                        .getOrDefault("client.rack", "-"))).toList());
        assertNull(KafkaQueueClient.consumerProps(racked, "x").get("client.rack"));
        assertNull(KafkaQueueClient.consumerProps(cfg, 0, "x").get("client.rack"));
    }

    @Test
    void keyMappingIsABijection() {
        KeyMapping m = new KeyMapping("q", 3);
        for (int k = 0; k < 50; k++) {
            TopicPartition tp = m.partitionOf(k);
            assertEquals(k, m.keyOf(tp.topic(), tp.partition()));
        }
        assertEquals(new TopicPartition("q-3", 1), m.partitionOf(10));
        assertEquals(-1, m.keyOf("other-1", 0));
        assertEquals(-1, m.keyOf("q-x", 0));
        assertEquals(-1, m.keyOf("q-1", 3));
    }
}
