package io.faultline.docker.sut;

import io.faultline.docker.Cluster;
import io.faultline.docker.Node;
import io.faultline.docker.NodeAddress;
import io.faultline.docker.NodeSpec;

import java.time.Duration;
import java.util.List;

/**
 * A system under test, Jepsen's "db": how its nodes are built, configured, started, judged ready and
 * torn down. Optional abilities (finding leaders, the controller, segment files) are the separate
 * interfaces {@link LeaderAware}, {@link ControllerAware} and {@link SegmentStorage}.
 * Implementations hold only configuration; the running state lives in the {@link Cluster}.
 */
public interface SystemUnderTest {
    /** Short id used on the command line and in the run store, e.g. "apache-kafka". */
    String name();

    /** The version judged, e.g. "4.4.0". */
    String version();

    /** The kafka-clients line the workloads and the harness talk to this system with. */
    default io.faultline.kafkacompat.KafkaClientLine clientLine() {
        return io.faultline.kafkacompat.KafkaClientLine.CURRENT;
    }

    /** Builds (or reuses) the node image; returns its tag. */
    String buildImage();

    /** The program and environment of one node, knowing every node's address. */
    NodeSpec nodeSpec(String image, NodeAddress self, List<NodeAddress> all);

    /** Writes per-node files (configuration) into a created, not yet started node. */
    void configure(Node node, List<NodeAddress> all);

    /** Blocks until the cluster serves clients; throws with the name and log tail of a node that did not come up. */
    void awaitReady(Cluster cluster, Duration timeout);

    /** How clients on the host reach the cluster. */
    String bootstrapServers(Cluster cluster);

    /** Graceful stop of one node's program, bounded: SIGTERM, then SIGKILL after the grace. */
    default void stop(Node node) {
        node.stop(stopGrace());
    }

    /**
     * The nodes of the consensus quorum the others depend on (KRaft voters, a ZooKeeper ensemble, a Raft group); none
     * by default. Once most of them have exited at the end of a run, the rest cannot finish a graceful stop.
     */
    default List<Node> quorumMembers(List<Node> nodes) {
        return List.of();
    }

    /** How long a graceful stop may take before SIGKILL. */
    default Duration stopGrace() {
        return Duration.ofSeconds(5);
    }

    /**
     * The port on which a node's followers fetch from it (Kafka's inter-broker listener, which in ZooKeeper mode also
     * carries the controller's requests to the broker), so a fault can cut replication alone.
     */
    default int replicationPort() {
        return KafkaProtocolSut.PORT;
    }

    /**
     * Every port on which the nodes talk to each other (client listener, replication listener, controller and consensus
     * ports, a ZooKeeper ensemble's), so faults on the links between nodes (slow or lossy links) reach all of it.
     */
    default List<Integer> peerPorts() {
        return java.util.stream.Stream.of(KafkaProtocolSut.PORT, replicationPort()).distinct().toList();
    }

    /**
     * Whether the Metadata response lists a partition's replicas in assignment order, the order in which a clean
     * election picks the first live in-sync replica (false: in some other order; the ISR as first written, in
     * assignment order, is then the best the cluster tells).
     */
    default boolean metadataKeepsReplicaOrder() {
        return true;
    }

    /** Paths inside a node worth copying out after a run: logs and data directories. */
    List<String> collectedPaths();
}
