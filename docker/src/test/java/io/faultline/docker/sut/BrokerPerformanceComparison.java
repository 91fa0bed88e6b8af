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

/**
 * Not a test: Kafka's own ProducerPerformance and ConsumerPerformance (kafka-tools 4.4.0) against a single
 * broker-impl node and a single Apache Kafka node, in the same container setup with the same JVM flags and
 * heap, one after the other in one run (ratios, not absolute figures, are what a noisy machine can give).
 * Run: java -cp docker/target/test-classes:docker/target/classes:CP io.faultline.docker.sut.BrokerPerformanceComparison [records]
 */
public final class BrokerPerformanceComparison {
    private static final String FULL_JIT = "-XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError";

    public static void main(String[] args) throws Exception {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        var settings = KafkaSettings.defaults().withReplicationFactor(1).withMinInsyncReplicas(1).withJvmFlags(FULL_JIT);
        Map<String, Map<String, String>> results = new LinkedHashMap<>();
        for (KafkaProtocolSut sut : List.of(new BrokerImpl(settings), new ApacheKafka(settings))) {
            try (var cluster = SutCluster.start(sut, 1, Duration.ofSeconds(120))) {
                String bootstrap = cluster.bootstrapServers();
                Map<String, String> row = new LinkedHashMap<>();
                for (String acks : List.of("1", "all")) {
                    String topic = "perf-acks-" + acks;
                    KafkaTestClients.createTopic(bootstrap, KafkaTestClients.topic(topic, 1, 1));
                    String out = fork("org.apache.kafka.tools.ProducerPerformance", "--topic", topic,
                            "--num-records", Integer.toString(records), "--record-size", "1024", "--throughput", "-1",
                            "--producer-props", "bootstrap.servers=" + bootstrap, "acks=" + acks, "linger.ms=5",
                            "batch.size=102400");
                    String last = out.lines().filter(l -> l.contains("records sent")).reduce((a, b) -> b).orElse(out);
                    row.put("produce acks=" + acks, last.trim());
                    System.out.printf("%s produce acks=%s: %s%n", sut.name(), acks, last.trim());
                }
                String consumed = fork("org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server", bootstrap,
                        "--topic", "perf-acks-1", "--messages", Integer.toString(records), "--timeout", "60000");
                String data = consumed.lines().filter(l -> l.matches("^\\d{4}-.*")).reduce((a, b) -> b).orElse(consumed);
                row.put("consume", data.trim());
                System.out.printf("%s consume: %s%n", sut.name(), data.trim());
                results.put(sut.name(), row);
            }
        }
        System.out.println("\nsummary (records/s; p99 ms where given):");
        results.forEach((name, row) -> row.forEach((k, v) -> System.out.printf("  %-12s %-16s %s%n", name, k, v)));
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
