package io.faultline.docker.sut;

import io.faultline.docker.Cluster;
import io.faultline.docker.Node;
import io.faultline.docker.NodeAddress;
import io.faultline.docker.NodeImage;
import io.faultline.docker.NodeSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Real Apache Kafka in KRaft mode: nodes n1..n3 are combined broker+controller (the metadata quorum), any
 * further node is a broker only. node.id = the node's index. Clients on the host reach each broker on its
 * fixed address, port 9092.
 */
public final class ApacheKafka extends KafkaProtocolSut implements ControllerAware {
    public static final String VERSION = "4.4.0";
    public static final int CONTROLLER_PORT = 9093;
    private static final String RESOURCES = "/io/faultline/docker/images/apache-kafka/";
    private static final int QUORUM_SIZE = 3;

    private final KafkaSettings settings;
    private final String clusterId = Uuid.randomUuid().toString();

    public ApacheKafka(KafkaSettings settings) {
        this.settings = settings;
    }

    public KafkaSettings settings() {
        return settings;
    }

    @Override
    public String name() {
        return "apache-kafka";
    }

    @Override
    public String version() {
        return VERSION;
    }

    @Override
    public String buildImage() {
        return NodeImage.named("apache-kafka")
                .withBuildArg("NODE_IMAGE", NodeImage.common().build())
                .withClasspathFile("Dockerfile", RESOURCES + "Dockerfile")
                .withClasspathFile("kafka-node", RESOURCES + "kafka-node")
                .withClasspathFile("log4j2.properties", RESOURCES + "log4j2.properties")
                .withDirectory("libs", libsDirectory())
                .build();
    }

    /** The jars Maven copied from Central: docker/target/apache-kafka-libs, or -Dfaultline.kafka.libs. */
    static Path libsDirectory() {
        String explicit = System.getProperty("faultline.kafka.libs");
        if (explicit != null) return Path.of(explicit);
        String root = System.getProperty("faultline.projectRoot");
        for (Path dir = root != null ? Path.of(root) : Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path libs = dir.resolve("docker/target/apache-kafka-libs");
            if (Files.isRegularFile(libs.resolve("kafka_2.13-" + VERSION + ".jar"))) return libs;
        }
        throw new IllegalStateException("Apache Kafka jars not found: build the project first (./mvnw -pl docker"
                + " process-resources) or pass -Dfaultline.kafka.libs=DIR");
    }

    private static boolean isController(NodeAddress a) {
        return a.index() <= QUORUM_SIZE;
    }

    @Override
    public NodeSpec nodeSpec(String image, NodeAddress self, List<NodeAddress> all) {
        String jvm = settings.jvmOptions() + " -Djava.awt.headless=true";
        return NodeSpec.of(image, List.of("/opt/kafka/bin/kafka-node")).withEnv(Map.of("KAFKA_JVM_OPTS", jvm));
    }

    /** server.properties of one node. */
    String serverProperties(NodeAddress self, List<NodeAddress> all) {
        var sb = new StringBuilder("# written by Faultline for ").append(self.name()).append('\n');
        String voters = all.stream().filter(ApacheKafka::isController)
                .map(a -> a.index() + "@" + a.ip() + ":" + CONTROLLER_PORT).collect(Collectors.joining(","));
        boolean controller = isController(self);
        sb.append("node.id=").append(self.index()).append('\n');
        sb.append("process.roles=").append(controller ? "broker,controller" : "broker").append('\n');
        sb.append("controller.quorum.voters=").append(voters).append('\n');
        sb.append("listeners=PLAINTEXT://0.0.0.0:").append(PORT)
                .append(controller ? ",CONTROLLER://0.0.0.0:" + CONTROLLER_PORT : "").append('\n');
        sb.append("advertised.listeners=PLAINTEXT://").append(self.ip()).append(':').append(PORT).append('\n');
        sb.append("controller.listener.names=CONTROLLER\n");
        sb.append("listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT\n");
        sb.append("inter.broker.listener.name=PLAINTEXT\n");
        sb.append("log.dirs=").append(logDirectory()).append('\n');
        sb.append("num.partitions=1\n");
        settings.brokerProperties(all.size()).forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        return sb.toString();
    }

    @Override
    public void configure(Node node, List<NodeAddress> all) {
        NodeAddress self = all.stream().filter(a -> a.name().equals(node.name())).findFirst().orElseThrow();
        node.writeString("/opt/kafka/config/server.properties", serverProperties(self, all));
        node.writeString("/opt/kafka/config/cluster-id", clusterId + "\n");
    }

    @Override
    public List<String> collectedPaths() {
        return List.of("/logs", "/data", "/opt/kafka/config/server.properties");
    }

    @Override
    public String logDirectory() {
        return "/data/kafka";
    }

    @Override
    public Optional<Node> activeController(Cluster cluster) {
        try (Admin admin = KafkaAdmin.create(bootstrapServers(cluster))) {
            int id = admin.describeMetadataQuorum().quorumInfo().get(10, TimeUnit.SECONDS).leaderId();
            return nodeByBrokerId(cluster, id);
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    @Override
    protected String serverLogPath() {
        return "/logs/server.log";
    }
}
