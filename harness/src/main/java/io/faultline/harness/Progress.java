package io.faultline.harness;

import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The progress line of a run: phase, elapsed and remaining time, client ops ok/fail/info so far, and the faults
 * in force. Printed every few seconds from its own daemon thread. The time left is what the current phase is
 * still expected to take plus the expected length of every phase after it, so that while images build it counts
 * the workload still to come instead of the test length minus the time spent so far.
 */
final class Progress implements AutoCloseable {
    /** A phase of a run and how long it is expected to take. */
    record PhasePlan(String name, long expectedSeconds) {
        PhasePlan {
            if (expectedSeconds < 0) throw new IllegalArgumentException("negative estimate for " + name);
        }
    }

    private record Current(int index, String name, long sinceNanos) {}

    private final RunLog log;
    private final LongSupplier nanoClock;
    private final long startNanos;
    private final List<PhasePlan> plan;
    private final AtomicReference<Current> current;
    private final java.util.Map<String, Double> spent = new java.util.LinkedHashMap<>();
    private final AtomicReference<HistoryRecorder> recorder = new AtomicReference<>();
    private final Supplier<List<String>> activeFaults;
    private final Thread thread;
    private volatile boolean closed;

    Progress(RunLog log, List<PhasePlan> plan, Supplier<List<String>> activeFaults, long periodMillis) {
        this(log, plan, activeFaults, periodMillis, System::nanoTime);
    }

    /** {@code periodMillis} ≤ 0: no printing thread (tests ask for {@link #line()} themselves). */
    Progress(RunLog log, List<PhasePlan> plan, Supplier<List<String>> activeFaults, long periodMillis,
             LongSupplier nanoClock) {
        if (plan.isEmpty()) throw new IllegalArgumentException("no phases");
        this.log = log;
        this.plan = List.copyOf(plan);
        this.nanoClock = nanoClock;
        this.startNanos = nanoClock.getAsLong();
        this.current = new AtomicReference<>(new Current(0, plan.get(0).name(), startNanos));
        this.activeFaults = activeFaults;
        if (periodMillis <= 0) {
            this.thread = null;
            return;
        }
        this.thread = new Thread(() -> {
            while (!closed) {
                try {
                    Thread.sleep(periodMillis);
                } catch (InterruptedException e) {
                    return;
                }
                if (!closed) log.line(line());
            }
        }, "faultline-progress");
        thread.setDaemon(true);
        thread.start();
    }

    /** The phases of a test run with these settings, in order, with rough expectations for this machine. */
    static List<PhasePlan> testPhases(TestConfig config) {
        List<PhasePlan> p = new ArrayList<>();
        p.add(new PhasePlan("provision", 2));
        p.add(new PhasePlan("build-images", 10));
        p.add(new PhasePlan("start-cluster", 15 + 3L * config.nodes()));
        p.add(new PhasePlan("create-topics", 2));
        p.add(new PhasePlan("start-faults", config.nemesis().isEmpty() ? 0 : 2));
        p.add(new PhasePlan("workload", config.timeLimitSeconds()));
        p.add(new PhasePlan("final-heal", config.nemesis().isEmpty() ? 0 : 5));
        p.add(new PhasePlan("recovery", config.recoverySeconds()));
        p.add(new PhasePlan("final-drain", Math.min(config.drainSeconds(), 10)));
        p.add(new PhasePlan("collect-and-teardown", 10));
        p.add(new PhasePlan("check", 3));
        return p;
    }

    /** Enters a phase; a name outside the plan counts as the last phase. */
    void phase(String name) {
        int index = plan.size() - 1;
        for (int i = 0; i < plan.size(); i++) {
            if (plan.get(i).name().equals(name)) {
                index = i;
                break;
            }
        }
        long now = nanoClock.getAsLong();
        Current before = current.getAndSet(new Current(index, name, now));
        synchronized (spent) {
            spent.merge(before.name(), (now - before.sinceNanos()) / 1e9, Double::sum);
        }
        log.line("phase " + name + " (" + elapsedSeconds() + " s elapsed)");
    }

    /**
     * Seconds spent in each phase so far, in the order they were entered, the current one up to now; a phase
     * entered twice adds up. The first entry covers the time before the first named phase.
     */
    java.util.Map<String, Double> phaseSeconds() {
        java.util.Map<String, Double> out;
        synchronized (spent) {
            out = new java.util.LinkedHashMap<>(spent);
        }
        Current c = current.get();
        out.merge(c.name(), (nanoClock.getAsLong() - c.sinceNanos()) / 1e9, Double::sum);
        out.replaceAll((k, v) -> Math.round(v * 10) / 10.0);
        return out;
    }

    /** One line: each phase and its seconds, e.g. "provision 0.4 s, build-images 3.1 s, …". */
    String phaseBreakdown() {
        StringBuilder b = new StringBuilder();
        phaseSeconds().forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append(' ')
                .append(String.format(java.util.Locale.ROOT, "%.1f s", v)));
        return b.toString();
    }

    /** Phases that bring the cluster up: the target leaves them out (they depend on the system, not the harness). */
    static final java.util.Set<String> CLUSTER_START = java.util.Set.of("provision", "build-images", "start-cluster");

    /**
     * The harness's overhead from these phase timings: seconds in all, seconds of cluster start, and the ratio of the
     * rest to the time limit (1.0 would be a run that does nothing but its workload).
     */
    static java.util.Map<String, Object> overhead(java.util.Map<String, Double> phases, long timeLimitSeconds) {
        double total = phases.values().stream().mapToDouble(Double::doubleValue).sum();
        double start = phases.entrySet().stream().filter(e -> CLUSTER_START.contains(e.getKey()))
                .mapToDouble(java.util.Map.Entry::getValue).sum();
        var out = new java.util.LinkedHashMap<String, Object>();
        out.put("total-seconds", Math.round(total * 10) / 10.0);
        out.put("cluster-start-seconds", Math.round(start * 10) / 10.0);
        out.put("time-limit-seconds", timeLimitSeconds);
        out.put("ratio", timeLimitSeconds <= 0 ? null : Math.round((total - start) / timeLimitSeconds * 100) / 100.0);
        return out;
    }

    /** E.g. "98.1 s in all, 82.3 s beyond cluster start = 1.37× the 60 s time limit". */
    static String overheadLine(java.util.Map<String, Double> phases, long timeLimitSeconds) {
        var o = overhead(phases, timeLimitSeconds);
        double total = (Double) o.get("total-seconds"), start = (Double) o.get("cluster-start-seconds");
        return String.format(java.util.Locale.ROOT, "%.1f s in all, %.1f s beyond cluster start", total, total - start)
                + (o.get("ratio") == null ? "" : String.format(java.util.Locale.ROOT, " = %.2f× the %d s time limit",
                (Double) o.get("ratio"), timeLimitSeconds));
    }

    String phase() {
        return current.get().name();
    }

    void recorder(HistoryRecorder r) {
        recorder.set(r);
    }

    long elapsedSeconds() {
        return (nanoClock.getAsLong() - startNanos) / 1_000_000_000L;
    }

    /** Expected seconds still to come: the rest of this phase (none once it overran) and every later phase. */
    long remainingSeconds() {
        Current c = current.get();
        long inPhase = (nanoClock.getAsLong() - c.sinceNanos()) / 1_000_000_000L;
        long left = Math.max(0, plan.get(c.index()).expectedSeconds() - inPhase);
        for (int i = c.index() + 1; i < plan.size(); i++) left += plan.get(i).expectedSeconds();
        return left;
    }

    /** Seconds the current phase has run past its expected time (0 while within it). */
    long overrunSeconds() {
        Current c = current.get();
        long inPhase = (nanoClock.getAsLong() - c.sinceNanos()) / 1_000_000_000L;
        return Math.max(0, inPhase - plan.get(c.index()).expectedSeconds());
    }

    String line() {
        long ok = 0, fail = 0, info = 0;
        HistoryRecorder r = recorder.get();
        if (r != null) {
            for (Op op : r.ops()) {
                if (op.process() == Op.NEMESIS) continue;
                if (op.type() == OpType.OK) ok++;
                else if (op.type() == OpType.FAIL) fail++;
                else if (op.type() == OpType.INFO) info++;
            }
        }
        List<String> faults = activeFaults.get();
        // a phase that overran says so: a time left that stands still for minutes looks like a hang
        long over = overrunSeconds();
        return String.format("[%s] %ds elapsed, ~%ds left%s | ops ok %d fail %d info %d | faults: %s",
                phase(), elapsedSeconds(), remainingSeconds(),
                over == 0 ? "" : " after this phase, " + over + "s past its estimate", ok, fail, info,
                faults.isEmpty() ? "none" : String.join(", ", faults));
    }

    @Override
    public void close() {
        closed = true;
        if (thread != null) thread.interrupt();
    }
}
