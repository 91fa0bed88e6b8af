package io.faultline.docker.sut;

import io.faultline.docker.Cluster;
import io.faultline.docker.Node;
import io.faultline.docker.sut.KafkaVersion.Metadata;
import io.faultline.kafkacompat.KafkaClientLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Real Apache Kafka at any release on Maven Central, written as two bundled broker descriptors (resources
 * io/faultline/docker/suts/apache-kafka for KRaft mode, suts/apache-kafka-zk for ZooKeeper mode) like any broker a user
 * brings (docs/your-broker.md). In KRaft mode nodes n1..n3 are combined broker+controller (the metadata quorum) and
 * any further node is a broker only. In ZooKeeper mode (releases before 4.0) nodes n1..n3 also run a ZooKeeper server
 * each (QuorumPeerMain from the release's own zookeeper jar), forming the ensemble, so a fault on a node hits its
 * ZooKeeper server too, as on a machine running both. node.id/broker.id = the node's index. This class adds what a
 * descriptor does not say: which descriptor and jars a release takes, its client line, and the settings a
 * ZooKeeper-mode release does not know (left out rather than written).
 */
public final class ApacheKafka extends DescribedBroker implements ControllerAware {
    /** The reference release: plain `--sut apache-kafka`, its jars copied by this module's build. */
    public static final String VERSION = "4.4.0";
    public static final int CONTROLLER_PORT = 9093;
    public static final int ZOOKEEPER_PORT = 2181;
    static final String KRAFT_DESCRIPTOR = "io/faultline/docker/suts/apache-kafka";
    static final String ZOOKEEPER_DESCRIPTOR = "io/faultline/docker/suts/apache-kafka-zk";
    private static final Map<Metadata, BrokerDescriptor> BUNDLED = new java.util.concurrent.ConcurrentHashMap<>();

    private final KafkaVersion version;
    private final Metadata metadata;

    /** The reference release in KRaft mode. */
    public ApacheKafka(KafkaSettings settings) {
        this(settings, KafkaVersion.parse(VERSION), null);
    }

    /** A release in the given metadata mode (null: the release's own default); a mode it lacks is a one-line error. */
    public ApacheKafka(KafkaSettings settings, KafkaVersion version, Metadata metadata) {
        super(bundledDescriptor(version.metadata(metadata)).forRelease(version), settings);
        this.version = version;
        this.metadata = version.metadata(metadata);
    }

    /** The bundled descriptor of a metadata mode, read (and checked) once. */
    static BrokerDescriptor bundledDescriptor(Metadata mode) {
        return BUNDLED.computeIfAbsent(mode, m -> BrokerDescriptor.bundled(
                m == Metadata.ZK ? ZOOKEEPER_DESCRIPTOR : KRAFT_DESCRIPTOR, ApacheKafka.class.getClassLoader()));
    }

    public Metadata metadata() {
        return metadata;
    }

    public KafkaVersion kafkaVersion() {
        return version;
    }

    @Override
    public boolean metadataKeepsReplicaOrder() {
        return version.metadataKeepsReplicaOrder();
    }

    @Override
    public String version() {
        return version.text() + (metadata == version.defaultMetadata() ? "" : " (" + metadata.flag() + ")");
    }

    @Override
    public KafkaClientLine clientLine() {
        return version.clientLine();
    }

    /** faultline/apache-kafka for the reference release, faultline/apache-kafka-VERSION for the others. */
    @Override
    protected String imageName() {
        return version.text().equals(VERSION) ? "apache-kafka" : "apache-kafka-" + version.text();
    }

    /** A ZooKeeper-mode release gets only the settings it knows; KRaft releases get them all. */
    @Override
    protected Map<String, String> brokerProperties(int clusterSize) {
        return metadata == Metadata.ZK ? KafkaConfigTemplates.brokerProperties(version, settings(), clusterSize)
                : super.brokerProperties(clusterSize);
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

    /**
     * The active controller: in KRaft the metadata quorum's leader; in ZooKeeper mode the broker the Metadata
     * response names (the holder of ZooKeeper's /controller znode, as the brokers know it).
     */
    @Override
    public Optional<Node> activeController(Cluster cluster) {
        return describedController(cluster);
    }
}
