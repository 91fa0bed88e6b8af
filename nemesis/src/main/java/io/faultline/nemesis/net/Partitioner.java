package io.faultline.nemesis.net;

import io.faultline.docker.Concurrently;
import io.faultline.docker.Node;
import io.faultline.docker.sut.KafkaProtocolSut;
import io.faultline.docker.sut.SystemUnderTest;
import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.Nemesis;
import io.faultline.nemesis.NemesisContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Applies grudges with iptables inside the nodes: for each node and each peer it drops, one
 * {@code iptables -A INPUT -s <peer ip> -j DROP}; a {@link PartitionShape.PortCut} drops only the connections the
 * peer opens to one port of the node ({@code -s <node ip> -p tcp --sport <port>} in the peer). It remembers exactly the rules it
 * added so that healing deletes those and nothing else, and it re-applies a node's rules whenever that node starts
 * again, because a container restart starts with empty tables.
 *
 * <p>Ops: {@code start-partition} (value: a {@link PartitionShape}; replaces any partition in force) and
 * {@code stop-partition}.
 */
public final class Partitioner implements Nemesis {
    public static final String START = "start-partition";
    public static final String STOP = "stop-partition";
    private static final Logger LOG = LoggerFactory.getLogger(Partitioner.class);

    /** Node name -> the match of each DROP rule it holds (e.g. {@code -s 10.0.0.2}): exactly the rules in force. */
    private final Map<String, List<String>> rules = new TreeMap<>();
    private final Map<Node, Consumer<Node>> listeners = new HashMap<>();
    private Grudge current = Grudge.none();

    @Override
    public Set<String> fs() {
        return Set.of(START, STOP);
    }

    @Override
    public synchronized void setup(NemesisContext ctx) {
        for (Node node : ctx.nodes()) {
            if (listeners.containsKey(node)) continue;
            Consumer<Node> reapply = this::reapply;
            node.addStartListener(reapply);
            listeners.put(node, reapply);
        }
    }

    @Override
    public FaultOp invoke(NemesisContext ctx, FaultOp op) {
        return switch (op.f()) {
            case START -> {
                if (!(op.value() instanceof PartitionShape shape)) {
                    throw new IllegalArgumentException(START + " needs a PartitionShape, got " + op.value());
                }
                Grudge grudge = shape.grudge(ctx, ctx.random());
                int port = shape instanceof PartitionShape.PortCut cut ? cut.port()
                        : shape instanceof PartitionShape.ReplicationCut ? replicationPort(ctx) : 0;
                if (port > 0) {
                    apply(ctx, grudge, port);
                    yield op.completed("cut the connections to port " + port + " " + grudge);
                }
                apply(ctx, grudge);
                yield op.completed("cut " + grudge);
            }
            case STOP -> {
                int removed = heal(ctx);
                yield op.completed("fully connected (removed " + removed + " rules)");
            }
            default -> throw new IllegalArgumentException("partitioner cannot " + op.f());
        };
    }

    /** The port followers fetch on: the system under test's, or the Kafka protocol's port when none is known. */
    static int replicationPort(NemesisContext ctx) {
        return ctx.sut().map(SystemUnderTest::replicationPort).orElse(KafkaProtocolSut.PORT);
    }

    /** Heals any partition in force, then cuts the links of the grudge. */
    public synchronized void apply(NemesisContext ctx, Grudge grudge) {
        apply(ctx, grudge, 0);
    }

    /**
     * Heals any partition in force, then, with {@code port} > 0, cuts only the TCP connections each node's listed
     * peers open to that port of it (every other traffic between them passes: the nodes stay
     * connected, so {@link #current()} is empty); with 0, cuts the links of the grudge.
     */
    public synchronized void apply(NemesisContext ctx, Grudge grudge, int port) {
        heal(ctx);
        Map<String, String> ips = new HashMap<>();
        ctx.nodes().forEach(n -> ips.put(n.name(), n.ip()));
        if (port > 0) {
            rules.putAll(portRules(grudge, ips, port));
        } else {
            grudge.drops().forEach((node, from) -> rules.put(node, from.stream().map(peer -> "-s " + ips.get(peer)).toList()));
        }
        current = port > 0 ? Grudge.none() : grudge;
        Concurrently.forEach(rules.keySet(), "partition", name -> {
            Node node = ctx.node(name);
            // a node that is down gets its rules from the start listener when it comes back
            if (node.isRunning()) run(node, addRules(rules.get(name)));
        });
    }

    /**
     * Deletes exactly the rules this partitioner added; returns how many were in force. The bookkeeping is cleared even
     * when a deletion fails: a node killed while its rules were deleted (a composition's kill racing the final heal)
     * refuses the exec, and rules still on the books would be put back by the start listener when the node returns,
     * cutting it off again after the heal (seen once, 7 December 2026).
     */
    public synchronized int heal(NemesisContext ctx) {
        int count = rules.values().stream().mapToInt(List::size).sum();
        try {
            Concurrently.forEach(rules.entrySet(), "partition", e -> {
                Node node = ctx.node(e.getKey());
                // a stopped node lost its rules already; deleting a rule that is gone is not an error
                if (!node.isRunning()) return;
                try {
                    run(node, deleteRules(e.getValue()));
                } catch (RuntimeException failed) {
                    if (node.isRunning()) throw failed; // stopped meanwhile: its rules went with its network
                }
            });
        } finally {
            rules.clear();
            current = Grudge.none();
        }
        return count;
    }

    /** The grudge in force, or an empty one. */
    public synchronized Grudge current() {
        return current;
    }

    private synchronized void reapply(Node node) {
        List<String> mine = rules.get(node.name());
        if (mine == null || mine.isEmpty()) return;
        LOG.info("{} restarted during a partition: re-applying {} rules", node.name(), mine.size());
        run(node, addRules(mine));
    }

    @Override
    public synchronized void teardown(NemesisContext ctx) {
        try {
            heal(ctx);
        } catch (RuntimeException e) {
            LOG.warn("partition heal at teardown failed: {}", e.toString());
        }
        listeners.forEach(Node::removeStartListener);
        listeners.clear();
    }

    /**
     * The DROP matches of a port cut, per node: each peer drops what the node sends from the port. A new connection
     * never completes (the SYN-ACK is lost) and no reply arrives on one already open, while whatever the peer sent
     * before the cut still reaches the node. Dropping at the node instead would let a reply under way through, e.g.
     * a fetch response carrying the high watermark the peer's last fetch advanced, and a Kafka follower never sends
     * the next fetch before the last one's reply: cut at the peer, the node has seen a fetch whose reply the peer
     * never gets.
     */
    static Map<String, List<String>> portRules(Grudge grudge, Map<String, String> ips, int port) {
        Map<String, List<String>> matches = new TreeMap<>();
        grudge.drops().forEach((node, from) -> from.forEach(peer ->
                matches.computeIfAbsent(peer, k -> new ArrayList<>()).add("-s " + ips.get(node) + " -p tcp --sport " + port)));
        return matches;
    }

    /** Drops everything from these peers, each rule added unless an identical one is there. */
    static String addCommand(List<String> peerIps) {
        return addRules(peerIps.stream().map(ip -> "-s " + ip).toList());
    }

    static String deleteCommand(List<String> peerIps) {
        return deleteRules(peerIps.stream().map(ip -> "-s " + ip).toList());
    }

    /** Adds each DROP rule unless an identical one is there (-C), so a re-application never duplicates a rule. */
    static String addRules(List<String> matches) {
        var sb = new StringBuilder("set -e\n");
        for (String m : matches) {
            sb.append("iptables -w -C INPUT ").append(m).append(" -j DROP 2>/dev/null || iptables -w -A INPUT ")
                    .append(m).append(" -j DROP\n");
        }
        return sb.toString();
    }

    static String deleteRules(List<String> matches) {
        var sb = new StringBuilder();
        for (String m : matches) sb.append("iptables -w -D INPUT ").append(m).append(" -j DROP 2>/dev/null || true\n");
        return sb.toString();
    }

    /**
     * Runs an iptables script in the node. The engine refuses exec into a frozen container, so a paused node is
     * thawed for the few milliseconds the script takes and frozen again.
     */
    private static void run(Node node, String script) {
        boolean paused = node.isPaused();
        if (paused) node.resume();
        try {
            node.exec("sh", "-c", script).orThrow(node.name() + ": iptables");
        } finally {
            if (paused) node.pause();
        }
    }

    /** For checks: the DROP rules a node's INPUT chain holds right now. */
    public static List<String> dropRules(Node node) {
        List<String> out = new ArrayList<>();
        for (String line : node.exec("iptables", "-w", "-S", "INPUT").orThrow("iptables -S").split("\n")) {
            if (line.contains("-j DROP")) out.add(line.strip());
        }
        return out;
    }
}
