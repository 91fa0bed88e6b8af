package io.faultline.docker.sut;

import io.faultline.docker.NodeAddress;
import io.faultline.kafkacompat.KafkaClientLine;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A Kafka-protocol broker described by a small properties file instead of a Java class ("bring your own broker"):
 * its node image (a Dockerfile folder), start command, per-node configuration templates, client port, how readiness,
 * leaders and the controller are found, and what to copy out after a run. {@link #load} checks every field and every
 * template (rendered once against a sample three-node cluster), so a bad descriptor is one line naming the field
 * before any container starts. Run by {@link DescribedBroker}; the format is in docs/your-broker.md.
 *
 * @param source       the descriptor file, for messages
 * @param dockerfile   folder holding the Dockerfile and its context
 * @param context      further build-context folders by their name in the context (e.g. "libs"): a host folder,
 *                     apache-kafka-jars:VERSION for that release's jars from Maven Central (fetched when first built),
 *                     or broker-impl-jars for this project's built broker-impl and its dependencies
 * @param replicationPort the port followers fetch on (a separate inter-broker listener), so a fault can cut
 *                     replication alone; the client port when the broker has one port for everything
 * @param peerPorts    every port the nodes talk to each other on (link faults route and slow all of them)
 * @param configs      node path -> template text, written into every node before it starts
 * @param env          environment variable -> template text
 * @param collect      paths inside a node copied out after a run
 * @param logFile      the node's main log, whose tail explains a node that does not come up; null: its console
 */
public record BrokerDescriptor(Path source, String name, String version, Path dockerfile, Map<String, String> context,
                               List<String> start, Map<String, String> configs, Map<String, String> env, int port,
                               int replicationPort, List<Integer> peerPorts, int quorumSize, Readiness ready,
                               boolean leaders, Controller controller, String dataDir, String logFile,
                               List<String> collect, boolean transactions, KafkaClientLine clientLine,
                               Duration stopGrace) {

    public BrokerDescriptor {
        context = Map.copyOf(context);
        start = List.copyOf(start);
        configs = Map.copyOf(configs);
        env = Map.copyOf(env);
        collect = List.copyOf(collect);
        peerPorts = List.copyOf(peerPorts);
    }

    /** How the harness decides the cluster serves clients. */
    public enum Readiness {
        /** Every node is listed as a broker by the Admin API (DescribeCluster). */
        ADMIN,
        /** Every node accepts TCP connections on the client port (for brokers without DescribeCluster). */
        PORT
    }

    /** How the active controller is found, for faults aimed at it. */
    public enum Controller {
        /** The KRaft metadata quorum's leader (DescribeMetadataQuorum). */
        QUORUM,
        /** The controller id of the Metadata response (ZooKeeper-mode Kafka's active controller). */
        METADATA,
        /** None: controller-aimed faults are refused for this system. */
        NONE
    }

    /** The prefix `--sut` takes a descriptor path with. */
    public static final String SUT_PREFIX = "file:";

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]*");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Set<String> SCALAR_FIELDS = Set.of("name", "version", "image.dockerfile", "start", "port",
            "replication.port", "peer.ports", "quorum.size", "ready", "leader", "controller", "data.dir", "log.file",
            "collect", "transactions", "client", "stop.grace.seconds");
    private static final List<String> PREFIX_FIELDS = List.of("image.context.", "config.", "env.");
    /** A build-context source that is an Apache Kafka release's jars from Maven Central (cached). */
    private static final String KAFKA_JARS = "apache-kafka-jars:";
    /** A build-context source that is this project's built broker-impl jar and its dependencies. */
    static final String BROKER_IMPL_JARS = "broker-impl-jars";
    /** The descriptor file of a bundled (built-in) system, inside its resource folder. */
    static final String DESCRIPTOR_FILE = "broker.properties";

    /** Reads and checks a descriptor; every problem is an IllegalArgumentException of one line naming the field. */
    public static BrokerDescriptor load(Path file) {
        Path path = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(path)) throw new IllegalArgumentException("broker descriptor " + file + ": no such file");
        var p = new Properties();
        try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("broker descriptor " + file + ": cannot be read: " + e.getMessage());
        }
        var f = new Fields(path, p);
        for (String key : new TreeMap<>(f.raw).keySet()) {
            if (!SCALAR_FIELDS.contains(key) && PREFIX_FIELDS.stream().noneMatch(key::startsWith)) {
                throw f.error(key, "unknown field (known: " + String.join(", ", new java.util.TreeSet<>(SCALAR_FIELDS))
                        + ", image.context.NAME, config.PATH, env.NAME)");
            }
        }
        String name = f.required("name");
        if (!NAME.matcher(name).matches()) throw f.error("name", "must be lower case letters, digits, '.', '_' or '-', got '" + name + "'");
        String version = f.required("version");
        Path dockerfile = f.folder("image.dockerfile", f.required("image.dockerfile"));
        if (!Files.isRegularFile(dockerfile.resolve("Dockerfile"))) {
            throw f.error("image.dockerfile", "no Dockerfile in " + dockerfile);
        }
        var context = new TreeMap<String, String>();
        for (String key : f.withPrefix("image.context.")) {
            String in = key.substring("image.context.".length());
            if (in.isEmpty() || in.startsWith("/") || in.contains("..")) throw f.error(key, "the name in the build context must be a relative path");
            String value = f.raw.get(key);
            if (value.startsWith(KAFKA_JARS)) {
                try {
                    KafkaVersion.parse(value.substring(KAFKA_JARS.length()));
                } catch (RuntimeException e) {
                    throw f.error(key, e.getMessage());
                }
                context.put(in, value);
            } else if (value.equals(BROKER_IMPL_JARS)) {
                context.put(in, value);
            } else {
                context.put(in, f.folder(key, value).toString());
            }
        }
        List<String> start = List.of(f.required("start").trim().split("\\s+"));
        int port = f.integer("port", 9092, 1, 65535);
        int replicationPort = f.integer("replication.port", port, 1, 65535);
        List<Integer> peerPorts = f.ports("peer.ports", java.util.stream.Stream.of(port, replicationPort).distinct().toList());
        int quorumSize = f.integer("quorum.size", 3, 1, 99);
        Readiness ready = f.choice("ready", Readiness.ADMIN, Readiness.class);
        boolean leaders = f.choice("leader", "metadata", List.of("metadata", "none")).equals("metadata");
        Controller controller = f.choice("controller", Controller.NONE, Controller.class);
        String dataDir = f.nodePath("data.dir", f.required("data.dir"));
        String logFile = f.raw.containsKey("log.file") ? f.nodePath("log.file", f.raw.get("log.file")) : null;
        var configs = new LinkedHashMap<String, String>();
        for (String key : f.withPrefix("config.")) {
            String nodePath = f.nodePath(key, key.substring("config.".length()));
            Path template = f.resolve(f.raw.get(key));
            if (!Files.isRegularFile(template)) throw f.error(key, "template " + f.raw.get(key) + " not found (" + template + ")");
            try {
                configs.put(nodePath, Files.readString(template, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw f.error(key, "template " + template + " cannot be read: " + e.getMessage());
            }
        }
        var env = new LinkedHashMap<String, String>();
        for (String key : f.withPrefix("env.")) {
            String var = key.substring("env.".length());
            if (!ENV_NAME.matcher(var).matches()) throw f.error(key, "'" + var + "' is not an environment variable name");
            env.put(var, f.raw.get(key));
        }
        var collect = new ArrayList<String>();
        if (f.raw.containsKey("collect")) {
            for (String c : f.raw.get("collect").split(",")) if (!c.isBlank()) collect.add(f.nodePath("collect", c.strip()));
        } else {
            collect.add(dataDir);
            if (logFile != null) collect.add(logFile);
            collect.addAll(configs.keySet());
        }
        boolean transactions = f.choice("transactions", "true", List.of("true", "false")).equals("true");
        KafkaClientLine client = f.choice("client", KafkaClientLine.CURRENT, KafkaClientLine.class);
        Duration stopGrace = Duration.ofSeconds(f.integer("stop.grace.seconds", 5, 1, 600));
        var d = new BrokerDescriptor(path, name, version, dockerfile, context, start, configs, env, port, replicationPort,
                peerPorts, quorumSize, ready, leaders, controller, dataDir, logFile, collect, transactions, client, stopGrace);
        d.checkTemplates(f);
        return d;
    }

    /** The rendering context of one node. */
    public NodeTemplate.Values values(NodeAddress self, List<NodeAddress> all, KafkaSettings settings, String clusterId) {
        return new NodeTemplate.Values(self, all, port, quorumSize, clusterId, settings);
    }

    /** The rendering context of one node, with the broker properties {@code ${broker.properties}} writes. */
    public NodeTemplate.Values values(NodeAddress self, List<NodeAddress> all, KafkaSettings settings,
                                      Map<String, String> brokerProperties, String clusterId) {
        return new NodeTemplate.Values(self, all, port, quorumSize, clusterId, settings, brokerProperties);
    }

    /**
     * The same system at another Apache Kafka release: that version, and that release's jars wherever this one's
     * build context names Apache Kafka jars (how the bundled apache-kafka descriptors serve every release).
     */
    public BrokerDescriptor forRelease(KafkaVersion release) {
        var ctx = new TreeMap<String, String>();
        context.forEach((in, source) -> ctx.put(in, source.startsWith(KAFKA_JARS) ? KAFKA_JARS + release.text() : source));
        return new BrokerDescriptor(source, name, release.text(), dockerfile, ctx, start, configs, env, port,
                replicationPort, peerPorts, quorumSize, ready, leaders, controller, dataDir, logFile, collect, transactions,
                release.clientLine(), stopGrace);
    }

    /** Renders every template and variable once for node n1 of a three-node cluster: placeholder errors surface now. */
    private void checkTemplates(Fields f) {
        var all = List.of(new NodeAddress("n1", 1, "10.0.0.1"), new NodeAddress("n2", 2, "10.0.0.2"),
                new NodeAddress("n3", 3, "10.0.0.3"));
        var sample = values(all.get(0), all, KafkaSettings.defaults(), "sample-cluster-id");
        for (var e : configs.entrySet()) {
            try {
                NodeTemplate.render(e.getValue(), sample);
            } catch (IllegalArgumentException bad) {
                throw f.error("config." + e.getKey(), bad.getMessage());
            }
        }
        for (var e : env.entrySet()) {
            try {
                NodeTemplate.render(e.getValue(), sample);
            } catch (IllegalArgumentException bad) {
                throw f.error("env." + e.getKey(), bad.getMessage());
            }
        }
    }

    /** The host folder a build-context entry stands for; Apache Kafka jars are fetched now if not cached. */
    public static Path contextFolder(String source) {
        if (source.startsWith(KAFKA_JARS)) {
            return KafkaDistribution.libs(KafkaVersion.parse(source.substring(KAFKA_JARS.length())));
        }
        if (source.equals(BROKER_IMPL_JARS)) return BrokerImpl.libsDirectory();
        return Path.of(source);
    }

    /**
     * A descriptor shipped inside the harness (a built-in system): {@code folder}/broker.properties on the class path
     * of {@code loader}, read in place whether the folder is a directory or inside a jar.
     */
    public static BrokerDescriptor bundled(String folder, ClassLoader loader) {
        String resource = folder + "/" + DESCRIPTOR_FILE;
        java.net.URL url = loader.getResource(resource);
        if (url == null) throw new IllegalStateException("no bundled broker descriptor " + resource + " on the class path");
        try {
            java.net.URI uri = url.toURI();
            if (!"jar".equals(uri.getScheme())) return load(Path.of(uri));
            return load(jarFileSystem(uri).provider().getPath(uri));
        } catch (java.net.URISyntaxException | IOException e) {
            throw new IllegalStateException("cannot read bundled broker descriptor " + url + ": " + e, e);
        }
    }

    /** The (shared, never closed) file system of the jar a resource lives in. */
    private static synchronized java.nio.file.FileSystem jarFileSystem(java.net.URI uri) throws IOException {
        try {
            return java.nio.file.FileSystems.getFileSystem(uri);
        } catch (java.nio.file.FileSystemNotFoundException notYet) {
            return java.nio.file.FileSystems.newFileSystem(uri, Map.of());
        }
    }

    /** The raw key/value pairs and the one-line errors that name their field. */
    private record Fields(Path file, Map<String, String> raw) {
        Fields(Path file, Properties p) {
            this(file, toMap(p));
        }

        private static Map<String, String> toMap(Properties p) {
            var m = new LinkedHashMap<String, String>();
            for (String k : p.stringPropertyNames()) m.put(k, p.getProperty(k).strip());
            return m;
        }

        IllegalArgumentException error(String field, String problem) {
            return new IllegalArgumentException("broker descriptor " + file.getFileName() + ": " + field + ": " + problem);
        }

        String required(String key) {
            String v = raw.get(key);
            if (v == null || v.isEmpty()) throw error(key, "missing (required)");
            return v;
        }

        List<String> withPrefix(String prefix) {
            return raw.keySet().stream().filter(k -> k.startsWith(prefix)).sorted().toList();
        }

        Path resolve(String value) {
            return file.getParent().resolve(value).normalize();
        }

        Path folder(String key, String value) {
            Path dir = resolve(value);
            if (!Files.isDirectory(dir)) throw error(key, "no such folder " + value + " (" + dir + ")");
            return dir;
        }

        String nodePath(String key, String value) {
            if (!value.startsWith("/") || value.contains("..")) throw error(key, "must be an absolute path inside the node, got '" + value + "'");
            return value;
        }

        int integer(String key, int dflt, int min, int max) {
            String v = raw.get(key);
            if (v == null) return dflt;
            try {
                int i = Integer.parseInt(v);
                if (i >= min && i <= max) return i;
            } catch (NumberFormatException notANumber) {
                // reported below
            }
            throw error(key, "must be a whole number in " + min + ".." + max + ", got '" + v + "'");
        }

        /** A comma-separated list of ports (none repeated), else the default. */
        List<Integer> ports(String key, List<Integer> dflt) {
            String v = raw.get(key);
            if (v == null) return dflt;
            var out = new ArrayList<Integer>();
            for (String part : v.split(",")) {
                try {
                    int port = Integer.parseInt(part.strip());
                    if (port >= 1 && port <= 65535 && !out.contains(port)) {
                        out.add(port);
                        continue;
                    }
                } catch (NumberFormatException notANumber) {
                    // reported below
                }
                throw error(key, "must be distinct ports in 1..65535, separated by commas, got '" + v + "'");
            }
            return out;
        }

        String choice(String key, String dflt, List<String> allowed) {
            String v = raw.getOrDefault(key, dflt).toLowerCase(Locale.ROOT);
            if (!allowed.contains(v)) throw error(key, "must be " + String.join(" or ", allowed) + ", got '" + raw.get(key) + "'");
            return v;
        }

        <E extends Enum<E>> E choice(String key, E dflt, Class<E> type) {
            var names = java.util.Arrays.stream(type.getEnumConstants()).map(c -> c.name().toLowerCase(Locale.ROOT)).toList();
            String v = choice(key, dflt.name().toLowerCase(Locale.ROOT), names);
            return Enum.valueOf(type, v.toUpperCase(Locale.ROOT));
        }
    }
}
