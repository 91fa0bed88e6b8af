package io.faultline.docker.sut;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;

/**
 * Not a test: Kafka's own ProducerPerformance and ConsumerPerformance (kafka-tools 4.4.0, each in its own JVM as
 * the kafka-*-perf-test scripts run them) against a 3-node broker-impl cluster and a 3-node Apache Kafka cluster:
 * same node image base, JVM flags, heap and settings (RF 3, min ISR 2, acks=all, 1 KiB records). Both clusters
 * run side by side and the runs alternate A B A B … (after one warm-up run each), every run on a fresh topic:
 * produce N records, then consume them. Reports every run, the medians and the ratio broker-impl / Kafka.
 *
 * <p>Measured 2026-11-30 18:32-18:47 UTC, 3 pairs of 100,000 records after one warm-up run each, on 2 cores shared
 * with other helpers' containers (load average 36-112, so absolute figures are far below what the brokers can do and
 * single runs vary 3x); medians broker-impl / Apache Kafka: produce 3168 / 1989 records/s (3.1 / 1.9 MB/s, ratio
 * 1.59), produce p99 12.8 / 22.6 s (0.57; at --throughput -1 the p99 is queueing in the producer), consume 7203 /
 * 5642 records/s (7.0 / 5.5 MB/s, 1.28). An earlier run on the same load (2 pairs before a CreateTopics timed out)
 * agreed in direction for produce only: 5391, 1636 / 1802, 4922 records/s.
 * Run: java -cp docker/target/test-classes:docker/target/classes:CP io.faultline.docker.sut.BrokerPerformanceComparison [pairs] [records] [acks]
 * (acks all by default; -Dfaultline.compare.baselineJar=JAR adds a third cluster on another broker-impl jar, e.g.
 * main's, in the same alternation: a before/after in one window).
 */
public final class BrokerPerformanceComparison {
    private static final String FULL_JIT = "-XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError";
    private static final Pattern PRODUCED = Pattern.compile("([\\d.]+) records/sec \\(([\\d.]+) MB/sec\\), ([\\d.]+) ms avg"
            + " latency, ([\\d.]+) ms max latency, (\\d+) ms 50th, (\\d+) ms 95th, (\\d+) ms 99th");
    private static final List<String> METRICS = List.of("produce records/s", "produce MB/s", "produce p99 ms",
            "consume records/s", "consume MB/s");

    public static void main(String[] args) throws Exception {
        int pairs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int records = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        String acks = args.length > 2 ? args[2] : "all";
        if (!List.of("all", "-1", "0", "1").contains(acks)) throw new IllegalArgumentException("acks must be all, -1, 0 or 1: " + acks);
        var settings = KafkaSettings.defaults().withJvmFlags(FULL_JIT);
        // -Dfaultline.compare.baselineJar=JAR adds a third cluster running that broker-impl jar (e.g. main's), in the
        // same alternation, for a before/after of a broker change measured in one window.
        String baselineJar = System.getProperty("faultline.compare.baselineJar");
        Map<String, KafkaProtocolSut> suts = new LinkedHashMap<>();
        suts.put("broker-impl", new BrokerImpl(settings));
        suts.put("kafka", new ApacheKafka(settings));
        if (baselineJar != null) suts.put("impl-before", new BrokerImpl(settings, Path.of(baselineJar)));
        Map<String, SutCluster> clusters = new LinkedHashMap<>();
        try {
            for (var e : suts.entrySet()) clusters.put(e.getKey(), SutCluster.start(e.getValue(), 3, Duration.ofSeconds(180)));
            for (var c : clusters.entrySet()) run(c.getKey(), c.getValue(), 0, Math.max(1000, records / 4), acks); // warm-up
            Map<String, Map<String, List<Double>>> results = new LinkedHashMap<>();
            for (int i = 1; i <= pairs; i++) {
                for (var c : clusters.entrySet()) {
                    Map<String, Double> r = run(c.getKey(), c.getValue(), i, records, acks);
                    var bySystem = results.computeIfAbsent(c.getKey(), k -> new LinkedHashMap<>());
                    r.forEach((k, v) -> bySystem.computeIfAbsent(k, x -> new ArrayList<>()).add(v));
                }
            }
            String a = "broker-impl", b = "kafka";
            System.out.printf("%n3 nodes, RF 3, min ISR 2, acks=%s, 1 KiB records, %d records a run; medians of %d"
                    + " alternating runs each:%n", acks, records, pairs);
            for (String other : results.keySet()) {
                if (other.equals(a)) continue;
                System.out.printf("  %-18s %14s %14s %8s%n", "", a, other, a + "/" + other);
                for (String metric : METRICS) {
                    double ma = median(results.get(a).get(metric)), mb = median(results.get(other).get(metric));
                    System.out.printf("  %-18s %14.1f %14.1f %8.2f   runs %s / %s%n", metric, ma, mb, ma / mb,
                            results.get(a).get(metric), results.get(other).get(metric));
                }
            }
        } finally {
            clusters.values().forEach(SutCluster::close);
        }
    }

    /** One produce run and one consume run of the same records on a fresh topic, which is deleted afterwards. */
    private static Map<String, Double> run(String name, SutCluster cluster, int round, int records, String acks)
            throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String topic = "perf-" + round;
        createTopic(cluster, topic);
        String out = fork("org.apache.kafka.tools.ProducerPerformance", "--topic", topic,
                "--num-records", Integer.toString(records), "--record-size", "1024", "--throughput", "-1",
                "--producer-props", "bootstrap.servers=" + bootstrap, "acks=" + acks, "linger.ms=5", "batch.size=102400");
        String last = out.lines().filter(l -> l.contains("records sent")).reduce((x, y) -> y).orElse(out);
        Matcher m = PRODUCED.matcher(last);
        if (!m.find()) throw new IllegalStateException(name + ": no summary line in ProducerPerformance output:\n" + out);
        String consumed = fork("org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server", bootstrap,
                "--topic", topic, "--messages", Integer.toString(records), "--timeout", "60000",
                "--group", "perf-group-" + round);
        // start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, ...
        String data = consumed.lines().filter(l -> l.matches("^\\d{4}-.*")).reduce((x, y) -> y)
                .orElseThrow(() -> new IllegalStateException(name + ": no data line in ConsumerPerformance output:\n" + consumed));
        String[] f = data.split(",\\s*");
        long consumedRecords = Long.parseLong(f[4].trim());
        if (consumedRecords < records) {
            throw new IllegalStateException(name + ": consumed " + consumedRecords + " of " + records + ":\n" + consumed);
        }
        Map<String, Double> r = new LinkedHashMap<>();
        r.put("produce records/s", Double.parseDouble(m.group(1)));
        r.put("produce MB/s", Double.parseDouble(m.group(2)));
        r.put("produce p99 ms", Double.parseDouble(m.group(7)));
        r.put("consume records/s", Double.parseDouble(f[5].trim()));
        r.put("consume MB/s", Double.parseDouble(f[3].trim()));
        System.out.printf("%-12s run %d: %s | consume: %s%n", name, round, last.trim(), data.trim());
        try (Admin admin = KafkaAdmin.create(bootstrap)) {
            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS); // frees the disk for the next run
        } catch (Exception e) {
            System.out.printf("%s: topic %s not deleted (%s); going on%n", name, topic, e);
        }
        return r;
    }

    /** Creates the topic, retrying for a minute (a loaded machine times requests out); says which nodes run if not. */
    private static void createTopic(SutCluster cluster, String topic) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                KafkaTestClients.createTopic(cluster.bootstrapServers(), KafkaTestClients.topic(topic, 3, 2));
                return;
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException) return;
                if (System.nanoTime() > deadline) {
                    cluster.nodes().forEach(n -> System.out.printf("%s %s%n", n.name(), n.isRunning() ? "running"
                            : "exited with " + n.exitCode() + ":\n" + n.consoleLog().lines()
                            .reduce("", (a, b) -> (a + "\n" + b).substring(Math.max(0, a.length() - 3000)))));
                    throw e;
                }
                System.out.printf("%s: creating %s failed (%s); retrying%n", cluster.sut().name(), topic, e.getCause());
                Thread.sleep(500);
            }
        }
    }

    private static double median(List<Double> values) {
        List<Double> s = values.stream().sorted().toList();
        return s.size() % 2 == 1 ? s.get(s.size() / 2) : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2;
    }

    /** Runs a Kafka tool in its own JVM on this classpath (the tools may call System.exit). */
    private static String fork(String mainClass, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-cp", System.getProperty("java.class.path"), mainClass));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile("perf", ".txt");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException(mainClass + " did not finish in 10 minutes");
        }
        return Files.readString(out);
    }
}
