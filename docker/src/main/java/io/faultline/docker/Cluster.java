package io.faultline.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Network;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiFunction;

/**
 * N named nodes (n1..nN) on a network of their own with fixed addresses, so a restarted node keeps its IP.
 * Everything created is labelled with the run id and removed by {@link #close()}, by a shutdown hook if the
 * JVM exits first, or by the next process's start-up if this one was killed.
 */
public final class Cluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Cluster.class);
    /** libfaketime's offset file in every node (see node-run). */
    public static final String CLOCK_FILE = "/opt/faultline/clock/offset";
    private static final int FIRST_HOST = 11;
    /** Each node's console in its collected folder. */
    public static final String CONSOLE_FILE = "console.log";

    private final DockerClient client;
    private final String runId;
    private final String networkName;
    private final String subnet;
    private final Map<String, Node> nodes;
    private final Thread shutdownHook;
    private volatile boolean closed;

    private Cluster(DockerClient client, String runId, String networkName, String subnet, Map<String, Node> nodes) {
        this.client = client;
        this.runId = runId;
        this.networkName = networkName;
        this.subnet = subnet;
        this.nodes = nodes;
        this.shutdownHook = new Thread(this::close, "faultline-cluster-cleanup-" + runId);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    public static Builder builder() {
        return new Builder();
    }

    public String runId() {
        return runId;
    }

    public String networkName() {
        return networkName;
    }

    public String subnet() {
        return subnet;
    }

    public List<Node> nodes() {
        return List.copyOf(nodes.values());
    }

    /** Every node's name, index and fixed address. */
    public List<NodeAddress> addresses() {
        return nodes.values().stream()
                .map(n -> new NodeAddress(n.name(), Integer.parseInt(n.name().substring(1)), n.ip())).toList();
    }

    public Node node(String name) {
        Node n = nodes.get(name);
        if (n == null) throw new IllegalArgumentException("no node " + name + " in " + nodes.keySet());
        return n;
    }

    /** Starts every node at once. */
    public void startAll() {
        Concurrently.forEach(nodes.values(), "faultline-start", Node::start);
    }

    /**
     * Streams every node's console to hostDir/&lt;node&gt;/console.log as it is written (see {@link Node#streamConsoleTo}),
     * so {@link #collect} into the same folder finds it there. Best effort per node: a node that cannot stream is
     * fetched whole at collection instead.
     */
    public void streamConsoleLogsTo(Path hostDir) {
        for (Node n : nodes.values()) {
            try {
                n.streamConsoleTo(hostDir.resolve(n.name()).resolve(CONSOLE_FILE));
            } catch (Exception e) {
                LOG.warn("{}: cannot stream its console: {}", n.name(), e.toString());
            }
        }
    }

    /**
     * Copies each node's console log and the given paths to hostDir/&lt;node&gt;/, every node at once (each copy
     * waits on the engine, not on this machine's cores). Best effort per node.
     */
    public void collect(Path hostDir, List<String> paths) {
        Concurrently.forEach(nodes.values(), "faultline-collect", n -> {
            Path dir = hostDir.resolve(n.name());
            try {
                java.nio.file.Files.createDirectories(dir);
                Path console = dir.resolve(CONSOLE_FILE);
                Path streamed = n.consoleFile();
                if (streamed == null) {
                    n.writeConsoleTo(console);
                } else {
                    n.finishConsoleStream();
                    if (!streamed.toAbsolutePath().equals(console.toAbsolutePath())) {
                        java.nio.file.Files.copy(streamed, console, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    }
                }
                for (String p : paths) n.copyOut(p, dir);
            } catch (Exception e) {
                LOG.warn("{}: could not collect {}: {}", n.name(), paths, e.toString());
            }
        });
    }

    /** Removes every container and the network of this run. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // called from the hook itself
        }
        for (Node n : nodes.values()) {
            try {
                n.abandonConsoleStream(); // a no-op after collect, which completed it
            } catch (RuntimeException e) {
                LOG.warn("{}: {}", n.name(), e.toString());
            }
        }
        ResourceJanitor.removeRun(client, runId);
    }

    /** Fluent description of a cluster; {@link #start()} creates and starts it. */
    public static final class Builder {
        private int size = 3;
        private BiFunction<NodeAddress, List<NodeAddress>, NodeSpec> specs;
        private String runId = UUID.randomUUID().toString().substring(0, 8);
        private boolean startNodes = true;

        public Builder withNodes(int n) {
            if (n < 1 || n > 200) throw new IllegalArgumentException("nodes must be 1..200, got " + n);
            this.size = n;
            return this;
        }

        /** The same program on every node. */
        public Builder withNodeSpec(NodeSpec spec) {
            this.specs = (self, all) -> spec;
            return this;
        }

        /** A program per node, knowing every node's address (e.g. to write a quorum list). */
        public Builder withNodeSpecs(BiFunction<NodeAddress, List<NodeAddress>, NodeSpec> specs) {
            this.specs = specs;
            return this;
        }

        public Builder withRunId(String runId) {
            this.runId = runId;
            return this;
        }

        /** Create the containers but leave them stopped (the caller prepares files first). */
        public Builder createOnly() {
            this.startNodes = false;
            return this;
        }

        public Cluster start() {
            if (specs == null) throw new IllegalStateException("no node spec given");
            DockerClient client = DockerEngine.client();
            Map<String, String> labels = ResourceJanitor.labels(runId);
            String networkName = "faultline-" + runId;
            String subnet = createNetwork(client, networkName, labels);
            String prefix = subnet.substring(0, subnet.lastIndexOf('.') + 1);
            List<NodeAddress> addresses = new ArrayList<>();
            for (int i = 1; i <= size; i++) addresses.add(new NodeAddress("n" + i, i, prefix + (FIRST_HOST + i - 1)));

            Map<String, Node> nodes = new LinkedHashMap<>();
            Cluster cluster = new Cluster(client, runId, networkName, subnet, nodes);
            try {
                for (NodeAddress a : addresses) {
                    NodeSpec spec = specs.apply(a, List.copyOf(addresses));
                    HostConfig host = HostConfig.newHostConfig()
                            .withNetworkMode(networkName)
                            .withCapAdd(Capability.NET_ADMIN)
                            .withInit(false);
                    if (spec.memoryBytes() > 0) host.withMemory(spec.memoryBytes());
                    if (LazyFsMount.wanted(spec)) LazyFsMount.grant(host);
                    List<String> env = new ArrayList<>();
                    spec.env().forEach((k, v) -> env.add(k + "=" + v));
                    var created = client.createContainerCmd(spec.image())
                            .withName(networkName + "-" + a.name())
                            .withHostName(a.name())
                            .withLabels(labels)
                            .withEnv(env)
                            .withCmd(spec.command())
                            .withHostConfig(host)
                            .withIpv4Address(a.ip())
                            .withAliases(a.name())
                            .exec();
                    nodes.put(a.name(), new Node(client, a.name(), a.ip(), created.getId()));
                }
                if (startNodes) cluster.startAll();
                return cluster;
            } catch (RuntimeException e) {
                cluster.close();
                throw e;
            }
        }

        /** A /24 not used by any other network on the engine; retried when another run takes it first. */
        private static String createNetwork(DockerClient client, String name, Map<String, String> labels) {
            RuntimeException last = null;
            for (int attempt = 0; attempt < 20; attempt++) {
                Set<String> used = new HashSet<>();
                for (Network n : client.listNetworksCmd().exec()) {
                    if (n.getIpam() == null || n.getIpam().getConfig() == null) continue;
                    for (Network.Ipam.Config c : n.getIpam().getConfig()) if (c.getSubnet() != null) used.add(c.getSubnet());
                }
                String subnet = "10.213." + ThreadLocalRandom.current().nextInt(1, 255) + ".0/24";
                // Another engine on this machine (campaign --docker-hosts) does not list its networks here, but
                // its bridges are interfaces of this host: a second bridge on the same /24 would shadow the route.
                if (used.contains(subnet) || onThisHost(subnet)) continue;
                String gateway = subnet.substring(0, subnet.lastIndexOf('.')) + ".1";
                try {
                    client.createNetworkCmd().withName(name).withDriver("bridge").withLabels(labels)
                            .withIpam(new Network.Ipam().withConfig(
                                    new Network.Ipam.Config().withSubnet(subnet).withGateway(gateway)))
                            .exec();
                    return subnet;
                } catch (RuntimeException e) {
                    last = e; // most likely an overlapping pool taken concurrently
                }
            }
            throw new IllegalStateException("could not create network " + name, last);
        }

        /** Whether an interface of this machine already has an address in {@code subnet} (a /24). */
        static boolean onThisHost(String subnet) {
            String prefix = subnet.substring(0, subnet.lastIndexOf('.') + 1);
            try {
                for (var nic : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
                    for (var addr : java.util.Collections.list(nic.getInetAddresses())) {
                        if (addr.getHostAddress().startsWith(prefix)) return true;
                    }
                }
                return false;
            } catch (java.net.SocketException e) {
                return false; // cannot tell: the engine's own check above still applies
            }
        }
    }
}
