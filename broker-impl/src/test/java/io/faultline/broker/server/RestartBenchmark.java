package io.faultline.broker.server;

import java.io.IOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Benchmark (a main, not a test): one forked BrokerMain process gets acks=all traffic for a while, is killed with
 * SIGKILL and restarted, {@code rounds} times. Prints per round the time from the restarted process's start to its
 * client port accepting connections, the broker's own start-up stage lines (StartupStages), and at the end the
 * median and maximum. Usage: RestartBenchmark [rounds=5] [trafficSeconds=10] [dataDir=temp].
 */
public final class RestartBenchmark {
    private RestartBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int trafficSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        Path dir = args.length > 2 ? Files.createDirectories(Path.of(args[2])) : Files.createTempDirectory("restart-bench");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Properties props = TestBroker.config(Files.createDirectories(dir.resolve("data")), port, Map.of());
        Path file = dir.resolve("server.properties");
        try (Writer w = Files.newBufferedWriter(file)) {
            props.store(w, null);
        }
        String bootstrap = "127.0.0.1:" + port;
        List<Long> listening = new ArrayList<>();
        Process broker = fork(file, dir.resolve("start-0.log"));
        awaitListening(port, broker);
        try (Admin admin = TestBroker.admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic("bench", 2, (short) 1))).all().get();
        }
        for (int round = 1; round <= rounds; round++) {
            long acked = traffic(bootstrap, trafficSeconds);
            broker.destroyForcibly().waitFor();
            Path log = dir.resolve("start-" + round + ".log");
            long t0 = System.nanoTime();
            broker = fork(file, log);
            awaitListening(port, broker);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            listening.add(ms);
            System.out.printf("round %d: %d records acknowledged, then kill -9; restart -> listening %d ms%n", round,
                    acked, ms);
            for (String line : Files.readAllLines(log)) {
                if (line.contains("start-up:") || line.contains("Opened data dir")) System.out.println("    " + line);
            }
        }
        broker.destroyForcibly().waitFor();
        Collections.sort(listening);
        System.out.printf("restart -> listening over %d kill -9 restarts: median %d ms, max %d ms; all %s%n", rounds,
                listening.get(listening.size() / 2), listening.get(listening.size() - 1), listening);
    }

    private static long traffic(String bootstrap, int seconds) throws InterruptedException {
        AtomicLong acked = new AtomicLong();
        try (KafkaProducer<String, String> p = TestBroker.producer(bootstrap, Map.of(ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 5))) {
            long until = System.nanoTime() + seconds * 1_000_000_000L;
            for (long i = 0; System.nanoTime() < until; i++) {
                p.send(new ProducerRecord<>("bench", "k" + (i % 100), "value-" + i), (md, e) -> {
                    if (e == null) acked.incrementAndGet();
                });
            }
            p.flush();
        }
        return acked.get();
    }

    private static Process fork(Path props, Path log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                "io.faultline.broker.BrokerMain", props.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static void awaitListening(int port, Process p) throws InterruptedException {
        while (true) {
            if (!p.isAlive()) throw new IllegalStateException("broker process died");
            try (Socket s = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                Thread.sleep(20);
            }
        }
    }
}
