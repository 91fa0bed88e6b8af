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
     * Stops every node's program at once, bounded: SIGTERM, then SIGKILL after the system's grace. Returns how long
     * each node took and its exit code, e.g. "n4 0.6 s (exit 143)": where a slow stop went. (Stopping the nodes outside
     * a KRaft quorum first was tried: they stopped cleanly, but the quorum's last voter still waited out the grace, so
     * the stop only took longer.)
     */
    public List<String> stopAll() {
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
