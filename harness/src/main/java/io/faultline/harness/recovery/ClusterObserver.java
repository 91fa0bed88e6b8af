package io.faultline.harness.recovery;

import io.faultline.docker.Node;
import io.faultline.docker.sut.KafkaProtocolSut;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Observes a running cluster of a Kafka-protocol system (broker-impl or Apache Kafka alike): every node n&lt;i&gt; is
 * broker i on its fixed address, asked directly and all at once by a {@link BrokerProbe}. Never throws.
 */
public final class ClusterObserver implements Observation.Source, AutoCloseable {
    private final List<Node> nodes;
    private final BrokerProbe probe;
    private final Clock clock;
    private final Duration timeout;
    private final ExecutorService pool;

    public ClusterObserver(List<Node> nodes, Duration probeTimeout, Clock clock) {
        this.nodes = List.copyOf(nodes);
        this.probe = new BrokerProbe(probeTimeout);
        this.clock = clock;
        this.timeout = probeTimeout;
        this.pool = Executors.newFixedThreadPool(Math.max(1, nodes.size()), r -> {
            Thread t = new Thread(r, "faultline-recovery-probe");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public Observation observe() {
        var at = clock.instant();
        List<Future<NodeView>> asked = new ArrayList<>();
        for (Node n : nodes) {
            int id = brokerId(n);
            asked.add(pool.submit(() -> probe.probe(n.name(), id, n.ip(), KafkaProtocolSut.PORT)));
        }
        List<NodeView> views = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            Node n = nodes.get(i);
            try {
                // connect and each of the two answers are bounded by the timeout; this is a backstop
                views.add(asked.get(i).get(timeout.toMillis() * 4 + 1000, TimeUnit.MILLISECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                views.add(NodeView.silent(n.name(), brokerId(n), "not asked: interrupted"));
            } catch (Exception e) {
                asked.get(i).cancel(true);
                views.add(NodeView.silent(n.name(), brokerId(n), "probe failed: " + e));
            }
        }
        return new Observation(at, views);
    }

    /** n3 is broker 3 in both systems. */
    static int brokerId(Node n) {
        return Integer.parseInt(n.name().substring(1));
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
