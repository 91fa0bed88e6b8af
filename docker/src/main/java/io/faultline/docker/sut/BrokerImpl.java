package io.faultline.docker.sut;

import io.faultline.docker.Cluster;
import io.faultline.docker.Node;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Our own broker (module broker-impl) as a system under test, written as a bundled broker descriptor
 * (resources io/faultline/docker/suts/broker-impl: image, start command, server.properties template, ports) like any
 * broker a user brings (docs/your-broker.md). N nodes, each a broker; the first three (or all, when fewer) also vote
 * in the metadata quorum, the others follow it as Ratis listeners. Three listeners per node: CLIENT (9092, what
 * clients bootstrap from), REPLICATION (9091) and CONTROLLER (9093; its Raft port is +1000). This class adds only
 * what a descriptor cannot say: a mutant's jar run in place of the built one.
 */
public final class BrokerImpl extends DescribedBroker implements ControllerAware {
    /** The class-path folder of the bundled descriptor. */
    static final String DESCRIPTOR = "io/faultline/docker/suts/broker-impl";
    public static final int REPLICATION_PORT = 9091;
    public static final int CONTROLLER_PORT = 9093;
    private static volatile BrokerDescriptor bundled;

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
        super(descriptorChecked(brokerJar), settings);
        this.brokerJar = brokerJar;
    }

    private static BrokerDescriptor descriptorChecked(Path brokerJar) {
        if (brokerJar != null && !Files.isRegularFile(brokerJar)) {
            throw new IllegalArgumentException("--broker-jar: no such file " + brokerJar);
        }
        return bundledDescriptor();
    }

    /** The bundled descriptor, read (and checked) once. */
    public static BrokerDescriptor bundledDescriptor() {
        BrokerDescriptor d = bundled;
        if (d == null) bundled = d = BrokerDescriptor.bundled(DESCRIPTOR, BrokerImpl.class.getClassLoader());
        return d;
    }

    /** The built-in system keeps its own image name: faultline/broker-impl:HASH. */
    @Override
    protected String imageName() {
        return "broker-impl";
    }

    /** The broker's jars, with a mutant's jar in place of the built one when this runs one. */
    @Override
    protected Path contextFolder(String in, String source) {
        Path folder = super.contextFolder(in, source);
        return brokerJar != null && BrokerDescriptor.BROKER_IMPL_JARS.equals(source) ? libsWith(folder, brokerJar) : folder;
    }

    @Override
    public Optional<Node> activeController(Cluster cluster) {
        return describedController(cluster);
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
}
