package io.faultline.docker.sut;

import io.faultline.docker.Cluster;
import io.faultline.docker.Node;
import io.faultline.docker.NodeAddress;
import io.faultline.docker.NodeImage;
import io.faultline.docker.NodeSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;

/**
 * Our own broker (module broker-impl) as a system under test: N nodes, each a broker; the first three (or all, when
 * fewer) also vote in the metadata quorum, the others follow it as Ratis listeners. Three listeners per node:
 * CLIENT (9092, what clients bootstrap from), REPLICATION (9091) and CONTROLLER (9093; its Raft port is +1000).
 */
public final class BrokerImpl extends KafkaProtocolSut implements ControllerAware {
    /** broker-impl's followers fetch on a listener of their own. */
    @Override
    public int replicationPort() {
        return REPLICATION_PORT;
    }

    private static final String RESOURCES = "/io/faultline/docker/images/broker-impl/";
    public static final int REPLICATION_PORT = 9091;
    public static final int CONTROLLER_PORT = 9093;
    private static final int QUORUM_SIZE = 3;

    private final KafkaSettings settings;
    /** A broker-impl jar to run instead of the built one (a mutant's), or null. */
    private final Path brokerJar;

    public BrokerImpl(KafkaSettings settings) {
        this(settings, null);
    }

    /**
     * Runs {@code brokerJar} in place of the built broker-impl jar, with the same runtime dependencies. The image's
     * tag is the hash of its build context, so every distinct jar gets (and caches) its own image.
     */
    public BrokerImpl(KafkaSettings settings, Path brokerJar) {
        if (brokerJar != null && !Files.isRegularFile(brokerJar)) {
            throw new IllegalArgumentException("--broker-jar: no such file " + brokerJar);
        }
        this.settings = settings;
        this.brokerJar = brokerJar;
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
                .withDirectory("libs", brokerJar == null ? libsDirectory() : libsWith(libsDirectory(), brokerJar))
                .build();
    }

    /** The jar this broker runs in place of the built one, if any. */
    public Optional<Path> brokerJar() {
        return Optional.ofNullable(brokerJar);
    }

    /**
     * A copy of {@code libs} with broker-impl's jar replaced by {@code jar}, in a folder named by the jar's hash
     * (made once, reused by every run of that jar).
     */
    static Path libsWith(Path libs, Path jar) {
        try {
            String hash = java.util.HexFormat.of().formatHex(
                    java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(jar)), 0, 8);
            Path dir = Path.of(System.getProperty("java.io.tmpdir"), "faultline-broker-libs-" + hash);
            if (Files.isDirectory(dir)) return dir;
            Path staging = Files.createTempDirectory(dir.getParent(), dir.getFileName() + ".staging-");
            int replaced = 0;
            try (var files = Files.list(libs)) {
                for (Path f : files.toList()) {
                    String name = f.getFileName().toString();
                    Path target = staging.resolve(name);
                    if (isBrokerJar(f)) {
                        Files.copy(jar, target);
                        replaced++;
                    } else {
                        Files.copy(f, target);
                    }
                }
            }
            if (replaced != 1) {
                throw new IllegalStateException(libs + " holds " + replaced + " broker-impl jars, not one");
            }
            try {
                Files.move(staging, dir, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            } catch (java.nio.file.FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException raced) {
                // another run of the same jar made it first: same content
            }
            return dir;
        } catch (java.io.IOException | java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot stage broker-impl libs with " + jar + ": " + e, e);
        }
    }

    /** docker/target/broker-impl-libs (copied by Maven), or -Dfaultline.broker.libs: the built broker and its dependencies. */
    public static Path libsDirectory() {
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

    /** Whether a file of the libs folder is broker-impl's own jar (not one of its dependencies). */
    public static boolean isBrokerJar(Path file) {
        String name = file.getFileName().toString();
        return name.startsWith("broker-impl-") && name.endsWith(".jar");
    }

    @Override
    public NodeSpec nodeSpec(String image, NodeAddress self, List<NodeAddress> all) {
        String jvm = settings.jvmOptions();
        return NodeSpec.of(image, List.of("/opt/broker/bin/broker-node")).withEnv(Map.of("BROKER_JVM_OPTS", jvm));
    }

    private static boolean isVoter(NodeAddress a) {
        return a.index() <= QUORUM_SIZE;
    }

    private static String quorum(List<NodeAddress> nodes) {
        return nodes.stream().map(a -> a.index() + "@" + a.ip() + ":" + CONTROLLER_PORT).collect(Collectors.joining(","));
    }

    String serverProperties(NodeAddress self, List<NodeAddress> all) {
        var sb = new StringBuilder("# written by Faultline for ").append(self.name()).append('\n');
        sb.append("node.id=").append(self.index()).append('\n');
        sb.append("process.roles=").append(isVoter(self) ? "broker,controller" : "broker").append('\n');
        sb.append("listeners=CLIENT://0.0.0.0:").append(PORT).append(",REPLICATION://0.0.0.0:").append(REPLICATION_PORT)
                .append(",CONTROLLER://0.0.0.0:").append(CONTROLLER_PORT).append('\n');
        sb.append("advertised.listeners=CLIENT://").append(self.ip()).append(':').append(PORT)
                .append(",REPLICATION://").append(self.ip()).append(':').append(REPLICATION_PORT).append('\n');
        sb.append("listener.security.protocol.map=CLIENT:PLAINTEXT,REPLICATION:PLAINTEXT,CONTROLLER:PLAINTEXT\n");
        sb.append("inter.broker.listener.name=REPLICATION\n");
        sb.append("controller.listener.names=CONTROLLER\n");
        sb.append("controller.quorum.voters=").append(quorum(all.stream().filter(BrokerImpl::isVoter).toList()))
                .append('\n');
        List<NodeAddress> followers = all.stream().filter(a -> !isVoter(a)).toList();
        if (!followers.isEmpty()) sb.append("faultline.quorum.listeners=").append(quorum(followers)).append('\n');
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

    /** The active controller as the brokers report it (DescribeCluster names it). */
    @Override
    public Optional<Node> activeController(Cluster cluster) {
        try (Admin admin = KafkaAdmin.create(bootstrapServers(cluster))) {
            org.apache.kafka.common.Node c = admin.describeCluster().controller().get(10, TimeUnit.SECONDS);
            return c == null || c.isEmpty() ? Optional.empty() : nodeByBrokerId(cluster, c.id());
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    @Override
    protected String serverLogPath() {
        return null; // the broker logs to its console, collected as console.log
    }
}
