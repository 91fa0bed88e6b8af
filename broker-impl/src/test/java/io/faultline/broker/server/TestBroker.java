package io.faultline.broker.server;

import io.faultline.broker.config.BrokerConfig;
import io.faultline.broker.common.Time;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** An in-process broker on 127.0.0.1 and an ephemeral port, plus real kafka-clients 4.4.0 clients for it. */
final class TestBroker implements AutoCloseable {
    static {
        // Client config dumps drown the broker's own lines; must be set before slf4j-simple initializes.
        if (System.getProperty("org.slf4j.simpleLogger.log.org.apache.kafka") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "warn");
        }
    }

    final Path dir;
    final KafkaBroker broker;
    /** Set when the broker runs on a manual clock: closing drives it (heartbeats of the controlled shutdown). */
    private io.faultline.broker.common.ManualTime manualTime;

    private TestBroker(Path dir, KafkaBroker broker) {
        this.dir = dir;
        this.broker = broker;
    }

    static Properties config(Path dir, int port, Map<String, String> overrides) {
        Properties p = new Properties();
        p.setProperty("node.id", "1");
        p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.setProperty("log.dirs", dir.toString());
        p.setProperty("num.network.threads", "2");
        p.setProperty("num.io.threads", "4");
        p.setProperty("offsets.topic.num.partitions", "3");
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        p.setProperty("group.min.session.timeout.ms", "500");
        // A restarted broker's registration is refused until its previous incarnation's session expires: Kafka's
        // 9 s default made every restart in these tests wait about 9 s. Six heartbeats per session still leave
        // plenty of room on a busy machine.
        p.setProperty("broker.heartbeat.interval.ms", "500");
        p.setProperty("broker.session.timeout.ms", "3000");
        overrides.forEach(p::setProperty);
        return p;
    }

    static TestBroker start(Path dir) throws Exception {
        return start(dir, Map.of());
    }

    static TestBroker start(Path dir, Map<String, String> overrides) throws Exception {
        return start(dir, 0, overrides);
    }

    static TestBroker start(Path dir, int port, Map<String, String> overrides) throws Exception {
        return start(dir, port, overrides, Time.SYSTEM);
    }

    /** With a {@link io.faultline.broker.common.ManualTime}, the broker's deadlines move only when the test says. */
    static TestBroker start(Path dir, int port, Map<String, String> overrides, Time time) throws Exception {
        KafkaBroker b = new KafkaBroker(BrokerConfig.from(config(dir, port, overrides)), time).start();
        return new TestBroker(dir, b);
    }

    /**
     * Starts a broker on a manual clock. Registration, heartbeats and the controller's ticks run on that clock, so it
     * is driven forward (10 ms steps) only until the broker is up; from then on it moves when the test says.
     */
    static TestBroker startOnManualClock(Path dir, io.faultline.broker.common.ManualTime time) throws Exception {
        // Kafka's own session settings: this clock moves in test-chosen steps, which were picked against them
        TestBroker b = whileDriving(time, () -> start(dir, 0,
                Map.of("broker.heartbeat.interval.ms", "2000", "broker.session.timeout.ms", "9000"), time));
        b.manualTime = time;
        return b;
    }

    private static <T> T whileDriving(io.faultline.broker.common.ManualTime time,
                                      java.util.concurrent.Callable<T> action) throws Exception {
        java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread driver = new Thread(() -> {
            while (running.get()) {
                time.advance(10);
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "manual-clock-driver");
        driver.start();
        try {
            return action.call();
        } finally {
            running.set(false);
            driver.join();
        }
    }

    int port() {
        return broker.boundPort();
    }

    String bootstrap() {
        return "127.0.0.1:" + port();
    }

    Admin admin() {
        return admin(bootstrap());
    }

    static Admin admin(String bootstrap) {
        Map<String, Object> c = new HashMap<>();
        c.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10000);
        c.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20000);
        return Admin.create(c);
    }

    /**
     * Creates the topics and waits, idempotently. The admin client retries a CreateTopics whose answer timed out
     * (a busy machine), and the retry meets the topic its first attempt made: TopicExistsException then means
     * success, as long as the existing topic has the partitions and replication factor asked for.
     */
    static void createTopics(Admin admin, NewTopic... topics) throws Exception {
        Map<String, KafkaFuture<Void>> created = admin.createTopics(List.of(topics)).values();
        for (NewTopic wanted : topics) {
            try {
                created.get(wanted.name()).get();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) throw e;
                TopicDescription d = admin.describeTopics(List.of(wanted.name())).allTopicNames().get().get(wanted.name());
                int replicas = d.partitions().get(0).replicas().size();
                boolean same = (wanted.numPartitions() < 0 || d.partitions().size() == wanted.numPartitions())
                        && (wanted.replicationFactor() < 0 || replicas == wanted.replicationFactor());
                if (!same) {
                    throw new AssertionError("topic " + wanted.name() + " already exists with " + d.partitions().size()
                            + " partitions and replication " + replicas + ", not as asked: " + wanted, e);
                }
            }
        }
    }

    KafkaProducer<String, String> producer(Map<String, Object> extra) {
        return producer(bootstrap(), extra);
    }

    static KafkaProducer<String, String> producer(String bootstrap, Map<String, Object> extra) {
        Map<String, Object> c = new HashMap<>();
        c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        c.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        c.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        c.putAll(extra);
        return new KafkaProducer<>(c);
    }

    KafkaConsumer<String, String> consumer(Map<String, Object> extra) {
        return consumer(bootstrap(), extra);
    }

    static KafkaConsumer<String, String> consumer(String bootstrap, Map<String, Object> extra) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        c.putAll(extra);
        return new KafkaConsumer<>(c);
    }

    @Override
    public void close() {
        if (manualTime == null) {
            broker.close();
            return;
        }
        try {
            whileDriving(manualTime, () -> {
                broker.close();
                return null;
            });
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
