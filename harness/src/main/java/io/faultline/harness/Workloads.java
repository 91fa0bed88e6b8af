package io.faultline.harness;

import io.faultline.checker.Checker;
import io.faultline.checker.linear.LinearizabilityChecker;
import io.faultline.checker.queue.QueueAnomaly;
import io.faultline.checker.queue.QueueChecker;
import io.faultline.checker.queue.TotalQueueChecker;
import io.faultline.checker.txn.TxnChecker;
import io.faultline.workloads.BesideWorkload;
import io.faultline.workloads.Workload;
import io.faultline.workloads.offsets.OffsetChecker;
import io.faultline.workloads.offsets.OffsetOps;
import io.faultline.workloads.offsets.OffsetWorkload;
import io.faultline.workloads.queue.QueueOps;
import io.faultline.workloads.queue.QueueSettings;
import io.faultline.workloads.queue.QueueWorkload;
import io.faultline.workloads.queue.QueueWorkloadConfig;
import io.faultline.workloads.txn.TxnQueueWorkload;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The workloads `--workload` names, each a function from a run's settings to a {@link Workload} value: the one
 * place that lists them, used by the run (setup, generators) and by `analyze` (checkers) alike.
 */
final class Workloads {
    private Workloads() {}

    /**
     * How a workload is built: the settings, the run's topic prefix ("fl" + timestamp digits) and how many values a
     * queue key takes before it retires (a scenario keeps its one key for the whole script).
     */
    @FunctionalInterface
    interface Builder {
        Workload build(TestConfig config, String topicPrefix, int maxWritesPerKey);
    }

    /** @param needsTransactions refused on a system under test without transactions */
    record Entry(String name, boolean needsTransactions, Builder builder) {}

    /** Client request timeout of the offsets and txn-queue clients. */
    private static final int CLIENT_TIMEOUT_MS = 5000;

    static final List<Entry> ALL = List.of(
            new Entry("queue", false, Workloads::queue),
            new Entry("offsets", false, (c, p, m) -> offsets(c, p, false)),
            new Entry("offsets-stable", false, (c, p, m) -> offsets(c, p, true)),
            new Entry("txn-queue", true, Workloads::txnQueue),
            new Entry(NightlyMix.WORKLOAD, false, Workloads::nightly));

    static final List<String> NAMES = ALL.stream().map(Entry::name).toList();

    /** The named workload; an unknown name is one line listing the known ones. */
    static Entry named(String name) {
        for (Entry e : ALL) if (e.name().equals(name)) return e;
        throw new IllegalArgumentException("--workload must be one of " + String.join(", ", NAMES) + ", got " + name);
    }

    /** The workload value of a run. */
    static Workload of(TestConfig config, String topicPrefix) {
        return of(config, topicPrefix, QueueOps.Options.defaults().maxWritesPerKey());
    }

    /** The workload value of a run whose queue keys retire after {@code maxWritesPerKey} values. */
    static Workload of(TestConfig config, String topicPrefix, int maxWritesPerKey) {
        return named(config.workload()).builder().build(config, topicPrefix, maxWritesPerKey);
    }

    /** The checkers a run's history is judged by (no cluster needed). */
    static List<Checker> checkers(TestConfig config) {
        return of(config, "analyze").checkers();
    }

    /** "a or b", "a, b or c": a list of names in an error line. */
    static String either(List<String> names) {
        if (names.size() == 1) return names.get(0);
        return String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
    }

    private static Workload queue(TestConfig config, String prefix, int maxWritesPerKey) {
        var allowed = QueueWorkload.allowedAnomalies(queueSettings(config));
        Workload queue = QueueWorkload.workload(queueConfig(config, prefix, maxWritesPerKey), List.of(
                new QueueChecker(new QueueChecker.Options(allowed, QueueChecker.DEFAULT_MAX_EXAMPLES)),
                new TotalQueueChecker(QueueChecker.DEFAULT_MAX_EXAMPLES, allowed),
                new io.faultline.checker.queue.CorruptReadChecker(QueueChecker.DEFAULT_MAX_EXAMPLES)),
                Suts.clientLine(config.sut()));
        return config.besidesInEffect() ? besides("queue", queue, config, prefix) : queue;
    }

    /**
     * The nightly mix's workload: the queue (its keys rotating, its consumers in a group) with the same company as the
     * plain queue's (see {@link #besides}).
     */
    private static Workload nightly(TestConfig config, String prefix, int maxWritesPerKey) {
        return besides(NightlyMix.WORKLOAD, queue(config, prefix, maxWritesPerKey), config, prefix);
    }

    /**
     * The queue with company on the same workers, so one fault schedule is judged by several kinds of check, each
     * reaching other parts of the broker: committed offsets as registers (the group coordinator; a tenth of the
     * queue's rate, at least one op a second), scratch topics created, grown and deleted (the controller), a
     * compacted topic whose keys are overwritten (the log cleaner), and a log cut with DeleteRecords while it is
     * written and read (the log start offset). The registers are read as Kafka's consumer reads
     * its committed offsets (on start and after a rebalance): with require_stable wherever the broker has it. A plain
     * OffsetFetch is answered by Kafka 4.x from the coordinator's state at its high watermark, older than
     * acknowledged commits right after a failover (measured: `--workload offsets`, docs/measurements.md); no consumer
     * of the Java client sends one, so it is not judged.
     */
    private static Workload besides(String name, Workload queue, TestConfig config, String prefix) {
        double sideRate = config.rate() > 0 ? Math.max(1.0, config.rate() / 10.0) : 10.0;
        Workload side = OffsetWorkload.workload(new OffsetWorkload.Names(prefix), (short) config.replicationFactor(),
                config.seed() * 7919 + 1, config.keys(), sideRate, Duration.ofSeconds(config.timeLimitSeconds()),
                CLIENT_TIMEOUT_MS, Suts.hasStableOffsetFetch(config.sut()),
                List.of(new OffsetChecker("offsets", LinearizabilityChecker.Options.defaults())));
        Workload topics = io.faultline.workloads.topics.TopicWorkload.workload(prefix, (short) config.replicationFactor(),
                config.seed() * 7919 + 2, TOPICS_KEYS, Math.max(0.5, sideRate / 20), Duration.ofSeconds(config.timeLimitSeconds()),
                CLIENT_TIMEOUT_MS, List.of(new io.faultline.workloads.topics.TopicChecker(prefix, LinearizabilityChecker.Options.defaults())));
        Workload kv = io.faultline.workloads.kv.KvWorkload.workload(prefix, (short) config.replicationFactor(),
                config.seed() * 7919 + 3, KV_KEYS, Math.max(1.0, sideRate / 4), Duration.ofSeconds(config.timeLimitSeconds()),
                CLIENT_TIMEOUT_MS, Suts.hasTransactionalProtocol(config.sut()), List.of(new io.faultline.workloads.kv.KvChecker(
                        ("all".equals(config.acks()) || "-1".equals(config.acks())) && !config.uncleanInEffect())));
        Workload trim = io.faultline.workloads.trim.TrimWorkload.workload(prefix, (short) config.replicationFactor(),
                config.seed() * 7919 + 4, Math.max(1.0, sideRate / 4), Duration.ofSeconds(config.timeLimitSeconds()),
                CLIENT_TIMEOUT_MS, List.of(new io.faultline.workloads.trim.TrimChecker(
                        ("all".equals(config.acks()) || "-1".equals(config.acks())) && !config.uncleanInEffect())));
        Set<String> kvOps = io.faultline.workloads.kv.KvOps.ALL;
        Set<String> trimOps = io.faultline.workloads.trim.TrimOps.ALL;
        Set<String> kvAndTrim = new java.util.HashSet<>(kvOps);
        kvAndTrim.addAll(trimOps);
        Set<String> topicsKvTrim = new java.util.HashSet<>(io.faultline.workloads.topics.TopicOps.ALL);
        topicsKvTrim.addAll(kvAndTrim);
        Set<String> sideOps = new java.util.HashSet<>(topicsKvTrim);
        sideOps.addAll(Set.of(OffsetOps.WRITE, OffsetOps.READ));
        Workload logs = BesideWorkload.of("kv+trim", kv, trim, trimOps);
        Workload company = BesideWorkload.of("offsets+topics+kv+trim", side,
                BesideWorkload.of("topics+kv+trim", topics, logs, kvAndTrim), topicsKvTrim);
        return BesideWorkload.of(name, queue, company, sideOps);
    }

    /** Keys of the nightly mix's compacted topic. */
    static final int KV_KEYS = 8;

    /** Scratch topics of the nightly mix's topics workload. */
    static final int TOPICS_KEYS = 3;

    /** Offsets as registers; {@code stableReads}: OffsetFetch with requireStable (`offsets-stable`). */
    private static Workload offsets(TestConfig config, String prefix, boolean stableReads) {
        return OffsetWorkload.workload(new OffsetWorkload.Names(prefix), (short) config.replicationFactor(),
                config.seed(), config.keys(), config.rate(), Duration.ofSeconds(config.timeLimitSeconds()),
                CLIENT_TIMEOUT_MS, stableReads, List.of(new OffsetChecker("offsets", LinearizabilityChecker.Options.defaults())));
    }

    private static Workload txnQueue(TestConfig config, String prefix, int maxWritesPerKey) {
        // A committed value nobody polled stays unseen (allowed) unless the final read passed it: then it is lost.
        Set<QueueAnomaly> allowed = EnumSet.copyOf(QueueWorkload.allowedAnomalies(queueSettings(config)));
        allowed.add(QueueAnomaly.UNSEEN);
        // transaction markers take offsets and read_committed consumers skip aborted records: holes are expected
        allowed.add(QueueAnomaly.OFFSET_GAP);
        return TxnQueueWorkload.workload(queueConfig(config, prefix, maxWritesPerKey), config.keys(), CLIENT_TIMEOUT_MS, List.of(
                TxnChecker.forKafka(true),
                new QueueChecker(new QueueChecker.Options(allowed, QueueChecker.DEFAULT_MAX_EXAMPLES))));
    }

    /** The clients' settings a test configuration stands for; the checker's allowances follow from them. */
    static QueueSettings queueSettings(TestConfig config) {
        // the nightly queue's consumers belong to a group (they subscribe, and assign manually part of the time)
        boolean group = "subscribe".equals(config.subVia()) || NightlyMix.WORKLOAD.equals(config.workload());
        return QueueSettings.defaults()
                .withAcks(config.acks(), config.idempotence())
                .withConsumer(group ? QueueSettings.ConsumerMode.SUBSCRIBE : QueueSettings.ConsumerMode.ASSIGN,
                        Suts.hasTransactionalProtocol(config.sut()) ? "read_committed" : "read_uncommitted")
                .withTopics(1, (short) config.replicationFactor(), true)
                .withExtra(config.producerProperties(), java.util.Map.of())
                .withClientRacks(clientRacks(config));
    }

    /** The rack-aware replica selector (KIP-392), as `replica.selector.class` names it on both systems. */
    static final String RACK_AWARE_SELECTOR = "org.apache.kafka.common.replica.RackAwareReplicaSelector";

    /**
     * With the brokers' replica selector rack-aware, the workers' consumers name racks: node i's rack ("rack" + i, as
     * every node template sets broker.rack) round-robin, and every (nodes + 1)th worker none. A consumer then reads from
     * the replica in its rack, a follower for most partitions, up to that follower's high watermark: what followers
     * serve is judged like what leaders serve. Without the selector no consumer names a rack.
     */
    static List<String> clientRacks(TestConfig config) {
        if (!RACK_AWARE_SELECTOR.equals(config.brokerProperties().get("replica.selector.class"))) return List.of();
        List<String> racks = new java.util.ArrayList<>();
        for (int i = 1; i <= config.nodes(); i++) racks.add("rack" + i);
        racks.add("");
        return racks;
    }

    /** The queue workload's configuration; the bootstrap servers are filled in at setup. */
    static QueueWorkloadConfig queueConfig(TestConfig config, String prefix, int maxWritesPerKey) {
        QueueOps.Options keys = QueueOps.Options.defaults()
                .withKeys(config.keys(), maxWritesPerKey,
                        QueueOps.Options.defaults().distribution());
        if (NightlyMix.WORKLOAD.equals(config.workload())) keys = NightlyMix.keyOptions(keys);
        keys = keys.withBulkShare(config.bulkSendsInEffect());
        // Every queue workload's topics roll a segment every 3 s with small indexes (MULTI_SEGMENT_TOPICS), so rolling,
        // reads across segments, index lookups and recovery across segments run under every run's faults. With the
        // brokers' 1 GB default a run never rolls: storage mistakes went unreached unless the nightly mix ran (whose
        // first clean run found broker-impl's stale-leadership livelock, docs/broker-liveness.md).
        return QueueWorkloadConfig.defaults("unset:9092", prefix)
                .withSettings(queueSettings(config))
                .withKeys(keys)
                .withRun(config.seed(), Duration.ofSeconds(config.timeLimitSeconds()), config.concurrency(), config.rate())
                .withFinalTimeout(Duration.ofSeconds(config.drainSeconds()))
                .withTopicConfigs(queueTopicConfigs(config))
                .withShapedRecords(shapedRecords(config));
    }

    /** The configs the queue workloads create their key topics with (stored in test.json: segment-audit's roll rule). */
    static java.util.Map<String, String> queueTopicConfigs(TestConfig config) {
        return List.of("queue", NightlyMix.WORKLOAD, "txn-queue").contains(config.workload())
                ? io.faultline.workloads.queue.QueueWorkload.MULTI_SEGMENT_TOPICS : java.util.Map.of();
    }

    /**
     * Whether the queue's records come in many sizes, with headers, each byte checked on reading (RecordShapes): the
     * plain and nightly queues, where the broker takes headers (every broker the current client line talks to). The
     * transactional queue keeps its bare numbers.
     */
    static boolean shapedRecords(TestConfig config) {
        return !"txn-queue".equals(config.workload())
                && Suts.clientLine(config.sut()) == io.faultline.kafkacompat.KafkaClientLine.CURRENT;
    }
}
