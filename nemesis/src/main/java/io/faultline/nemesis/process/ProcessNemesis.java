package io.faultline.nemesis.process;

import io.faultline.docker.Concurrently;
import io.faultline.docker.Node;
import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.Nemesis;
import io.faultline.nemesis.NemesisContext;

import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Process faults on the node programs. Every op's value is a {@link Target}; the result names the nodes hit.
 * <ul>
 *   <li>{@code kill}: SIGKILL (a crash: nothing flushed); {@code start}: start those of the targets that are down,
 *   which also runs the node's start listeners (partitions in force come back with it);</li>
 *   <li>{@code stop}: SIGTERM, then SIGKILL after the context's grace (graceful, but bounded: a broker without a
 *   quorum can hang in shutdown forever);</li>
 *   <li>{@code pause}/{@code resume}: SIGSTOP-like freeze of every process of the node (cgroup freezer);</li>
 *   <li>{@code restart}: graceful stop, then start.</li>
 * </ul>
 */
public final class ProcessNemesis implements Nemesis {
    public static final String KILL = "kill";
    public static final String START = "start";
    public static final String STOP = "stop";
    public static final String PAUSE = "pause";
    public static final String RESUME = "resume";
    public static final String RESTART = "restart";

    @Override
    public Set<String> fs() {
        return Set.of(KILL, START, STOP, PAUSE, RESUME, RESTART);
    }

    @Override
    public FaultOp invoke(NemesisContext ctx, FaultOp op) {
        Target target = op.value() == null ? new Target.All() : (Target) op.value();
        List<String> names = target.resolve(ctx, ctx.random());
        List<Node> nodes = names.stream().map(ctx::node).toList();
        if (nodes.isEmpty() && !op.f().equals(START) && !op.f().equals(RESUME)) {
            // e.g. the controller or a partition's leader is not known right now: the fault cannot start
            throw new IllegalStateException("no node to " + op.f() + ": target " + target + " names none now");
        }
        return switch (op.f()) {
            case KILL -> op.completed("killed " + onEach(nodes.stream().filter(Node::isRunning).toList(), Node::kill));
            case STOP -> {
                List<Node> running = nodes.stream().filter(Node::isRunning).toList();
                List<String> stopped = onEach(running, n -> n.stop(ctx.stopGrace()));
                yield op.completed("stopped " + stopped + exits(running));
            }
            case START -> op.completed("started " + onEach(nodes.stream().filter(n -> !n.isRunning()).toList(), Node::start));
            case PAUSE -> op.completed("paused " + onEach(nodes.stream().filter(n -> n.isRunning() && !n.isPaused()).toList(),
                    Node::pause));
            case RESUME -> op.completed("resumed " + onEach(nodes.stream().filter(Node::isPaused).toList(), Node::resume));
            case RESTART -> op.completed("restarted " + onEach(nodes, n -> n.restart(ctx.stopGrace())));
            default -> throw new IllegalArgumentException("process nemesis cannot " + op.f());
        };
    }

    /**
     * How each stopped node exited, so the history tells a clean shutdown (the program's own exit, 143 after SIGTERM)
     * from one the grace ended with SIGKILL (137): " (exits n1 143, n2 137)", empty when none is known.
     */
    private static String exits(List<Node> nodes) {
        List<String> out = new java.util.ArrayList<>();
        for (Node n : nodes) {
            try {
                out.add(n.name() + " " + n.exitCode());
            } catch (RuntimeException e) {
                // unknown: left out
            }
        }
        return out.isEmpty() ? "" : " (exits " + String.join(", ", out) + ")";
    }

    /** Runs the action on every node at once (a fault on a majority should hit it together). */
    private static List<String> onEach(List<Node> nodes, Consumer<Node> action) {
        Concurrently.forEach(nodes, "process-fault", action);
        return nodes.stream().map(Node::name).toList();
    }
}
