package io.faultline.nemesis;

import io.faultline.docker.Node;
import io.faultline.nemesis.clock.ClockNemesis;
import io.faultline.nemesis.net.Partitioner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks, rather than assumes, that a cluster is back to normal after the final heal: every node runs, none is
 * frozen, no DROP rule is left in any INPUT chain, and every clock offset file reads zero.
 */
public final class ClusterHealth {
    private ClusterHealth() {}

    /**
     * Everything still wrong, one line per problem, in node order; empty when healthy. The nodes are checked at once:
     * each check is a few exec'd commands that wait on the engine.
     */
    public static List<String> problems(NemesisContext ctx) {
        List<String> problems = new ArrayList<>();
        io.faultline.docker.Concurrently.map(ctx.nodes(), "faultline-health", ClusterHealth::problemsOf)
                .forEach(problems::addAll);
        return problems;
    }

    private static List<String> problemsOf(Node n) {
        List<String> problems = new ArrayList<>();
        try {
            if (!n.isRunning()) return List.of(n.name() + " is not running (exit " + n.exitCode() + ")");
            if (n.isPaused()) return List.of(n.name() + " is paused");
            List<String> drops = Partitioner.dropRules(n);
            if (!drops.isEmpty()) problems.add(n.name() + " still drops " + drops);
            long offset = ClockNemesis.readOffset(n);
            if (offset != 0) problems.add(n.name() + " clock offset is " + offset + " ms");
        } catch (RuntimeException e) {
            problems.add(n.name() + ": cannot check: " + e.getMessage());
        }
        return problems;
    }

    /** Polls until healthy; returns the problems still seen at the timeout (empty on success). */
    public static List<String> awaitHealthy(NemesisContext ctx, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> problems = problems(ctx);
        while (!problems.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            problems = problems(ctx);
        }
        return problems;
    }
}
