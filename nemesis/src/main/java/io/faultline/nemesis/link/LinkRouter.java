package io.faultline.nemesis.link;

import io.faultline.docker.Concurrently;
import eu.rekawek.toxiproxy.Proxy;
import eu.rekawek.toxiproxy.ToxiproxyClient;
import io.faultline.docker.Cluster;
import io.faultline.docker.Node;
import io.faultline.docker.ResourceJanitor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.toxiproxy.ToxiproxyContainer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Routes every TCP connection between nodes through a Toxiproxy on the cluster's network, one proxy per directed
 * link and port: the proxy {@code a-b-9092} carries the connections a opens to b's port 9092. In node a, an
 * iptables DNAT rule (nat OUTPUT) sends b's port to that proxy, and a REJECT rule (filter OUTPUT, which sees only
 * packets that were not rewritten) resets connections opened before the route existed so they reconnect through
 * it. Rules are re-applied when a node starts again, as partitions are. Driven only through toxiproxy-java.
 *
 * <p>Client traffic (from the host, which reaches the nodes through the network's gateway) can be routed too, per
 * node and client port: proxy {@code clients-n1-9092}. In node n1, a DNAT rule in nat PREROUTING sends new
 * connections from the gateway to that proxy, MASQUERADE makes them leave from n1 (so the proxy's answers come back
 * through n1, which undoes both rewrites), and a REJECT in INPUT (which sees only packets not rewritten, since the
 * rewritten ones are forwarded) resets client connections opened before. The proxy's own connection to n1 comes
 * from the proxy's address and is left alone.
 */
public final class LinkRouter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LinkRouter.class);
    public static final int API_PORT = 8474;
    public static final int FIRST_PROXY_PORT = 20000;
    /** The proxy's host number on the cluster's /24 (nodes are .11 upwards, the gateway .1). */
    private static final int HOST_NUMBER = 250;

    /** Connections opened by {@code from} to {@code to}'s {@code port}, through the proxy's {@code listenPort}. */
    public record Route(String from, String to, int port, int listenPort) {
        public String proxyName() {
            return proxyName(from, to, port);
        }

        public static String proxyName(String from, String to, int port) {
            return from + "-" + to + "-" + port;
        }
    }

    private final Cluster cluster;
    private final ToxiproxyContainer container;
    private final String ip;
    private final ToxiproxyClient client;
    private final List<Route> routes;
    private final Map<Node, Consumer<Node>> listeners = new HashMap<>();

    private LinkRouter(Cluster cluster, ToxiproxyContainer container, String ip, List<Route> routes) {
        this.cluster = cluster;
        this.container = container;
        this.ip = ip;
        this.client = new ToxiproxyClient(ip, API_PORT);
        this.routes = List.copyOf(routes);
    }

    /** Starts the proxy container on the cluster's network, creates every proxy and routes every node through them. */
    public static LinkRouter start(Cluster cluster, List<Integer> ports) {
        return start(cluster, ports, List.of());
    }

    /** As {@link #start(Cluster, List)}, also routing the host's client connections to {@code clientPorts}. */
    public static LinkRouter start(Cluster cluster, List<Integer> ports, List<Integer> clientPorts) {
        String subnet = cluster.subnet();
        String ip = subnet.substring(0, subnet.lastIndexOf('.') + 1) + HOST_NUMBER;
        ToxiproxyContainer container = ToxiproxyImage.container(ToxiproxyImage.name())
                .withNetworkMode(cluster.networkName())
                .withLabels(ResourceJanitor.labels(cluster.runId()))
                .withCreateContainerCmdModifier(cmd -> cmd.withIpv4Address(ip).withName(cluster.networkName() + "-toxiproxy"));
        container.start();
        List<Route> routes = new ArrayList<>();
        int next = FIRST_PROXY_PORT;
        for (Node from : cluster.nodes()) {
            for (Node to : cluster.nodes()) {
                if (from == to) continue;
                for (int port : ports) routes.add(new Route(from.name(), to.name(), port, next++));
            }
        }
        for (Node to : cluster.nodes()) {
            for (int port : clientPorts) routes.add(new Route(DataLink.CLIENTS, to.name(), port, next++));
        }
        LinkRouter router = new LinkRouter(cluster, container, ip, routes);
        try {
            router.createProxies();
            Concurrently.forEach(cluster.nodes(), "link-router", router::install);
            for (Node n : cluster.nodes()) {
                Consumer<Node> reapply = router::install;
                n.addStartListener(reapply);
                router.listeners.put(n, reapply);
            }
            return router;
        } catch (RuntimeException e) {
            router.close();
            throw e;
        }
    }

    public ToxiproxyClient client() {
        return client;
    }

    /** The proxy container's address on the cluster network. */
    public String ip() {
        return ip;
    }

    public List<Route> routes() {
        return routes;
    }

    /** The ports routed between nodes. */
    public List<Integer> ports() {
        return routes.stream().filter(r -> !r.from().equals(DataLink.CLIENTS)).map(Route::port).distinct().sorted().toList();
    }

    /** The ports on which the host's client connections are routed (empty: clients go direct). */
    public List<Integer> clientPorts() {
        return routes.stream().filter(r -> r.from().equals(DataLink.CLIENTS)).map(Route::port).distinct().sorted().toList();
    }

    public Proxy proxy(String name) {
        try {
            return client.getProxy(name);
        } catch (IOException e) {
            throw new UncheckedIOException("toxiproxy: " + name, e);
        }
    }

    private void createProxies() {
        try {
            for (Route r : routes) {
                Node to = cluster.node(r.to()); // clients-n1-9092 leads to n1 as well
                client.createProxy(r.proxyName(), "0.0.0.0:" + r.listenPort(), to.ip() + ":" + r.port());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("toxiproxy: creating proxies", e);
        }
    }

    /** Adds a node's rules unless present (-C first), so a re-application never duplicates one. */
    private void install(Node node) {
        var sb = new StringBuilder("set -e\n");
        for (String rule : rules(node)) {
            sb.append("iptables -w ").append(rule.replaceFirst("-A ", "-C ")).append(" 2>/dev/null || iptables -w ")
                    .append(rule).append('\n');
        }
        run(node, sb.toString());
    }

    private void uninstall(Node node) {
        var sb = new StringBuilder();
        for (String rule : rules(node)) sb.append("iptables -w ").append(rule.replaceFirst("-A ", "-D ")).append(" 2>/dev/null || true\n");
        run(node, sb.toString());
    }

    /** iptables arguments (with -A) of the routes leaving this node, and of client routes into it. */
    List<String> rules(Node node) {
        Map<String, String> ips = new LinkedHashMap<>();
        cluster.nodes().forEach(n -> ips.put(n.name(), n.ip()));
        String subnet = cluster.subnet();
        String gateway = subnet.substring(0, subnet.lastIndexOf('.') + 1) + "1";
        List<String> out = new ArrayList<>();
        for (Route r : routes) {
            if (r.from().equals(DataLink.CLIENTS)) {
                if (!r.to().equals(node.name())) continue;
                String match = "-s " + gateway + " -p tcp --dport " + r.port();
                out.add("-t nat -A PREROUTING " + match + " -j DNAT --to-destination " + ip + ":" + r.listenPort());
                out.add("-t nat -A POSTROUTING -d " + ip + " -p tcp --dport " + r.listenPort() + " -j MASQUERADE");
                out.add("-A INPUT " + match + " -j REJECT --reject-with tcp-reset");
                continue;
            }
            if (!r.from().equals(node.name())) continue;
            String match = "-d " + ips.get(r.to()) + " -p tcp --dport " + r.port();
            out.add("-t nat -A OUTPUT " + match + " -j DNAT --to-destination " + ip + ":" + r.listenPort());
            out.add("-A OUTPUT " + match + " -j REJECT --reject-with tcp-reset");
        }
        return out;
    }

    /** The engine refuses exec into a frozen container: thaw for the few milliseconds the script takes. */
    private static void run(Node node, String script) {
        if (!node.isRunning()) return; // it gets its rules from the start listener
        boolean paused = node.isPaused();
        if (paused) node.resume();
        try {
            node.exec("sh", "-c", script).orThrow(node.name() + ": iptables (link routes)");
        } finally {
            if (paused) node.pause();
        }
    }

    /** Removes the rules and the listeners, then the container. Never throws. */
    @Override
    public void close() {
        listeners.forEach(Node::removeStartListener);
        listeners.clear();
        for (Node n : cluster.nodes()) {
            try {
                uninstall(n);
            } catch (RuntimeException e) {
                LOG.warn("{}: removing link routes failed: {}", n.name(), e.toString());
            }
        }
        try {
            container.stop();
        } catch (RuntimeException e) {
            LOG.warn("stopping toxiproxy failed: {}", e.toString());
        }
    }
}
