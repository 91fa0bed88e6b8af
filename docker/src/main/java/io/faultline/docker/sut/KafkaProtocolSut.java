package io.faultline.docker.sut;

import io.faultline.docker.Cluster;
import io.faultline.docker.Node;
import io.faultline.kafkacompat.ClusterAdmin;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What every Kafka-protocol system under test shares: node n&lt;i&gt; is broker id i, clients reach each broker
 * on its fixed address at {@link #PORT}, readiness and leaders are asked of the cluster through the Admin API.
 */
public abstract class KafkaProtocolSut implements SystemUnderTest, LeaderAware, SegmentStorage {
    public static final int PORT = 9092;
    /** How much of a node's log is read to show its last lines (the log itself may be hundreds of MB). */
    private static final int TAIL_BYTES = 256 * 1024;

    /** The node's main log file, for the tail shown when it does not come up; null: its console. */
    protected abstract String serverLogPath();

    @Override
    public void awaitReady(Cluster cluster, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Set<Integer> seen = Set.of();
        Set<String> exited = Set.of();
        try (ClusterAdmin admin = ClusterAdmin.open(bootstrapServers(cluster), clientLine())) {
            for (int round = 1; System.nanoTime() < deadline; round++) {
                try {
                    seen = admin.brokerIds();
                    if (seen.size() == cluster.nodes().size()) return;
                } catch (Exception notYet) {
                    // brokers still starting
                }
                if (round % 8 == 0 && !(exited = exited(cluster)).isEmpty()) break;
                sleep(250);
            }
        }
        Set<String> missing = new TreeSet<>();
        for (Node n : cluster.nodes()) if (!seen.contains(brokerId(n))) missing.add(n.name());
        var msg = new StringBuilder(name() + (exited.isEmpty() ? " did not come up within " + timeout.toSeconds() + " s: "
                : " did not come up: the program of " + exited + " exited while starting; ")
                + (seen.isEmpty() ? "no broker answered" : "missing " + missing));
        for (String name : missing) {
            msg.append("\n--- last lines of ").append(name).append(" ---\n").append(logTail(cluster.node(name), 30));
        }
        throw new ClusterNotReadyException(msg.toString());
    }

    /**
     * The nodes whose program has exited. Nothing restarts a node while the cluster starts (no fault runs yet), so one
     * that exited (a refused configuration, a crash at start-up) can never make the cluster ready: waiting out the
     * whole bound would only hide it for minutes.
     */
    protected static Set<String> exited(Cluster cluster) {
        Set<String> out = new TreeSet<>();
        for (Node n : cluster.nodes()) {
            try {
                if (!n.isRunning()) out.add(n.name());
            } catch (RuntimeException engineHiccup) {
                // the engine did not answer this once: the next round asks again
            }
        }
        return out;
    }

    /** The last lines of the node's log file (or its console when the file is missing), and whether it runs. */
    protected String logTail(Node node, int lines) {
        String log = null;
        if (serverLogPath() != null) {
            try {
                log = node.readTail(serverLogPath(), TAIL_BYTES);
            } catch (RuntimeException missing) {
                // not written yet: the console says why
            }
        }
        if (log == null) log = node.consoleTail(TAIL_BYTES);
        List<String> all = log.lines().toList();
        String state = node.isRunning() ? "running" : "exited with " + node.exitCode();
        return "(" + state + ")\n" + String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    @Override
    public String bootstrapServers(Cluster cluster) {
        return cluster.nodes().stream().map(n -> n.ip() + ":" + PORT).collect(Collectors.joining(","));
    }

    @Override
    public Optional<Node> leaderOf(Cluster cluster, String topic, int partition) {
        try (ClusterAdmin admin = ClusterAdmin.open(bootstrapServers(cluster), clientLine())) {
            var leader = admin.partition(topic, partition).flatMap(p -> p.leader().isPresent()
                    ? Optional.of(p.leader().getAsInt()) : Optional.empty());
            return leader.isEmpty() ? Optional.empty() : nodeByBrokerId(cluster, leader.get());
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    protected static Optional<Node> nodeByBrokerId(Cluster cluster, int id) {
        return cluster.nodes().stream().filter(n -> brokerId(n) == id).findFirst();
    }

    /** n3 is broker 3. */
    protected static int brokerId(Node n) {
        return Integer.parseInt(n.name().substring(1));
    }

    protected static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
