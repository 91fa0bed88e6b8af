package io.faultline.broker;

import io.faultline.broker.common.Time;
import io.faultline.broker.config.BrokerConfig;
import io.faultline.broker.server.KafkaBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * {@code java -XX:ArchiveClassesAtExit=broker.jsa -cp ... io.faultline.broker.StartupTraining DIR}: a training run
 * for a class-data-sharing archive. Starts a single-node broker in DIR, creates a topic, produces, consumes and
 * commits offsets through the real client, shuts down cleanly and exits 0, so the JVM archives every class a start,
 * a recovery and the common requests load.
 *
 * <p>Why: a broker's start is dominated by loading and verifying some 5,000 classes (Ratis, Kafka's message
 * classes); started with the archive ({@code -XX:SharedArchiveFile}), a node restarted after kill -9 listens again
 * in a fraction of the time. The node image runs this once at build time (see the broker-impl Dockerfile); a JVM
 * that cannot use the archive ignores it and starts as before.
 */
public final class StartupTraining {
    private StartupTraining() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: StartupTraining <empty work directory>");
            System.exit(2);
        }
        run(Path.of(args[0]));
        System.out.println("start-up training done");
        System.exit(0); // the archive is written as the JVM exits
    }

    /** One training: a broker in {@code dir} started, used through the client, stopped, started again, stopped. */
    public static void run(Path dir) throws Exception {
        Files.createDirectories(dir);
        Properties p = new Properties();
        p.setProperty("node.id", "1");
        p.setProperty("listeners", "PLAINTEXT://127.0.0.1:0");
        p.setProperty("log.dirs", dir.resolve("data").toString());
        p.setProperty("offsets.topic.num.partitions", "1");
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        KafkaBroker broker = new KafkaBroker(BrokerConfig.from(p), Time.SYSTEM).start();
        try {
            exercise("127.0.0.1:" + broker.boundPort());
        } finally {
            broker.close();
        }
        // Restart on the same data: recovery paths (segments, checkpoints, the Raft log) load their classes too.
        new KafkaBroker(BrokerConfig.from(p), Time.SYSTEM).start().close();
    }

    private static void exercise(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic("training", 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 100; i++) producer.send(new ProducerRecord<>("training", "k" + i, "v" + i));
            producer.flush();
        }
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ConsumerConfig.GROUP_ID_CONFIG, "training",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of("training"));
            int seen = 0;
            for (int polls = 0; seen < 100 && polls < 300; polls++) seen += consumer.poll(Duration.ofMillis(100)).count();
            if (seen < 100) throw new IllegalStateException("the training consumer saw " + seen + " of 100 records");
            consumer.commitSync();
            consumer.committed(java.util.Set.of(new TopicPartition("training", 0)));
        }
    }
}
