package io.faultline.docker.sut;

import io.faultline.docker.Cluster;
import io.faultline.docker.Node;
import io.faultline.docker.NodeAddress;
import io.faultline.docker.NodeImage;
import io.faultline.docker.NodeSpec;
import io.faultline.kafkacompat.ClusterAdmin;
import io.faultline.kafkacompat.KafkaClientLine;
import org.apache.kafka.common.Uuid;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A system under test defined by a {@link BrokerDescriptor} file rather than a class of its own: `--sut
 * file:PATH`. Node n&lt;i&gt; is broker id i as for every Kafka-protocol system; leaders (and, when the descriptor names
 * a way, the active controller) come from the Admin API, which any Kafka-protocol broker answers.
 */
public class DescribedBroker extends KafkaProtocolSut {
    /** The descriptor's peer.ports: every port its nodes talk to each other on. */
    @Override
    public List<Integer> peerPorts() {
        return descriptor.peerPorts();
    }

    /** Where followers fetch: the descriptor's replication.port (its client port unless it names another). */
    @Override
    public int replicationPort() {
        return descriptor.replicationPort();
    }

    private final BrokerDescriptor descriptor;
    private final KafkaSettings settings;
    private final String clusterId = Uuid.randomUuid().toString();

    DescribedBroker(BrokerDescriptor descriptor, KafkaSettings settings) {
        this.descriptor = descriptor;
        this.settings = settings;
    }

    /** The system a descriptor describes; it can find the active controller only when the descriptor says how. */
    public static DescribedBroker of(BrokerDescriptor descriptor, KafkaSettings settings) {
        return descriptor.controller() == BrokerDescriptor.Controller.NONE
                ? new DescribedBroker(descriptor, settings) : new WithController(descriptor, settings);
    }

    public BrokerDescriptor descriptor() {
        return descriptor;
    }

    /** The run's settings the nodes are configured with. */
    public KafkaSettings settings() {
        return settings;
    }

    @Override
    public String name() {
        return descriptor.name();
    }

    @Override
    public String version() {
        return descriptor.version();
    }

    @Override
    public KafkaClientLine clientLine() {
        return descriptor.clientLine();
    }

    /** The image's repository under faultline/: byob-NAME for a brought broker (a built-in system names its own). */
    protected String imageName() {
        return "byob-" + descriptor.name();
    }

    /** The host folder of build-context entry {@code in}, from the descriptor's source for it. */
    protected Path contextFolder(String in, String source) {
        return BrokerDescriptor.contextFolder(source);
    }

    /** faultline/IMAGE-NAME:HASH from the descriptor's Dockerfile folder and context folders, on the common node layer. */
    @Override
    public String buildImage() {
        var image = NodeImage.named(imageName()).withBuildArg("NODE_IMAGE", NodeImage.common().build());
        Path dir = descriptor.dockerfile();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.filter(Files::isRegularFile).sorted().toList()) {
                image.withFile(dir.relativize(p).toString().replace('\\', '/'), Files.readAllBytes(p));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + dir + ": " + e.getMessage(), e);
        }
        descriptor.context().forEach((in, source) -> image.withDirectory(in, contextFolder(in, source)));
        return image.build();
    }

    private NodeTemplate.Values values(NodeAddress self, List<NodeAddress> all) {
        return descriptor.values(self, all, settings, brokerProperties(all.size()), clusterId);
    }

    /** What {@code ${broker.properties}} writes: the run's broker settings (a built-in system may filter them). */
    protected Map<String, String> brokerProperties(int clusterSize) {
        return settings.brokerProperties(clusterSize);
    }

    @Override
    public NodeSpec nodeSpec(String image, NodeAddress self, List<NodeAddress> all) {
        var env = new LinkedHashMap<String, String>();
        descriptor.env().forEach((k, t) -> env.put(k, NodeTemplate.render(t, values(self, all))));
        return NodeSpec.of(image, descriptor.start()).withEnv(env);
    }

    @Override
    public void configure(Node node, List<NodeAddress> all) {
        NodeAddress self = all.stream().filter(a -> a.name().equals(node.name())).findFirst().orElseThrow();
        descriptor.configs().forEach((path, t) -> node.writeString(path, NodeTemplate.render(t, values(self, all))));
    }

    /** The configuration a node gets, by path (for checks and documentation). */
    public Map<String, String> renderedConfigs(NodeAddress self, List<NodeAddress> all) {
        var out = new LinkedHashMap<String, String>();
        descriptor.configs().forEach((path, t) -> out.put(path, NodeTemplate.render(t, values(self, all))));
        return out;
    }

    @Override
    public void awaitReady(Cluster cluster, Duration timeout) {
        if (descriptor.ready() == BrokerDescriptor.Readiness.ADMIN) {
            super.awaitReady(cluster, timeout);
            return;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        var missing = new TreeSet<String>();
        Set<String> exited = Set.of();
        for (int round = 1; System.nanoTime() < deadline; round++) {
            missing.clear();
            for (Node n : cluster.nodes()) if (!accepts(n.ip(), descriptor.port())) missing.add(n.name());
            if (missing.isEmpty()) return;
            if (round % 8 == 0 && !(exited = exited(cluster)).isEmpty()) break;
            sleep(250);
        }
        var msg = new StringBuilder(name() + (exited.isEmpty() ? " did not come up within " + timeout.toSeconds() + " s: "
                : " did not come up: the program of " + exited + " exited while starting; ") + "port "
                + descriptor.port() + " closed on " + missing);
        for (String n : missing) msg.append("\n--- last lines of ").append(n).append(" ---\n").append(logTail(cluster.node(n), 30));
        throw new ClusterNotReadyException(msg.toString());
    }

    private static boolean accepts(String host, int port) {
        try (var s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 1000);
            return true;
        } catch (IOException closed) {
            return false;
        }
    }

    @Override
    public String bootstrapServers(Cluster cluster) {
        return cluster.nodes().stream().map(n -> n.ip() + ":" + descriptor.port()).collect(Collectors.joining(","));
    }

    @Override
    public Optional<Node> leaderOf(Cluster cluster, String topic, int partition) {
        return descriptor.leaders() ? super.leaderOf(cluster, topic, partition) : Optional.empty();
    }

    @Override
    public Duration stopGrace() {
        return descriptor.stopGrace();
    }

    /** The descriptor's first quorum.size nodes, as its templates place the quorum. */
    @Override
    public List<Node> quorumMembers(List<Node> nodes) {
        return nodes.subList(0, Math.min(descriptor.quorumSize(), nodes.size()));
    }

    @Override
    public List<String> collectedPaths() {
        return descriptor.collect();
    }

    @Override
    public String logDirectory() {
        return descriptor.dataDir();
    }

    @Override
    protected String serverLogPath() {
        return descriptor.logFile();
    }

    /**
     * The active controller the way the descriptor says to find it: the KRaft quorum's leader, or the controller the
     * Admin API's DescribeCluster (Metadata) names; empty when unknown or the descriptor names no way.
     */
    protected Optional<Node> describedController(Cluster cluster) {
        if (descriptor.controller() == BrokerDescriptor.Controller.NONE) return Optional.empty();
        try (ClusterAdmin admin = ClusterAdmin.open(bootstrapServers(cluster), clientLine())) {
            OptionalInt id = descriptor.controller() == BrokerDescriptor.Controller.QUORUM
                    ? admin.quorumLeaderId() : admin.metadataControllerId();
            return id.isPresent() ? nodeByBrokerId(cluster, id.getAsInt()) : Optional.empty();
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    /** A described broker whose active controller the Admin API names (the KRaft quorum leader or Metadata's). */
    static final class WithController extends DescribedBroker implements ControllerAware {
        WithController(BrokerDescriptor descriptor, KafkaSettings settings) {
            super(descriptor, settings);
        }

        @Override
        public Optional<Node> activeController(Cluster cluster) {
            return describedController(cluster);
        }
    }
}
