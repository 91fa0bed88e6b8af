package io.faultline.docker.sut;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Not a test: measures Apache Kafka's cluster start (3 and 5 nodes), failover (kill -9 of a partition
 * leader → first successful acks=all send) and rejoin (restart → back in the ISR) on this machine.
 * Run: java -cp docker/target/test-classes:docker/target/classes:$(cat cp.txt) io.faultline.docker.sut.FailoverMeasurement [tries]
 */
public final class FailoverMeasurement {
    public static void main(String[] args) throws Exception {
        int tries = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        for (int n : List.of(3, 5)) {
            long t0 = System.nanoTime();
            try (var kafka = SutCluster.start(new ApacheKafka(KafkaSettings.defaults()), n, Duration.ofSeconds(180))) {
                System.out.printf("start: %d nodes ready in %d ms%n", n, (System.nanoTime() - t0) / 1_000_000);
                if (n != 5) continue;
                measureFailover(kafka, tries);
            }
        }
    }

    private static void measureFailover(SutCluster kafka, int tries) throws Exception {
        String bootstrap = kafka.bootstrapServers();
        KafkaTestClients.createTopic(bootstrap, KafkaTestClients.topic("failover", 3, 2));
        List<Long> failovers = new ArrayList<>(), rejoins = new ArrayList<>();
        try (var producer = KafkaTestClients.producer(bootstrap, "all", 60_000)) {
            for (int i = 0; i < tries; i++) {
                long[] r = failoverOnce(kafka, producer, "failover", i);
                failovers.add(r[0]);
                rejoins.add(r[1]);
                System.out.printf("try %d: failover %d ms, rejoin %d ms%n", i + 1, r[0], r[1]);
            }
        }
        System.out.println("failover ms (min/median/max): " + summary(failovers));
        System.out.println("rejoin ms (min/median/max): " + summary(rejoins));
    }

    /**
     * One try: an acks=all send, kill -9 of the partition's leader, the time to the next acknowledged send
     * (failover), then the leader restarted and the time until it is back in the ISR (rejoin), then 3 s to settle.
     * Returns {failover ms, rejoin ms, 1 if the killed leader was also the active controller else 0, restart →
     * listening ms}: in the first case the quorum elects a new controller first, which starts every broker's session
     * afresh (Kafka does the same), so such a kill takes about one session timeout longer. With
     * -Dfaultline.failover.burst=N (default 0) each try first sends N 1 KiB records (acks=all) to the partition, so
     * the killed leader has heavy traffic behind it and its restart recovers a log that was being written.
     */
    static long[] failoverOnce(SutCluster kafka, KafkaProducer<String, String> producer, String topic, int i)
            throws Exception {
        String bootstrap = kafka.bootstrapServers();
        var sut = (KafkaProtocolSut) kafka.sut();
        // Only a full ISR makes the kill a failover test: with one replica already out (a lagging follower on a
        // loaded machine), min ISR 2 would leave the partition unwritable until that replica catches up again.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (KafkaTestClients.isr(bootstrap, topic, 0).size() < 3 && System.nanoTime() < deadline) Thread.sleep(200);
        int burst = Integer.getInteger("faultline.failover.burst", 0);
        if (burst > 0) {
            String kib = "x".repeat(1024);
            java.util.concurrent.Future<?> last = null;
            for (int k = 0; k < burst; k++) last = producer.send(new ProducerRecord<>(topic, 0, null, kib));
            last.get(120, TimeUnit.SECONDS);
        }
        producer.send(new ProducerRecord<>(topic, 0, null, "warm-" + i)).get(60, TimeUnit.SECONDS);
        var leader = sut.leaderOf(kafka.cluster(), topic, 0).orElseThrow();
        int id = Integer.parseInt(leader.name().substring(1));
        boolean controllerToo = ((ControllerAware) sut).activeController(kafka.cluster())
                .map(c -> c.name().equals(leader.name())).orElse(false);
        long killed = System.nanoTime();
        leader.kill();
        producer.send(new ProducerRecord<>(topic, 0, null, "after-" + i)).get(60, TimeUnit.SECONDS);
        long failover = (System.nanoTime() - killed) / 1_000_000;
        long started = System.nanoTime();
        leader.start();
        while (!accepts(leader.ip(), KafkaProtocolSut.PORT)) Thread.sleep(20);
        long listening = (System.nanoTime() - started) / 1_000_000;
        while (!KafkaTestClients.isr(bootstrap, topic, 0).contains(id)) Thread.sleep(100);
        long rejoin = (System.nanoTime() - started) / 1_000_000;
        Thread.sleep(3000); // let leadership settle before the next kill
        return new long[] {failover, rejoin, controllerToo ? 1 : 0, listening};
    }

    /** Whether the client port takes a connection: the node's broker has bound its listener. */
    private static boolean accepts(String host, int port) {
        try (var socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress(host, port), 200);
            return true;
        } catch (java.io.IOException notYet) {
            return false;
        }
    }

    static String summary(List<Long> values) {
        List<Long> v = new ArrayList<>(values);
        Collections.sort(v);
        return v.get(0) + " / " + v.get(v.size() / 2) + " / " + v.get(v.size() - 1);
    }
}
