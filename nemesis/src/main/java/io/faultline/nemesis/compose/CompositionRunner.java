package io.faultline.nemesis.compose;

import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.Pacer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Performs a plan of compositions: for each, after its healthy window, it binds the roles of its partition from the
 * cluster's metadata, then runs its steps one at a time through the nemesis packages (waits counted from the end of
 * the step before, as Jepsen's sleeps are). A composition whose roles cannot be read (no leader right now) is logged
 * and skipped; a step whose role names no node is logged and skipped; a failed op is logged and the composition goes
 * on, since its later steps heal. Stops starting compositions at the deadline and stops waiting when asked.
 */
public final class CompositionRunner {
    /** Performs one op of a package (the scheduler's {@code invoke}). */
    @FunctionalInterface
    public interface Invoker {
        FaultOp invoke(String packageName, FaultOp op);
    }

    /** Reads the roles of the run's partition with this index, and whom a given kind should bind. */
    @FunctionalInterface
    public interface RoleSource {
        Optional<Roles> roles(int partition);
    }

    /** One composition as it ran: when (on the run's time base), on which nodes, and each op's outcome. */
    public record Executed(Composition composition, long startNanos, long endNanos, Roles roles, List<String> ops) {
        public Executed {
            ops = List.copyOf(ops);
        }
    }

    private final Invoker invoker;
    private final RoleSource roleSource;
    private final int partitions;
    private final List<String> nodes;
    private final Pacer pacer;
    private final LongSupplier now;
    private final java.util.function.Consumer<String> log;
    private final List<Executed> executed = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean stopped;

    /**
     * @param partitions how many partitions {@code roleSource} knows (a kind that needs a partition whose leader is
     *                   not the controller may look beyond its planned one)
     * @param now        the run's time base in nanoseconds (the history's)
     */
    public CompositionRunner(Invoker invoker, RoleSource roleSource, int partitions, List<String> nodes, Pacer pacer,
                             LongSupplier now, java.util.function.Consumer<String> log) {
        this.invoker = invoker;
        this.roleSource = roleSource;
        this.partitions = partitions;
        this.nodes = List.copyOf(nodes);
        this.pacer = pacer;
        this.now = now;
        this.log = log;
    }

    public void stop() {
        stopped = true;
    }

    public List<Executed> executed() {
        synchronized (executed) {
            return List.copyOf(executed);
        }
    }

    /** Runs the plan on the calling thread until it ends, the deadline passes, or {@link #stop()}. */
    public void run(List<Composition> plan, long durationMillis) {
        long start = pacer.nanoTime();
        long deadline = start + durationMillis * 1_000_000;
        long lastEnd = start, lastPlannedEnd = 0;
        for (Composition c : plan) {
            long due = lastEnd + (c.atMillis() - lastPlannedEnd) * 1_000_000;
            if (!sleepUntil(Math.min(due, deadline)) || pacer.nanoTime() >= deadline) return;
            runOne(c);
            lastPlannedEnd = c.atMillis() + c.lengthMillis();
            lastEnd = pacer.nanoTime();
        }
    }

    /** Binds the roles and performs the steps of one composition. */
    void runOne(Composition c) {
        Optional<Roles> bound = bind(c);
        if (bound.isEmpty()) {
            log.accept("composition " + c.index() + " " + c.kind().id() + " skipped: no leader of its partition is known now");
            return;
        }
        Roles roles = bound.get();
        log.accept("composition " + c.index() + " " + c.kind().id() + " (" + c.choice() + ") on " + roles);
        long t0 = now.getAsLong();
        List<String> ops = new ArrayList<>();
        for (Step step : c.steps()) {
            if (stopped) break;
            if (step instanceof Step.Wait w) {
                if (!sleepUntil(pacer.nanoTime() + w.millis() * 1_000_000)) break;
                continue;
            }
            Optional<StepOps.Invocation> inv = StepOps.of(step, roles, nodes);
            if (inv.isEmpty()) {
                ops.add(step + ": skipped (no such node)");
                log.accept("composition " + c.index() + ": " + step + " skipped: the role names no node");
                continue;
            }
            FaultOp done = invoker.invoke(inv.get().packageName(), inv.get().op());
            ops.add(step + ": " + done);
            if (done.isFailed()) log.accept("composition " + c.index() + ": " + step + " failed (" + done.error() + "); it goes on");
        }
        executed.add(new Executed(c, t0, now.getAsLong(), roles, ops));
    }

    /**
     * The roles of the composition's partition. Cutting the leader from the controller needs them apart: when the
     * planned partition's leader is the controller, the other partitions are tried in order; when every leader is, the
     * roles stay and the cut is left to fall back (see {@link StepOps#of}: a cut whose sides coincide is skipped).
     */
    Optional<Roles> bind(Composition c) {
        Optional<Roles> planned = roleSource.roles(c.partition());
        if (c.kind() != CompositionKind.CUT_LEADER_FROM_CONTROLLER || planned.isEmpty()
                || !planned.get().leader().equals(planned.get().controller())) {
            return planned;
        }
        for (int i = 1; i < partitions; i++) {
            Optional<Roles> other = roleSource.roles((c.partition() + i) % partitions);
            if (other.isPresent() && !other.get().leader().equals(other.get().controller())) {
                log.accept("composition " + c.index() + ": partition " + c.partition() + "'s leader is the controller; using "
                        + other.get().partition());
                return other;
            }
        }
        return planned;
    }

    /** Sleeps until the nanoTime deadline; false if stopped or interrupted first. */
    private boolean sleepUntil(long deadlineNanos) {
        return pacer.sleepUntil(deadlineNanos, () -> stopped);
    }
}
