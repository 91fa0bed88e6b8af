package io.faultline.broker.server.bench;

import io.faultline.broker.server.LocalQuorum;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Follower kill → next acknowledged acks=all write, on three broker-impl processes (BrokerMain) on loopback: a
 * producer writes one record at a time (acks=all, min.insync.replicas=2); a follower of the partition is killed
 * with SIGKILL; the figure is the time from the kill to the acknowledgement of the first write sent after it. The
 * follower is restarted and the ISR allowed to return to three between kills.
 *
 * <p>Not a test. Run by hand from the repository root (holds a cluster slot):
 * <pre>
 * ./mvnw -B -pl broker-impl -am test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
 * cd broker-impl &amp;&amp; /work/cluster-slot java -cp target/test-classes:target/classes:$(cat target/bench.cp) \
 *     io.faultline.broker.server.bench.FollowerKillBenchmark [kills=5] [replica.lag.time.max.ms=5000]
 * </pre>
 */
public final class FollowerKillBenchmark {
    private static final String TOPIC = "bench";

    private FollowerKillBenchmark() {
    }

    private record Write(long sentNanos, long ackedNanos) {
    }

    public static void main(String[] args) throws Exception {
        int kills = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        long lagMs = args.length > 1 ? Long.parseLong(args[1]) : 5000;
        Path root = Files.createTempDirectory("follower-kill-bench");
        LocalQuorum quorum = LocalQuorum.allocate(3);
        Path[] configs = new Path[3];
        for (int i = 0; i < 3; i++) {
            Properties p = quorum.configure(new Properties(), i);
            p.setProperty("log.dirs", root.resolve("n" + (i + 1)).toString());
            p.setProperty("broker.heartbeat.interval.ms", "500");
            p.setProperty("broker.session.timeout.ms", "2000");
            p.setProperty("replica.lag.time.max.ms", Long.toString(lagMs));
            p.setProperty("min.insync.replicas", "2");
            p.setProperty("offsets.topic.num.partitions", "3");
            configs[i] = root.resolve("n" + (i + 1) + ".properties");
            try (var w = Files.newBufferedWriter(configs[i])) {
                p.store(w, null);
            }
        }
        Process[] nodes = new Process[3];
        List<Double> figures = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) nodes[i] = start(configs[i], root.resolve("n" + (i + 1) + ".log"));
            String bootstrap = quorum.bootstrap();
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 180_000))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get(240, TimeUnit.SECONDS);
                awaitFullIsr(admin);
                ConcurrentLinkedQueue<Write> writes = new ConcurrentLinkedQueue<>();
                AtomicBoolean running = new AtomicBoolean(true);
                Thread writer = new Thread(() -> write(bootstrap, writes, running), "writer");
                writer.start();
                for (int k = 0; k < kills; k++) {
                    awaitFullIsr(admin);
                    Thread.sleep(2_000); // steady writes before the kill
                    TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC);
                    int leader = d.partitions().get(0).leader().id();
                    List<Integer> followers = d.partitions().get(0).replicas().stream().map(Node::id)
                            .filter(id -> id != leader).sorted().toList();
                    int victim = followers.get(k % followers.size());
                    long killedAt = System.nanoTime();
                    nodes[victim - 1].destroyForcibly(); // SIGKILL
                    nodes[victim - 1].waitFor();
                    long deadline = killedAt + TimeUnit.SECONDS.toNanos(120);
                    Write next = null;
                    while (next == null && System.nanoTime() < deadline) {
                        next = writes.stream().filter(w -> w.sentNanos() > killedAt).findFirst().orElse(null);
                        if (next == null) Thread.sleep(5);
                    }
                    double s = next == null ? Double.NaN : (next.ackedNanos() - killedAt) / 1e9;
                    figures.add(s);
                    System.out.printf("kill %d: follower %d of leader %d -> next acknowledged write after %.2f s%n",
                            k + 1, victim, leader, s);
                    nodes[victim - 1] = start(configs[victim - 1], root.resolve("n" + victim + ".log"));
                }
                running.set(false);
                writer.join(30_000);
            }
        } finally {
            for (Process p : nodes) if (p != null) p.destroyForcibly();
        }
        List<Double> sorted = figures.stream().sorted().toList();
        System.out.printf("replica.lag.time.max.ms=%d, session 2000 ms: %d kills, min %.2f s, median %.2f s, max %.2f s%n",
                lagMs, sorted.size(), sorted.get(0), sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1));
    }

    private static void write(String bootstrap, ConcurrentLinkedQueue<Write> writes, AtomicBoolean running) {
        Map<String, Object> c = new HashMap<>();
        c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        c.put(ProducerConfig.ACKS_CONFIG, "all");
        c.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        c.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        c.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 100);
        c.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        c.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 100);
        c.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
        c.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        try (KafkaProducer<String, String> p = new KafkaProducer<>(c)) {
            long n = 0;
            while (running.get()) {
                long sent = System.nanoTime();
                try {
                    p.send(new ProducerRecord<>(TOPIC, 0, null, Long.toString(n++))).get();
                    writes.add(new Write(sent, System.nanoTime()));
                } catch (Exception e) {
                    System.out.println("write failed: " + e.getCause());
                }
            }
        }
    }

    private static void awaitFullIsr(Admin admin) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            try {
                TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC);
                if (d.partitions().get(0).isr().size() == 3) return;
            } catch (Exception e) {
                // metadata not there yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("ISR did not return to three replicas in 120 s");
    }

    private static Process start(Path config, Path log) throws Exception {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), "io.faultline.broker.BrokerMain", config.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }
}
