package io.faultline.broker.server;

import io.faultline.broker.replication.LeaderState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gray failure must not look healthy (issue 30): every I/O thread of a real broker is held (acks=all produces
 * block on a lock the test holds, as in the offsets-store deadlock) while more requests queue up. The request
 * handler watchdog stops the heartbeats and the controller fences the node; once the handlers move again it
 * heartbeats, is unfenced and serves.
 */
class StalledHandlersFenceTest {
    private static final TopicPartition T0 = new TopicPartition("t", 0);

    @TempDir
    Path dir;

    private static boolean fenced(TestBroker b) {
        return b.broker.context().metadata().image().broker(1).map(r -> r.fenced()).orElse(true);
    }

    @Test
    void aNodeWhoseHandlersAreStuckIsFencedAndUnfencedWhenTheyMoveAgain() throws Exception {
        try (TestBroker b = TestBroker.start(dir, Map.of("faultline.request.stall.timeout.ms", "1000"));
             Admin admin = b.admin()) {
            admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            List<KafkaProducer<String, String>> producers = new ArrayList<>();
            try {
                for (int i = 0; i < 8; i++) { // 4 I/O threads: 4 requests held, 4 queued (one per connection)
                    KafkaProducer<String, String> p = b.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all",
                            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000,
                            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 60_000));
                    producers.add(p);
                    p.send(new ProducerRecord<>("t", 0, null, "warm")).get(30, TimeUnit.SECONDS);
                }
                LeaderState leader = b.broker.context().replicationLeader(T0).orElseThrow();
                CountDownLatch held = new CountDownLatch(1);
                CountDownLatch release = new CountDownLatch(1);
                Thread holder = new Thread(() -> {
                    synchronized (leader) { // ProduceApi's min-ISR check takes this monitor
                        held.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }, "lock-holder");
                holder.setDaemon(true);
                holder.start();
                held.await();
                List<Future<RecordMetadata>> stuck = new ArrayList<>();
                try {
                    for (KafkaProducer<String, String> p : producers) stuck.add(p.send(new ProducerRecord<>("t", 0, null, "x")));
                    Awaitility.await("fenced while its handlers are stuck").atMost(Duration.ofSeconds(60))
                            .until(() -> fenced(b));
                } finally {
                    release.countDown();
                }
                Awaitility.await("unfenced once they move").atMost(Duration.ofSeconds(60)).until(() -> !fenced(b));
                for (Future<RecordMetadata> f : stuck) {
                    try {
                        f.get(120, TimeUnit.SECONDS); // answered (or failed over the fence), never left hanging
                    } catch (java.util.concurrent.ExecutionException e) {
                        // a retriable error may outlast the fence; the point is the node answers again
                    }
                }
                Awaitility.await("serves again").atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() ->
                        producers.get(0).send(new ProducerRecord<>("t", 0, null, "after")).get(10, TimeUnit.SECONDS)
                                .offset() >= 0);
            } finally {
                producers.forEach(p -> p.close(Duration.ofSeconds(5)));
            }
        }
    }
}
