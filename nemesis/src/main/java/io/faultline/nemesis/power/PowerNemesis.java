package io.faultline.nemesis.power;

import io.faultline.docker.Concurrently;
import io.faultline.docker.LazyFsMount;
import io.faultline.docker.Node;
import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.Nemesis;
import io.faultline.nemesis.NemesisContext;
import io.faultline.nemesis.process.Target;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Power loss on nodes whose data directory is on lazyfs ({@link LazyFsMount}): {@code power-off} freezes every
 * targeted node program (SIGSTOP: from then on it sends nothing, as a machine without power), makes each node's
 * filesystem forget what was not fsynced and fail everything after (all targets before any kill, so a correlated
 * loss happens at one instant as far as the nodes can tell), then SIGKILLs them; they stay down until {@code power-on}
 * starts them again (as the final heal does for every node). A node already down is left alone: its page cache
 * died with it when it was killed, which a process crash keeps.
 *
 * <p>It also keeps the largest number of nodes that were without power at once, which decides whether the
 * system's durability settings promised to survive ({@link DurabilityPromise}).
 */
public final class PowerNemesis implements Nemesis {
    public static final String OFF = "power-off";
    public static final String ON = "power-on";
    /** The power package that powers off one node at a time, and the one that powers off every node at once. */
    public static final String ONE_AT_A_TIME = "power-one";
    public static final String ALL_AT_ONCE = "power-all";
    /** How a completed power-off and power-on describe what they did; {@link PowerHistory} reads these back. */
    static final String LOST_ON = "power lost on ";
    static final String POWERED_ON = "powered on ";

    private final Set<String> off = ConcurrentHashMap.newKeySet();
    private volatile int maxOffAtOnce;

    @Override
    public Set<String> fs() {
        return Set.of(OFF, ON);
    }

    @Override
    public void setup(NemesisContext ctx) {
        Node first = ctx.nodes().get(0);
        if (!first.isRunning()) return;
        try {
            LazyFsMount.status(first);
        } catch (RuntimeException e) {
            throw new IllegalStateException("the power fault needs every node's data on lazyfs (start the cluster with"
                    + " LazyFsMount::on): " + e.getMessage(), e);
        }
    }

    /** The most nodes that were powered off at the same time during this run. */
    public int maxOffAtOnce() {
        return maxOffAtOnce;
    }

    @Override
    public FaultOp invoke(NemesisContext ctx, FaultOp op) {
        Target target = op.value() == null ? new Target.All() : (Target) op.value();
        List<Node> nodes = target.resolve(ctx, ctx.random()).stream().map(ctx::node).toList();
        return switch (op.f()) {
            case OFF -> op.completed(powerOff(nodes.stream().filter(Node::isRunning).toList()));
            case ON -> {
                List<Node> down = nodes.stream().filter(n -> !n.isRunning()).toList();
                Concurrently.forEach(down, "power", Node::start);
                down.forEach(n -> off.remove(n.name()));
                yield op.completed(POWERED_ON + down.stream().map(Node::name).toList());
            }
            default -> throw new IllegalArgumentException("power nemesis cannot " + op.f());
        };
    }

    private String powerOff(List<Node> nodes) {
        Map<String, String> forgotten = new TreeMap<>();
        List<String> failures = new ArrayList<>();
        Concurrently.forEach(nodes, "power", n -> n.signal("STOP"));
        Concurrently.forEach(nodes, "power", n -> {
            try {
                String reply = LazyFsMount.crash(n);
                synchronized (forgotten) {
                    forgotten.put(n.name(), reply.replaceFirst("^ok ", ""));
                }
            } catch (RuntimeException e) {
                synchronized (failures) {
                    failures.add(n.name() + ": " + e.getMessage());
                }
            }
        });
        Concurrently.forEach(nodes, "power", Node::kill);
        nodes.forEach(n -> off.add(n.name()));
        maxOffAtOnce = Math.max(maxOffAtOnce, off.size());
        if (!failures.isEmpty()) {
            throw new IllegalStateException("killed " + nodes.stream().map(Node::name).toList()
                    + " but the disk did not forget on " + failures);
        }
        return LOST_ON + nodes.stream().map(Node::name).toList() + " " + forgotten;
    }
}
