package io.faultline.docker.sut;

import io.faultline.docker.Cluster;
import io.faultline.docker.Node;
import io.faultline.docker.NodeAddress;
import io.faultline.docker.NodeSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/** A running system under test: its cluster of containers plus what it takes to drive and tear it down. */
public final class SutCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SutCluster.class);

    private final SystemUnderTest sut;
    private final Cluster cluster;

    private SutCluster(SystemUnderTest sut, Cluster cluster) {
        this.sut = sut;
        this.cluster = cluster;
    }

    /** Builds the image, creates N nodes, writes their configuration, starts them and waits until ready. */
    public static SutCluster start(SystemUnderTest sut, int nodes, Duration readyTimeout) {
        return start(sut, sut.buildImage(), nodes, readyTimeout);
    }

    /** The same, with the SUT's image already built. */
    public static SutCluster start(SystemUnderTest sut, String image, int nodes, Duration readyTimeout) {
        return start(sut, image, nodes, readyTimeout, UnaryOperator.identity());
    }

    /** The same, each node's spec adjusted first (e.g. {@link io.faultline.docker.LazyFsMount#on}: data on lazyfs). */
    public static SutCluster start(SystemUnderTest sut, String image, int nodes, Duration readyTimeout,
                                   UnaryOperator<NodeSpec> adjust) {
        Cluster cluster = Cluster.builder().withNodes(nodes)
                .withNodeSpecs((self, all) -> adjust.apply(sut.nodeSpec(image, self, all)))
                .createOnly()
                .start();
        try {
            for (Node n : cluster.nodes()) sut.configure(n, cluster.addresses());
            cluster.startAll();
            sut.awaitReady(cluster, readyTimeout);
            return new SutCluster(sut, cluster);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    public SystemUnderTest sut() {
        return sut;
    }

    public Cluster cluster() {
        return cluster;
    }

    public List<Node> nodes() {
        return cluster.nodes();
    }

    public Node node(String name) {
        return cluster.node(name);
    }

    public List<NodeAddress> addresses() {
        return cluster.addresses();
    }

    public String bootstrapServers() {
        return sut.bootstrapServers(cluster);
    }

    /** Stops every node at once (bounded: SIGTERM, then SIGKILL), copies logs and data to collectDir, removes all. */
    public void teardown(Path collectDir) {
        try {
            stopAll();
            if (collectDir != null) collect(collectDir);
        } finally {
            cluster.close();
        }
    }

    /**
     * Stops every node's program at once, bounded: SIGTERM, then SIGKILL after the system's grace. Once most of the
     * system's {@linkplain SystemUnderTest#quorumMembers quorum} has exited, a node still running gets
     * {@link #AFTER_QUORUM_EXITED} more and is then killed: without its quorum it cannot finish a graceful stop (a
     * 5-node Kafka cluster's last KRaft voter waited out the whole grace in every run). Returns how long each node
     * took and its exit code, e.g. "n4 0.6 s (exit 143)": where a slow stop went.
     */
    public List<String> stopAll() {
        List<Node> quorum = sut.quorumMembers(cluster.nodes());
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread watcher = null;
        if (!quorum.isEmpty()) {
            watcher = new Thread(() -> killWhenQuorumGone(quorum, done), "faultline-stop-quorum");
            watcher.setDaemon(true);
            watcher.start();
        }
        try {
            return io.faultline.docker.Concurrently.map(cluster.nodes(), "faultline-stop", n -> {
                long start = System.nanoTime();
                try {
                    sut.stop(n);
                } catch (RuntimeException e) {
                    LOG.warn("{}: stop failed, killing: {}", n.name(), e.getMessage());
                    n.kill();
                }
                Long exit = null;
                try {
                    exit = n.exitCode();
                } catch (RuntimeException e) {
                    // only for the log line
                }
                return String.format("%s %.1f s%s", n.name(), (System.nanoTime() - start) / 1e9, exit == null ? "" : " (exit " + exit + ")");
            });
        } finally {
            done.set(true);
            if (watcher != null) watcher.interrupt();
        }
    }

    /** How long a node may go on stopping after most of the quorum has exited. */
    static final Duration AFTER_QUORUM_EXITED = Duration.ofSeconds(1);

    private void killWhenQuorumGone(List<Node> quorum, java.util.concurrent.atomic.AtomicBoolean done) {
        try {
            long majorityGoneAt = -1;
            while (!done.get()) {
                Thread.sleep(100);
                if (majorityGoneAt < 0) {
                    long exited = quorum.stream().filter(n -> !running(n)).count();
                    if (exited > quorum.size() / 2) majorityGoneAt = System.nanoTime();
                } else if (System.nanoTime() - majorityGoneAt >= AFTER_QUORUM_EXITED.toNanos()) {
                    for (Node n : cluster.nodes()) {
                        if (running(n)) {
                            LOG.info("{}: still stopping {} after most of the quorum exited: killed", n.name(), AFTER_QUORUM_EXITED);
                            n.kill();
                        }
                    }
                    return;
                }
            }
        } catch (InterruptedException e) {
            // the stop ended
        } catch (RuntimeException e) {
            LOG.warn("watching the quorum's stop failed: {}", e.toString());
        }
    }

    private static boolean running(Node n) {
        try {
            return n.isRunning();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Copies every node's console, logs and data directories to collectDir/&lt;node&gt;/. */
    public void collect(Path collectDir) {
        cluster.collect(collectDir, sut.collectedPaths());
    }

    @Override
    public void close() {
        cluster.close();
    }
}
