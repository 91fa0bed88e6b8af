package io.faultline.docker.sut;

import io.faultline.docker.Node;
import io.faultline.docker.NodeAddress;
import io.faultline.docker.NodeImage;
import io.faultline.docker.NodeSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Our own broker (module broker-impl) as a system under test. Single node until replication lands: the
 * cluster must have exactly one node.
 */
public final class BrokerImpl extends KafkaProtocolSut {
    private static final String RESOURCES = "/io/faultline/docker/images/broker-impl/";

    private final KafkaSettings settings;

    public BrokerImpl(KafkaSettings settings) {
        this.settings = settings;
    }

    @Override
    public String name() {
        return "broker-impl";
    }

    @Override
    public String version() {
        return "0.1.0-SNAPSHOT";
    }

    @Override
    public String buildImage() {
        return NodeImage.named("broker-impl")
                .withBuildArg("NODE_IMAGE", NodeImage.common().build())
                .withClasspathFile("Dockerfile", RESOURCES + "Dockerfile")
                .withClasspathFile("broker-node", RESOURCES + "broker-node")
                .withDirectory("libs", libsDirectory())
                .build();
    }

    /** docker/target/broker-impl-libs (copied by Maven), or -Dfaultline.broker.libs. */
    static Path libsDirectory() {
        String explicit = System.getProperty("faultline.broker.libs");
        if (explicit != null) return Path.of(explicit);
        String root = System.getProperty("faultline.projectRoot");
        for (Path dir = root != null ? Path.of(root) : Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path libs = dir.resolve("docker/target/broker-impl-libs");
            if (Files.isDirectory(libs)) return libs;
        }
        throw new IllegalStateException("broker-impl jars not found: build the project first (./mvnw install"
                + " -DskipTests) or pass -Dfaultline.broker.libs=DIR");
    }

    @Override
    public NodeSpec nodeSpec(String image, NodeAddress self, List<NodeAddress> all) {
        if (all.size() != 1) {
            throw new IllegalArgumentException("broker-impl runs on exactly one node until replication lands (got "
                    + all.size() + ")");
        }
        String jvm = settings.jvmOptions();
        return NodeSpec.of(image, List.of("/opt/broker/bin/broker-node")).withEnv(Map.of("BROKER_JVM_OPTS", jvm));
    }

    String serverProperties(NodeAddress self, List<NodeAddress> all) {
        var sb = new StringBuilder("# written by Faultline for ").append(self.name()).append('\n');
        sb.append("node.id=").append(self.index()).append('\n');
        sb.append("listeners=PLAINTEXT://0.0.0.0:").append(PORT).append('\n');
        sb.append("advertised.listeners=PLAINTEXT://").append(self.ip()).append(':').append(PORT).append('\n');
        sb.append("log.dirs=").append(logDirectory()).append('\n');
        settings.brokerProperties(all.size()).forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        return sb.toString();
    }

    @Override
    public void configure(Node node, List<NodeAddress> all) {
        NodeAddress self = all.stream().filter(a -> a.name().equals(node.name())).findFirst().orElseThrow();
        node.writeString("/opt/broker/config/server.properties", serverProperties(self, all));
    }

    @Override
    public List<String> collectedPaths() {
        return List.of("/data", "/opt/broker/config/server.properties");
    }

    @Override
    public String logDirectory() {
        return "/data/broker";
    }

    @Override
    protected String serverLogPath() {
        return null; // the broker logs to its console, collected as console.log
    }
}
