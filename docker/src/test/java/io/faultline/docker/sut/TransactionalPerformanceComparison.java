package io.faultline.docker.sut;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Not a test: transactional produce throughput of broker-impl against Apache Kafka 4.4, both as 3-node clusters in
 * the same node containers with the same settings ({@link KafkaSettings#defaults()}: RF 3, min ISR 2, the
 * transaction log RF 3 / min ISR 2). Each run is one transactional producer (acks=all, idempotent) on a fresh topic
 * of 3 partitions: T transactions of N 1 KiB records each, every one committed, records spread over the partitions.
 * Timed from the first beginTransaction to the last commit returning; afterwards a read_committed consumer must see
 * exactly T x N records (a run that loses or duplicates records would make the figure meaningless). The runs
 * alternate A B A B … after one short warm-up run each, so load from other work on the machine falls on both alike.
 * Prints every run with the machine's load average, then the medians and the ratio broker-impl / Kafka.
 *
 * <p>Kafka 4.4 finalizes transaction.version 2 at format time, broker-impl serves version 1; the program prints the
 * level each cluster finalized. {@code --kafka-tv1} downgrades Kafka to transaction.version 1 first (through
 * UpdateFeatures, as {@code kafka-features downgrade} does) to compare the same protocol.
 *
 * <p>Measured 2026-12-02 03:01-03:10 UTC, 3 pairs of 100 transactions x 50 records after one warm-up run each, 2
 * shared cores at load average 26-50: medians broker-impl / Kafka 596 / 306 records/s (ratio 1.95) with Kafka at
 * transaction.version 2, 497 / 236 (2.11) with Kafka downgraded to 1; details in docs/measurements.md,
 * "Transactional produce".
 * Run: java -cp docker/target/test-classes:docker/target/classes:CP
 * io.faultline.docker.sut.TransactionalPerformanceComparison [pairs] [transactions] [records-per-transaction] [--kafka-tv1]
 */
public final class TransactionalPerformanceComparison {
    private static final String FULL_JIT = "-XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError";
    private static final int PARTITIONS = 3;
    private static final int RECORD_BYTES = 1024;
    private static final List<String> METRICS = List.of("records/s", "transactions/s", "commit p50 ms", "commit p99 ms");

    /** What one run measured. */
    private record Run(double recordsPerSecond, double transactionsPerSecond, double commitP50Ms, double commitP99Ms) {
        Map<String, Double> byMetric() {
            Map<String, Double> m = new LinkedHashMap<>();
            m.put(METRICS.get(0), recordsPerSecond);
            m.put(METRICS.get(1), transactionsPerSecond);
            m.put(METRICS.get(2), commitP50Ms);
            m.put(METRICS.get(3), commitP99Ms);
            return m;
        }
    }

    public static void main(String[] args) throws Exception {
        List<String> positional = new ArrayList<>();
        boolean kafkaTv1 = false;
        for (String a : args) {
            if (a.equals("--kafka-tv1")) kafkaTv1 = true;
            else positional.add(a);
        }
        int pairs = positional.size() > 0 ? Integer.parseInt(positional.get(0)) : 3;
        int transactions = positional.size() > 1 ? Integer.parseInt(positional.get(1)) : 200;
        int perTransaction = positional.size() > 2 ? Integer.parseInt(positional.get(2)) : 50;
        var settings = KafkaSettings.defaults().withJvmFlags(FULL_JIT);
        List<SutCluster> clusters = new ArrayList<>();
        List<Double> loads = new ArrayList<>();
        try {
            for (KafkaProtocolSut sut : List.of(new BrokerImpl(settings), new ApacheKafka(settings))) {
                clusters.add(SutCluster.start(sut, 3, Duration.ofSeconds(180)));
            }
            if (kafkaTv1) downgradeTransactionVersion(clusters.get(1));
            Map<String, Short> tv = new LinkedHashMap<>();
            for (SutCluster c : clusters) tv.put(c.sut().name(), transactionVersion(c));
            System.out.printf("finalized transaction.version: %s%n", tv);
            for (SutCluster c : clusters) run(c, 0, Math.max(10, transactions / 10), perTransaction); // warm-up
            Map<String, Map<String, List<Double>>> results = new LinkedHashMap<>();
            for (int i = 1; i <= pairs; i++) {
                for (SutCluster c : clusters) {
                    loads.add(loadAverage());
                    Run r = run(c, i, transactions, perTransaction);
                    loads.add(loadAverage());
                    var bySystem = results.computeIfAbsent(c.sut().name(), k -> new LinkedHashMap<>());
                    r.byMetric().forEach((k, v) -> bySystem.computeIfAbsent(k, x -> new ArrayList<>()).add(v));
                }
            }
            String a = clusters.get(0).sut().name(), b = clusters.get(1).sut().name();
            System.out.printf("%n3 nodes, RF 3, min ISR 2, %d partitions, %d transactions of %d x %d B records a run,"
                    + " transaction.version %s; medians of %d alternating runs each; load average (1 min) %.1f-%.1f"
                    + " on %d cores:%n", PARTITIONS, transactions, perTransaction, RECORD_BYTES, tv, pairs,
                    loads.stream().mapToDouble(Double::doubleValue).min().orElse(0),
                    loads.stream().mapToDouble(Double::doubleValue).max().orElse(0),
                    Runtime.getRuntime().availableProcessors());
            System.out.printf("  %-16s %12s %12s %8s%n", "", a, b, "ratio");
            for (String metric : METRICS) {
                double ma = median(results.get(a).get(metric)), mb = median(results.get(b).get(metric));
                System.out.printf("  %-16s %12.1f %12.1f %8.2f   runs %s / %s%n", metric, ma, mb, ma / mb,
                        results.get(a).get(metric), results.get(b).get(metric));
            }
        } finally {
            clusters.forEach(SutCluster::close);
        }
    }

    /** One timed run on a fresh topic, checked with a read_committed consumer, then the topic is deleted. */
    private static Run run(SutCluster cluster, int round, int transactions, int perTransaction) throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String name = cluster.sut().name();
        String topic = "txn-perf-" + round;
        try (Admin admin = KafkaAdmin.create(bootstrap)) {
            KafkaAdmin.createTopics(admin, Duration.ofSeconds(60), new NewTopic(topic, PARTITIONS, (short) 3)
                    .configs(Map.of("min.insync.replicas", "2")));
        }
        byte[] value = new byte[RECORD_BYTES];
        long[] commitNanos = new long[transactions];
        long elapsed;
        double load = loadAverage();
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap, "txn-perf-" + name + "-" + round)) {
            producer.initTransactions();
            long start = System.nanoTime();
            for (int t = 0; t < transactions; t++) {
                producer.beginTransaction();
                for (int r = 0; r < perTransaction; r++) {
                    producer.send(new ProducerRecord<>(topic, (t * perTransaction + r) % PARTITIONS, null, value));
                }
                long commitStart = System.nanoTime();
                producer.commitTransaction(); // flushes the sends, then EndTxn
                commitNanos[t] = System.nanoTime() - commitStart;
            }
            elapsed = System.nanoTime() - start;
        }
        long expected = (long) transactions * perTransaction;
        long seen = countCommitted(bootstrap, topic, expected);
        if (seen != expected) {
            throw new IllegalStateException(name + " run " + round + ": read_committed saw " + seen + " records, "
                    + expected + " were committed");
        }
        double seconds = elapsed / 1e9;
        long[] sorted = commitNanos.clone();
        java.util.Arrays.sort(sorted);
        Run r = new Run(expected / seconds, transactions / seconds, sorted[sorted.length / 2] / 1e6,
                sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)] / 1e6);
        System.out.printf("%-12s run %d: %d records in %.2f s: %.0f records/s (%.2f MB/s), %.1f transactions/s,"
                + " commit p50 %.1f ms p99 %.1f ms; read_committed saw all %d; load %.1f -> %.1f%n", name, round,
                expected, seconds, r.recordsPerSecond(), r.recordsPerSecond() * RECORD_BYTES / 1e6,
                r.transactionsPerSecond(), r.commitP50Ms(), r.commitP99Ms(), seen, load, loadAverage());
        try (Admin admin = KafkaAdmin.create(bootstrap)) {
            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS); // frees the disk for the next run
        } catch (Exception e) {
            System.out.printf("%s: topic %s not deleted (%s); going on%n", name, topic, e);
        }
        return r;
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap, String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 102400);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 120_000);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 60_000);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Reads the topic with read_committed up to its last stable offset and counts the records. */
    private static long countCommitted(String bootstrap, String topic, long expected) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 << 20);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++) tps.add(new TopicPartition(topic, i));
            c.assign(tps);
            c.seekToBeginning(tps);
            // read_committed end offsets are the last stable offsets: every transaction above is committed
            Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(60));
            long seen = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (System.nanoTime() < deadline && tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                seen += c.poll(Duration.ofMillis(500)).count();
            }
            // anything past the stable end would be a duplicate: one more poll must bring nothing
            seen += c.poll(Duration.ofMillis(500)).count();
            return seen;
        }
    }

    private static short transactionVersion(SutCluster cluster) throws Exception {
        try (Admin admin = KafkaAdmin.create(cluster.bootstrapServers())) {
            FinalizedVersionRange r = admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS)
                    .finalizedFeatures().get("transaction.version");
            return r == null ? 0 : r.maxVersionLevel();
        }
    }

    private static void downgradeTransactionVersion(SutCluster cluster) throws Exception {
        try (Admin admin = KafkaAdmin.create(cluster.bootstrapServers())) {
            admin.updateFeatures(Map.of("transaction.version", new FeatureUpdate((short) 1,
                    FeatureUpdate.UpgradeType.SAFE_DOWNGRADE)), new UpdateFeaturesOptions()).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** The one-minute load average of the machine (containers share the host kernel, so this includes them). */
    private static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (Exception e) {
            return Double.NaN;
        }
    }

    private static double median(List<Double> values) {
        List<Double> s = values.stream().sorted().toList();
        return s.size() % 2 == 1 ? s.get(s.size() / 2) : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2;
    }

    private TransactionalPerformanceComparison() {}
}
