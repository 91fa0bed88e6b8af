package io.faultline.nemesis.link;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What a slowed link costs a producer, for the link-fault tests: only ever compared with the delay the proxy adds
 * (a lower bound a busy machine can only exceed), never with an upper bound.
 */
final class ProduceLatency {
    private ProduceLatency() {}

    /** Median ms of {@code n} sequential sends to partition 0 of {@code topic}, each awaited. */
    static long medianMillis(KafkaProducer<String, String> producer, String topic, int n) throws Exception {
        List<Long> ms = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            producer.send(new ProducerRecord<>(topic, 0, null, "v" + i)).get(120, TimeUnit.SECONDS);
            ms.add((System.nanoTime() - t0) / 1_000_000);
        }
        ms.sort(null);
        return ms.get(n / 2);
    }
}
