package io.faultline.docker.sut;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Not a test: broker-impl's controller failover on a 3-node cluster in containers: kill -9 of the active controller
 * → the next successful CreateTopics (retried every 100 ms with a fresh Admin request), then the node is restarted
 * and the cluster left to settle before the next try.
 * Run: java -cp docker/target/test-classes:docker/target/classes:$(cat cp.txt) io.faultline.docker.sut.ControllerFailoverMeasurement [tries]
 */
public final class ControllerFailoverMeasurement {
    public static void main(String[] args) throws Exception {
        int tries = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        List<Long> failovers = new ArrayList<>();
        try (var cluster = SutCluster.start(new BrokerImpl(KafkaSettings.defaults()), 3, Duration.ofSeconds(180));
             Admin admin = KafkaAdmin.create(cluster.bootstrapServers())) {
            var sut = (BrokerImpl) cluster.sut();
            for (int i = 0; i < tries; i++) {
                create(admin, "warm-" + i, 60_000);
                var controller = sut.activeController(cluster.cluster()).orElseThrow();
                long killed = System.nanoTime();
                controller.kill();
                create(admin, "after-" + i, 60_000);
                long ms = (System.nanoTime() - killed) / 1_000_000;
                failovers.add(ms);
                System.out.printf("try %d: killed %s (active controller), CreateTopics ok after %d ms%n", i + 1,
                        controller.name(), ms);
                controller.start();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size() < 3 && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
                Thread.sleep(3000); // let the quorum settle before the next kill
            }
        }
        List<Long> v = new ArrayList<>(failovers);
        Collections.sort(v);
        System.out.println("controller failover ms (min/median/max over " + v.size() + "): " + v.get(0) + " / "
                + v.get(v.size() / 2) + " / " + v.get(v.size() - 1) + "  all: " + failovers);
    }

    private static void create(Admin admin, String topic, long timeoutMs) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            try {
                admin.createTopics(List.of(new NewTopic(topic, 1, (short) 2))).all().get(5, TimeUnit.SECONDS);
                return;
            } catch (java.util.concurrent.ExecutionException e) {
                // An earlier try that timed out on the client may have succeeded on the controller.
                if (e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException) return;
                if (System.nanoTime() > deadline) throw e;
                Thread.sleep(100);
            } catch (java.util.concurrent.TimeoutException e) {
                if (System.nanoTime() > deadline) throw e;
                Thread.sleep(100);
            }
        }
    }
}
