package io.faultline.docker.sut;

import io.faultline.docker.LazyFsMount;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Not a test: what lazyfs costs. Two single-node Apache Kafka clusters run side by side, one with its data on
 * lazyfs and one on the container's plain directory, same image, JVM flags and heap; Kafka's own
 * ProducerPerformance (kafka-tools 4.4.0) runs against them alternately (plain, lazyfs, plain, lazyfs, ...), each
 * run on a fresh topic. Reports every run, the per-pair ratio plain/lazyfs of records/s and its median.
 * Run: java -cp docker/target/test-classes:docker/target/classes:CP io.faultline.docker.sut.LazyFsPerformanceComparison [pairs] [records]
 */
public final class LazyFsPerformanceComparison {
    private static final String FULL_JIT = "-XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError";
    private static final Pattern RATE = Pattern.compile("([\\d.]+) records/sec \\(([\\d.]+) MB/sec\\), ([\\d.]+) ms avg latency, "
            + "([\\d.]+) ms max latency, (\\d+) ms 50th, (\\d+) ms 95th, (\\d+) ms 99th");

    public static void main(String[] args) throws Exception {
        int pairs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int records = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        var settings = KafkaSettings.defaults().withReplicationFactor(1).withMinInsyncReplicas(1).withJvmFlags(FULL_JIT);
        var sut = new ApacheKafka(settings);
        String image = sut.buildImage();
        try (var plain = SutCluster.start(sut, image, 1, Duration.ofSeconds(180));
             var lazy = SutCluster.start(sut, image, 1, Duration.ofSeconds(180), LazyFsMount::on)) {
            System.out.println("lazyfs mounted: " + LazyFsMount.status(lazy.node("n1")));
            warmUp(plain, lazy, records);
            List<Double> ratios = new ArrayList<>();
            for (int i = 1; i <= pairs; i++) {
                double a = run(plain, "plain", i, records);
                double b = run(lazy, "lazyfs", i, records);
                ratios.add(a / b);
                System.out.printf("pair %d: plain %.0f rec/s, lazyfs %.0f rec/s, slowdown %.2fx%n", i, a, b, a / b);
            }
            List<Double> sorted = ratios.stream().sorted().toList();
            double median = sorted.size() % 2 == 1 ? sorted.get(sorted.size() / 2)
                    : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
            System.out.printf("%nslowdown (plain/lazyfs records/s) over %d pairs: median %.2fx, all %s%n", pairs, median,
                    ratios.stream().map(r -> String.format("%.2f", r)).toList());
            System.out.println("lazyfs after the runs: " + LazyFsMount.status(lazy.node("n1")));
        }
    }

    /** One short run each, so the JITs of broker, lazyfs and client are warm before anything is measured. */
    private static void warmUp(SutCluster plain, SutCluster lazy, int records) throws Exception {
        run(plain, "plain", 0, Math.max(1000, records / 4));
        run(lazy, "lazyfs", 0, Math.max(1000, records / 4));
    }

    private static double run(SutCluster cluster, String label, int round, int records) throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String topic = "perf-" + label + "-" + round;
        KafkaTestClients.createTopic(bootstrap, KafkaTestClients.topic(topic, 1, 1));
        String out = fork("org.apache.kafka.tools.ProducerPerformance", "--topic", topic,
                "--num-records", Integer.toString(records), "--record-size", "1024", "--throughput", "-1",
                "--producer-props", "bootstrap.servers=" + bootstrap, "acks=all", "linger.ms=5", "batch.size=102400");
        String last = out.lines().filter(l -> l.contains("records sent")).reduce((a, b) -> b).orElse(out);
        Matcher m = RATE.matcher(last);
        if (!m.find()) throw new IllegalStateException(label + ": no summary line in ProducerPerformance output:\n" + out);
        System.out.printf("%s run %d: %s%n", label, round, last.trim());
        return Double.parseDouble(m.group(1));
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
