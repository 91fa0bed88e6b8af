package io.faultline.docker.sut;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A topic, acks=all writes and a read back, with whichever kafka-clients this class is linked against: called through
 * {@code KafkaClientLine.invokeStatic}, so the same code runs on 3.9.1 against brokers 4.4 cannot talk to.
 */
public final class LegacyClientRoundTrip {
    private LegacyClientRoundTrip() {}

    /** Creates {@code topic} (1 partition, rf 3), sends {@code count} values, returns what a consumer reads from the start. */
    public static List<String> roundTrip(String bootstrap, String topic, Integer count) throws Exception {
        try (Admin admin = Admin.create(io.faultline.kafkacompat.AdminClusterAdmin.properties(bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(1), Optional.of((short) 3))))
                    .all().get(60, TimeUnit.SECONDS);
        }
        var p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        // Idempotence needs InitProducerId (0.11+): these writes must also work on 0.10.
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) producer.send(new ProducerRecord<>(topic, 0, null, "v" + i)).get(60, TimeUnit.SECONDS);
        }
        var c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<String> read = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            consumer.seekToBeginning(List.of(new TopicPartition(topic, 0)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (read.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) read.add(r.value());
            }
        }
        return read;
    }
}
