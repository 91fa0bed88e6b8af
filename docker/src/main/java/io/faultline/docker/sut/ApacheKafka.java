package io.faultline.docker.sut;

import io.faultline.docker.Cluster;
import io.faultline.docker.Node;
import io.faultline.docker.NodeAddress;
import io.faultline.docker.NodeImage;
import io.faultline.docker.NodeSpec;
import io.faultline.docker.sut.KafkaVersion.Metadata;
import io.faultline.kafkacompat.ClusterAdmin;
import io.faultline.kafkacompat.KafkaClientLine;
import org.apache.kafka.common.Uuid;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Real Apache Kafka at any release on Maven Central. In KRaft mode nodes n1..n3 are combined broker+controller (the
 * metadata quorum) and any further node is a broker only. In ZooKeeper mode (releases before 4.0) nodes n1..n3 also
 * run a ZooKeeper server each (QuorumPeerMain from the release's own zookeeper jar), forming the ensemble, so a
 * fault on a node hits its ZooKeeper server too, as on a machine running both. node.id/broker.id = the node's index.
 * Clients on the host reach each broker on its fixed address, port 9092.
 */
public final class ApacheKafka extends KafkaProtocolSut implements ControllerAware {
    /** The reference release: plain `--sut apache-kafka`, its jars copied by this module's build. */
    public static final String VERSION = "4.4.0";
    public static final int CONTROLLER_PORT = 9093;
    public static final int ZOOKEEPER_PORT = 2181;
    private static final String RESOURCES = "/io/faultline/docker/images/apache-kafka/";
    private static final int QUORUM_SIZE = 3;

    private final KafkaSettings settings;
    private final KafkaVersion version;
    private final Metadata metadata;
    private final String clusterId = Uuid.randomUuid().toString();

    /** The reference release in KRaft mode. */
    public ApacheKafka(KafkaSettings settings) {
        this(settings, KafkaVersion.parse(VERSION), null);
    }

    /** A release in the given metadata mode (null: the release's own default); a mode it lacks is a one-line error. */
    public ApacheKafka(KafkaSettings settings, KafkaVersion version, Metadata metadata) {
        this.settings = settings;
        this.version = version;
        this.metadata = version.metadata(metadata);
    }

    public KafkaSettings settings() {
        return settings;
    }

    public Metadata metadata() {
        return metadata;
    }

    @Override
    public boolean metadataKeepsReplicaOrder() {
        return version.metadataKeepsReplicaOrder();
    }

    public KafkaVersion kafkaVersion() {
        return version;
    }

    @Override
    public String name() {
        return "apache-kafka";
    }

    @Override
    public String version() {
        return version.text() + (metadata == version.defaultMetadata() ? "" : " (" + metadata.flag() + ")");
    }

    @Override
    public KafkaClientLine clientLine() {
        return version.clientLine();
    }

    @Override
    public String buildImage() {
        String name = version.text().equals(VERSION) ? "apache-kafka" : "apache-kafka-" + version.text();
        return NodeImage.named(name)
                .withBuildArg("NODE_IMAGE", NodeImage.common().build())
                .withClasspathFile("Dockerfile", RESOURCES + "Dockerfile")
                .withClasspathFile("kafka-node", RESOURCES + "kafka-node")
                .withClasspathFile("log4j2.properties", RESOURCES + "log4j2.properties")
                .withClasspathFile("log4j.properties", RESOURCES + "log4j.properties")
                .withDirectory("libs", KafkaDistribution.libs(version))
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

    /** Members of the KRaft quorum or the ZooKeeper ensemble: the first three nodes. */
    private static boolean inQuorum(NodeAddress a) {
        return a.index() <= QUORUM_SIZE;
    }

    @Override
    public NodeSpec nodeSpec(String image, NodeAddress self, List<NodeAddress> all) {
        String jvm = settings.jvmOptions() + " -Djava.awt.headless=true";
        return NodeSpec.of(image, List.of("/opt/kafka/bin/kafka-node")).withEnv(Map.of("KAFKA_JVM_OPTS", jvm,
                "KAFKA_METADATA", metadata.flag(), "KAFKA_BROKER_ID", Integer.toString(self.index())));
    }

    /** server.properties of one node. */
    String serverProperties(NodeAddress self, List<NodeAddress> all) {
        return metadata == Metadata.ZK
                ? KafkaConfigTemplates.zooKeeperMode(version, settings, self, all, ZOOKEEPER_PORT, QUORUM_SIZE, logDirectory())
                : KafkaConfigTemplates.kraftMode(version, settings, self, all, CONTROLLER_PORT, QUORUM_SIZE, logDirectory());
    }

    @Override
    public void configure(Node node, List<NodeAddress> all) {
        NodeAddress self = all.stream().filter(a -> a.name().equals(node.name())).findFirst().orElseThrow();
        node.writeString("/opt/kafka/config/server.properties", serverProperties(self, all));
        node.writeString("/opt/kafka/config/cluster-id", clusterId + "\n");
        if (metadata == Metadata.ZK && inQuorum(self)) {
            node.writeString("/opt/kafka/config/zookeeper.properties",
                    KafkaConfigTemplates.zooKeeper(all, QUORUM_SIZE, ZOOKEEPER_PORT));
            node.writeString("/data/zookeeper/myid", self.index() + "\n");
        }
    }

    @Override
    public List<String> collectedPaths() {
        return List.of("/logs", "/data", "/opt/kafka/config/server.properties");
    }

    @Override
    public String logDirectory() {
        return "/data/kafka";
    }

    /**
     * The active controller: in KRaft the metadata quorum's leader; in ZooKeeper mode the broker the Metadata
     * response names (the holder of ZooKeeper's /controller znode, as the brokers know it).
     */
    @Override
    public Optional<Node> activeController(Cluster cluster) {
        try (ClusterAdmin admin = ClusterAdmin.open(bootstrapServers(cluster), clientLine())) {
            OptionalInt id = metadata == Metadata.KRAFT ? admin.quorumLeaderId() : admin.metadataControllerId();
            return id.isPresent() ? nodeByBrokerId(cluster, id.getAsInt()) : Optional.empty();
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    @Override
    protected String serverLogPath() {
        return "/logs/server.log";
    }
}
