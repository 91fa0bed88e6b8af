package io.faultline.workloads.queue;

import io.faultline.kafkacompat.KafkaClientLine;
import io.faultline.workloads.Workload;

import java.util.List;
import java.util.stream.IntStream;

/**
 * Opens the queue workload on a cluster: creates the first keys' topics and hands out {@link KafkaQueueClient}s.
 * Called through {@link KafkaClientLine#invokeStatic}, so for an old broker this class, the clients and the topic
 * manager are all defined against kafka-clients 3.9.1; only Faultline's Kafka-free types cross back.
 */
public final class KafkaQueueSessions {
    private KafkaQueueSessions() {}

    public static Workload.Session open(QueueWorkloadConfig c) {
        TopicManager topics = new TopicManager(c);
        try {
            List<Integer> keys = IntStream.range(0, c.keys().activeKeys()).boxed().toList();
            KafkaClientLine.withLoaderOf(KafkaQueueSessions.class, () -> {
                topics.ensure(keys); // the Admin client is created here, with this line's context loader
                return null;
            });
            return Workload.Session.of(thread -> KafkaClientLine.withLoaderOf(KafkaQueueSessions.class,
                            () -> new KafkaQueueClient(c, topics, thread)),
                    List.copyOf(topics.mapping().topicsOf(keys)), topics::close);
        } catch (RuntimeException e) {
            topics.close();
            throw e;
        }
    }
}
