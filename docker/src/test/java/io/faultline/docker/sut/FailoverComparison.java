package io.faultline.docker.sut;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Not a test: leader failover of broker-impl against Apache Kafka 4.4, the method of {@link FailoverMeasurement}
 * (kill -9 of the partition leader → first acknowledged acks=all send of an idempotent producer created before the
 * kill; then restart → back in the ISR). Both 3-node clusters run at once with the same settings
 * ({@link KafkaSettings#defaults()}: RF 3, min ISR 2, fast detection) and the same JVM flags; the kills alternate
 * A B A B … so that load on the machine falls on both alike.
 *
 * <p>Measured 2026-11-30 on 2 shared cores (load average 31-118 from other helpers' runs), medians of 5 alternating
 * tries: before the epoch-cache fix in PartitionLog.truncateTo (load ~20) broker-impl 3205 ms [2159..4960], Kafka
 * 3256 ms [3105..3386]; a later pre-fix run stalled at try 2 for 60 s (a restarted follower never rejoined the ISR).
 * After the fix (load 31-90, a Docker test running beside tries 1-3): broker-impl 4225 ms [3249..10725], Kafka
 * 3624 ms [3158..4760]; in every broker-impl try the controller fenced the dead leader and the new leader applied
 * its leadership about 1.8 s after the kill, so the rest of the time is between that and the client's first ack.
 * Then the controller fences a broker whose heartbeat connection closed after two heartbeat intervals instead of the
 * whole session, and a new controller does the same for the previous controller's node. Before that second change
 * (load 8-11): broker-impl 3193 ms [1808..5125] (leader only 1873 of 3; leader and controller 3572, 5125), Kafka
 * 3904 ms [3361..4258]. After both (load 10-36): broker-impl 1853 ms [1589..2474], Kafka 3487 ms [3322..3965]; in
 * that run no killed leader was also the controller.
 * Run: java -cp docker/target/test-classes:docker/target/classes:CP io.faultline.docker.sut.FailoverComparison [tries]
 */
public final class FailoverComparison {
    public static void main(String[] args) throws Exception {
        int tries = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        var settings = KafkaSettings.defaults();
        List<SutCluster> clusters = new ArrayList<>();
        try {
            for (KafkaProtocolSut sut : List.of(new BrokerImpl(settings), new ApacheKafka(settings))) {
                SutCluster c = SutCluster.start(sut, 3, Duration.ofSeconds(180));
                clusters.add(c);
                KafkaTestClients.createTopic(c.bootstrapServers(), KafkaTestClients.topic("failover", 3, 2));
            }
            List<List<Long>> failovers = List.of(new ArrayList<>(), new ArrayList<>());
            List<List<Long>> rejoins = List.of(new ArrayList<>(), new ArrayList<>());
            List<List<Long>> listenings = List.of(new ArrayList<>(), new ArrayList<>());
            // failovers split by whether the killed leader was also the active controller: [system][0 = no, 1 = yes]
            List<List<List<Long>>> byKind = List.of(List.of(new ArrayList<>(), new ArrayList<>()),
                    List.of(new ArrayList<>(), new ArrayList<>()));
            var producers = clusters.stream().map(c -> KafkaTestClients.producer(c.bootstrapServers(), "all", 60_000)).toList();
            try {
                for (int i = 0; i < tries; i++) {
                    for (int s = 0; s < clusters.size(); s++) {
                        long[] r = FailoverMeasurement.failoverOnce(clusters.get(s), producers.get(s), "failover", i);
                        failovers.get(s).add(r[0]);
                        rejoins.get(s).add(r[1]);
                        listenings.get(s).add(r[3]);
                        byKind.get(s).get((int) r[2]).add(r[0]);
                        System.out.printf("try %d %-12s failover %5d ms, restart -> listening %5d ms, rejoin %5d ms%s%n",
                                i + 1, clusters.get(s).sut().name(), r[0], r[3], r[1],
                                r[2] == 1 ? " (leader was the controller too)" : "");
                    }
                }
            } finally {
                producers.forEach(p -> p.close(Duration.ofSeconds(5)));
            }
            for (int s = 0; s < clusters.size(); s++) {
                System.out.printf("%-12s failover ms (min/median/max of %d): %s  all %s%n", clusters.get(s).sut().name(),
                        tries, FailoverMeasurement.summary(failovers.get(s)), failovers.get(s));
                for (int kind = 0; kind < 2; kind++) {
                    List<Long> v = byKind.get(s).get(kind);
                    if (!v.isEmpty()) System.out.printf("%-12s failover ms, leader %s: median %s of %d %s%n",
                            clusters.get(s).sut().name(), kind == 1 ? "and controller" : "only          ",
                            v.stream().sorted().toList().get(v.size() / 2), v.size(), v);
                }
                System.out.printf("%-12s listening ms (min/median/max of %d): %s  all %s%n", clusters.get(s).sut().name(),
                        tries, FailoverMeasurement.summary(listenings.get(s)), listenings.get(s));
                System.out.printf("%-12s rejoin ms   (min/median/max of %d): %s  all %s%n", clusters.get(s).sut().name(),
                        tries, FailoverMeasurement.summary(rejoins.get(s)), rejoins.get(s));
            }
        } finally {
            // Keep the nodes' logs (-Dfaultline.collect=DIR) to see why a try was slow or failed.
            String collect = System.getProperty("faultline.collect");
            for (SutCluster c : clusters) {
                if (collect == null) c.close();
                else c.teardown(java.nio.file.Path.of(collect, c.sut().name()));
            }
        }
    }
}
