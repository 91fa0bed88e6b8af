package io.faultline.nemesis;

import io.faultline.nemesis.FaultLog.FaultEvent;
import io.faultline.nemesis.FaultLog.Phase;
import io.faultline.nemesis.Schedule.PlannedOp;
import io.faultline.nemesis.Schedule.Role;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Runs composed fault packages: {@link #setup()}, then a seeded {@link Schedule} on a thread of its own until its
 * deadline ({@link #start}/{@link #awaitFinished}), then {@link #finalHeal} (every package's heal ops, in package
 * order, then a recovery wait) and {@link #teardown()}. Ops run one at a time, as from Jepsen's single nemesis
 * process; each is logged when it starts and when it ends, failures included.
 */
public final class Scheduler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

    private final NemesisContext ctx;
    private final Pacer pacer;
    private final Map<String, FaultPackage> packages = new LinkedHashMap<>();
    private final List<FaultOp> executed = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean stopRequested;
    private Thread thread;
    private boolean setUp;

    public Scheduler(NemesisContext ctx, List<FaultPackage> packages) {
        this(ctx, packages, Pacer.SYSTEM);
    }

    /** A scheduler whose waits go through {@code pacer} (a manual one in tests). */
    public Scheduler(NemesisContext ctx, List<FaultPackage> packages, Pacer pacer) {
        this.ctx = ctx;
        this.pacer = pacer;
        for (FaultPackage p : packages) {
            if (this.packages.put(p.name(), p) != null) throw new IllegalArgumentException("package twice: " + p.name());
        }
    }

    public List<FaultPackage> packages() {
        return List.copyOf(packages.values());
    }

    /**
     * The ops a schedule will run, with their times: a pure function of the packages and the schedule (seed
     * included), so a run's faults can be printed, compared and replayed. Cycle after cycle: a healthy window, one
     * package's fault, a hold window, that package's heal ops (none for instantaneous faults such as a restart).
     * With {@link Schedule#overlap()} some cycles start inside the one before (see {@link Schedule}); the plan is
     * in time order. Random draws do not depend on {@link Schedule#onlyCycles()}, so a kept cycle is the same with
     * or without the others.
     */
    public static List<PlannedOp> plan(List<FaultPackage> packages, Schedule schedule) {
        if (packages.isEmpty()) return List.of();
        Random random = new Random(schedule.seed());
        long intervalMs = schedule.interval().toMillis();
        long endMs = schedule.duration().toMillis();
        Map<String, Long> faults = new HashMap<>();
        Map<String, Long> holdsUntil = new HashMap<>();
        List<PlannedOp> plan = new ArrayList<>();
        long t = window(random, intervalMs);
        for (int cycle = 0; t < endMs; cycle++) {
            final long now = t;
            List<FaultPackage> free = packages.stream().filter(q -> holdsUntil.getOrDefault(q.name(), -1L) < now).toList();
            if (free.isEmpty()) { // cannot happen at overlap 0: every fault has been healed before the next starts
                t = holdsUntil.values().stream().mapToLong(Long::longValue).max().orElseThrow() + window(random, intervalMs);
                cycle--;
                continue;
            }
            FaultPackage p = free.get(random.nextInt(free.size()));
            long k = faults.merge(p.name(), 1L, Long::sum) - 1;
            FaultOp fault = faultOp(p, random, k);
            long healAt = t + window(random, intervalMs);
            holdsUntil.put(p.name(), healAt);
            if (schedule.keeps(cycle)) {
                plan.add(new PlannedOp(t, p.name(), fault, cycle, Role.FAULT));
                if (!p.healFs().isEmpty() && healAt < endMs) {
                    for (FaultOp heal : p.finalHeal()) plan.add(new PlannedOp(healAt, p.name(), heal, cycle, Role.HEAL));
                }
            }
            if (schedule.overlap() > 0 && random.nextDouble() < schedule.overlap() && free.size() > 1) {
                t = t + (healAt - t) / 5 + (long) (random.nextDouble() * 3 * (healAt - t) / 5);
            } else {
                long lastHeal = holdsUntil.values().stream().mapToLong(Long::longValue).max().orElseThrow();
                t = lastHeal + window(random, intervalMs) + schedule.quietPeriod().toMillis();
            }
        }
        plan.sort(java.util.Comparator.comparingLong(PlannedOp::atMillis)); // stable: a cycle's fault before its heals
        return plan;
    }

    /** Uniform in [interval/2, 3·interval/2): about one interval, never zero. */
    private static long window(Random random, long intervalMs) {
        return intervalMs / 2 + (long) (random.nextDouble() * intervalMs);
    }

    /**
     * The k-th fault of a package. Generators alternate fault and heal (or mix them, like the clock's reset), so
     * the even ops are asked for, and a heal drawn anyway is drawn again (a few times at most).
     */
    private static FaultOp faultOp(FaultPackage p, Random random, long k) {
        FaultOp op = p.generator().next(random, 2 * k);
        for (int tries = 0; tries < 8 && p.isHeal(op.f()); tries++) op = p.generator().next(random, 2 * k);
        return op;
    }

    /** Sets up every distinct nemesis once, in package order. */
    public synchronized void setup() {
        if (setUp) return;
        for (var nemesis : distinctNemeses()) nemesis.setup(ctx);
        setUp = true;
    }

    /** Runs one op of a package now, logging its start and end; never throws, a failure is in the returned op. */
    public FaultOp invoke(String packageName, FaultOp op) {
        FaultPackage p = packages.get(packageName);
        if (p == null) throw new IllegalArgumentException("no package " + packageName + " in " + packages.keySet());
        ctx.log().record(new FaultEvent(Phase.START, p.name(), op.f(), op.describeValue(), ctx.now(), null));
        FaultOp done;
        try {
            done = p.nemesis().invoke(ctx, op);
        } catch (RuntimeException e) {
            LOG.warn("{} {} failed: {}", p.name(), op.f(), e.toString());
            done = op.failed(e);
        }
        ctx.log().record(new FaultEvent(Phase.END, p.name(), op.f(),
                done.result() == null ? op.describeValue() : done.result(), ctx.now(), done.error()));
        LOG.info("nemesis {}", done);
        executed.add(done);
        return done;
    }

    /**
     * Runs the schedule on the calling thread until its deadline (or {@link #stop()}). Gaps are kept from the end
     * of the previous op, as Jepsen's sleeps between generator ops are: a kill or heal that takes seconds on a busy
     * machine delays what follows instead of eating the hold or the healthy window after it. A fault that cannot
     * start (its op failed, e.g. no active controller to isolate) does not hold the schedule: its heal runs at once,
     * in case part of it took effect, and the healthy window follows.
     */
    public void run(Schedule schedule) {
        setup();
        List<PlannedOp> plan = plan(packages(), schedule);
        long start = pacer.nanoTime();
        long deadline = start + schedule.duration().toNanos();
        long lastEnd = start, lastPlannedAt = 0;
        Set<Integer> healedEarly = new java.util.HashSet<>();
        for (int i = 0; i < plan.size(); i++) {
            PlannedOp planned = plan.get(i);
            if (planned.role() == Role.HEAL && healedEarly.contains(planned.cycle())) continue;
            long due = lastEnd + (planned.atMillis() - lastPlannedAt) * 1_000_000;
            if (!sleepUntil(Math.min(due, deadline)) || pacer.nanoTime() >= deadline) break;
            FaultOp done = invoke(planned.packageName(), planned.op());
            lastPlannedAt = planned.atMillis();
            if (planned.role() == Role.FAULT && done.isFailed()) {
                LOG.warn("{} could not start ({}); healing at once and moving on", planned.op().f(), done.error());
                healedEarly.add(planned.cycle());
                // its heals now; when nothing else was planned in between, the healthy window after them still follows
                boolean adjacent = true;
                for (int j = i + 1; j < plan.size(); j++) {
                    PlannedOp later = plan.get(j);
                    if (later.cycle() != planned.cycle()) {
                        adjacent = false;
                        continue;
                    }
                    invoke(later.packageName(), later.op());
                    if (adjacent) lastPlannedAt = later.atMillis();
                }
            }
            lastEnd = pacer.nanoTime();
        }
        sleepUntil(deadline);
    }

    /** Starts {@link #run} on its own thread. */
    public synchronized void start(Schedule schedule) {
        if (thread != null) throw new IllegalStateException("already started");
        setup();
        thread = new Thread(() -> run(schedule), "faultline-nemesis");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Asks the schedule to end after the op in progress. It is not interrupted: an op cut short could leave a
     * fault half-applied, with nothing recorded about it.
     */
    public void stop() {
        stopRequested = true;
    }

    /** Waits for the scheduled run to end; false if it is still running after the timeout. */
    public boolean awaitFinished(Duration timeout) throws InterruptedException {
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t == null) return true;
        t.join(timeout.toMillis());
        return !t.isAlive();
    }

    /**
     * Ends every fault: each package's final heal ops in package order (a failed heal is logged and the rest still
     * run), then waits {@code recoveryWait} for the system to settle. Returns the completed heal ops.
     */
    public List<FaultOp> finalHeal(Duration recoveryWait) {
        stop(); // a schedule still running must not fault again while (or after) we heal
        try {
            if (!awaitFinished(Duration.ofMinutes(5))) LOG.warn("the schedule's op in progress did not end in 5 minutes");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<FaultOp> heals = new ArrayList<>();
        for (FaultPackage p : packages.values()) {
            for (FaultOp op : p.finalHeal()) heals.add(invoke(p.name(), op));
        }
        try {
            Thread.sleep(recoveryWait.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return heals;
    }

    /** Every op run so far, completed, in order. */
    public List<FaultOp> executed() {
        synchronized (executed) {
            return List.copyOf(executed);
        }
    }

    /** Tears down every distinct nemesis in reverse package order. */
    public synchronized void teardown() {
        var nemeses = new ArrayList<>(distinctNemeses());
        Collections.reverse(nemeses);
        for (var n : nemeses) {
            try {
                n.teardown(ctx);
            } catch (RuntimeException e) {
                LOG.warn("teardown of {} failed: {}", n.getClass().getSimpleName(), e.toString());
            }
        }
        setUp = false;
    }

    @Override
    public void close() {
        stop();
        teardown();
    }

    private List<Nemesis> distinctNemeses() {
        Set<Nemesis> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Nemesis> out = new ArrayList<>();
        for (FaultPackage p : packages.values()) if (seen.add(p.nemesis())) out.add(p.nemesis());
        return out;
    }

    /** Sleeps until the nanoTime deadline; false if stopped or interrupted first. */
    private boolean sleepUntil(long deadlineNanos) {
        return pacer.sleepUntil(deadlineNanos, () -> stopRequested);
    }
}
