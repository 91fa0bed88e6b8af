package io.faultline.nemesis;

import io.faultline.docker.Cluster;
import io.faultline.docker.Node;
import io.faultline.docker.probe.ProbeClient;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** Test helpers over probe nodes: ask from the host, and measure who reaches whom from inside the nodes. */
public final class Probes {
    private Probes() {}

    public static Optional<String> ask(String ip, String line, int timeoutMillis) {
        return ProbeClient.ask(ip, line, timeoutMillis);
    }

    public static void awaitUp(Node node, long timeoutMillis) {
        ProbeClient.awaitUp(node.ip(), timeoutMillis);
    }

    /** The node's wall clock minus the host's, in ms (the node's JVM reads libfaketime's offset). */
    public static long skewMillis(Node node) {
        long before = System.currentTimeMillis();
        long nodeTime = Long.parseLong(ask(node.ip(), "time", 2000).orElseThrow());
        long after = System.currentTimeMillis();
        return nodeTime - (before + after) / 2;
    }

    /**
     * Who each node reaches (itself included), by opening a TCP connection to every other node's port from
     * inside it; all pairs of one node are tried at once, each with a 2 s limit (a connect on the bridge takes
     * milliseconds; the margin is for a loaded machine).
     */
    public static Map<String, Set<String>> reachability(Cluster cluster, int port) {
        return survey(cluster, port).reached();
    }

    /** Who reaches whom, and how many DROP rules all INPUT chains hold, measured in one exec per node. */
    public record Survey(Map<String, Set<String>> reached, int dropRules) {}

    public static Survey survey(Cluster cluster, int port) {
        List<Node> nodes = cluster.nodes();
        int[] rules = {0};
        Map<String, Set<String>> seen = new TreeMap<>();
        nodes.parallelStream().forEach(from -> {
            var script = new StringBuilder();
            for (Node to : nodes) {
                if (to == from) continue;
                script.append("(timeout 2 bash -c 'exec 3<>/dev/tcp/").append(to.ip()).append('/').append(port)
                        .append("' 2>/dev/null && echo ").append(to.name()).append(") &\n");
            }
            script.append("wait\necho \"#rules $(iptables -w -S INPUT | grep -c -- '-j DROP')\"\n");
            Set<String> reached = new TreeSet<>();
            reached.add(from.name());
            for (String line : from.exec("bash", "-c", script.toString()).stdout().split("\n")) {
                if (line.startsWith("#rules ")) {
                    synchronized (rules) {
                        rules[0] += Integer.parseInt(line.substring(7).strip());
                    }
                } else if (!line.isBlank()) {
                    reached.add(line.strip());
                }
            }
            synchronized (seen) {
                seen.put(from.name(), reached);
            }
        });
        return new Survey(seen, rules[0]);
    }

    public static Map<String, Set<String>> full(Cluster cluster) {
        Set<String> all = new TreeSet<>(cluster.nodes().stream().map(Node::name).toList());
        Map<String, Set<String>> m = new TreeMap<>();
        all.forEach(n -> m.put(n, all));
        return m;
    }

    public static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
