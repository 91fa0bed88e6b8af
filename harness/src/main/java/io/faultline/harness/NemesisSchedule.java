package io.faultline.harness;

import io.faultline.checker.history.HistoryRecorder;
import io.faultline.docker.sut.SutCluster;
import io.faultline.nemesis.ClusterHealth;
import io.faultline.nemesis.ClusterView.PartitionRef;
import io.faultline.nemesis.FaultLog;
import io.faultline.nemesis.FaultOptions;
import io.faultline.nemesis.FaultPackage;
import io.faultline.nemesis.FaultPackages;
import io.faultline.nemesis.NemesisContext;
import io.faultline.nemesis.Schedule;
import io.faultline.nemesis.Scheduler;
import io.faultline.results.ReportInput;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The nemesis packages named by --nemesis, scheduled over a run and healed at its end. */
final class NemesisSchedule implements FaultSchedule {
    private final NemesisContext context;
    private final List<FaultPackage> packages;
    private final Scheduler scheduler;
    private final Schedule schedule;
    private final Set<String> active = new LinkedHashSet<>();
    private final RunLog log;

    private NemesisSchedule(TestConfig config, SutCluster cluster, HistoryRecorder recorder, List<String> topics, RunLog log,
                            Set<Integer> onlyCycles) {
        this.log = log;
        // Faults record themselves in the history (Jepsen's info ops of process nemesis) and in the progress line.
        this.context = NemesisContext.builder(cluster)
                .recorder(recorder)
                .log(FaultLog.all(List.of(FaultLog.toHistory(recorder), this::trackActive)))
                .seed(config.seed())
                .build();
        List<PartitionRef> primaries = new ArrayList<>();
        for (String t : topics) primaries.add(primary(t));
        this.packages = FaultPackages.create(config.nemesis(), context, FaultOptions.defaults().withPrimaries(primaries));
        this.scheduler = new Scheduler(context, packages);
        Schedule all = Schedule.of(Duration.ofSeconds(config.nemesisIntervalSeconds()),
                Duration.ofSeconds(config.timeLimitSeconds()), config.seed()).withOverlap(config.faultOverlap());
        this.schedule = onlyCycles == null ? all : all.withOnlyCycles(onlyCycles);
    }

    /** A fault target: "topic" (its partition 0) or "topic:partition" (topic names cannot hold a colon). */
    static PartitionRef primary(String target) {
        int colon = target.lastIndexOf(':');
        if (colon < 0) return new PartitionRef(target, 0);
        return new PartitionRef(target.substring(0, colon), Integer.parseInt(target.substring(colon + 1)));
    }

    static FaultSchedule create(TestConfig config, SutCluster cluster, HistoryRecorder recorder, List<String> topics,
                                RunLog log) {
        return factory(null).create(config, cluster, recorder, topics, log);
    }

    /** Schedules that keep only the faults of these cycles of the seed's schedule (null: all of them). */
    static TestRunner.FaultScheduleFactory factory(Set<Integer> onlyCycles) {
        return (config, cluster, recorder, topics, log) -> config.nemesis().isEmpty() ? FaultSchedule.NONE
                : new NemesisSchedule(config, cluster, recorder, topics, log, onlyCycles);
    }

    /** The packages this run built, then the catalogue's others (a report may meet them in a scenario's ops). */
    @Override
    public List<FaultPackage.Legend> legends() {
        java.util.Map<String, FaultPackage.Legend> out = new java.util.LinkedHashMap<>();
        packages.forEach(p -> out.put(p.name(), p.legend()));
        FaultPackages.legends().forEach(l -> out.putIfAbsent(l.name(), l));
        return List.copyOf(out.values());
    }

    @Override
    public List<Schedule.PlannedOp> plan() {
        return Scheduler.plan(packages, schedule);
    }

    private void trackActive(FaultLog.FaultEvent event) {
        synchronized (active) {
            // events only arrive once the scheduler runs, after the constructor has set packages
            for (FaultPackage p : packages) {
                if (!p.name().equals(event.packageName())) continue;
                if (p.faultFs().contains(event.f()) && event.phase() == FaultLog.Phase.START) active.add(p.name());
                if (p.isHeal(event.f()) && event.phase() == FaultLog.Phase.END) active.remove(p.name());
                if (p.faultFs().contains(event.f()) && event.phase() == FaultLog.Phase.END && event.error() != null) {
                    // the scheduler heals it at once and moves on: say so rather than let a stall look like a fault
                    log.line("fault " + event.f() + " could not start (" + event.error() + "); the schedule moves on");
                    active.remove(p.name());
                }
            }
        }
    }

    @Override
    public void start() {
        scheduler.start(schedule);
    }

    @Override
    public List<String> active() {
        synchronized (active) {
            return List.copyOf(active);
        }
    }

    @Override
    public List<String> stopAndHeal(boolean quick) {
        List<String> problems = List.of();
        try {
            scheduler.stop();
            if (!scheduler.awaitFinished(Duration.ofSeconds(quick ? 5 : 60))) {
                log.line("the nemesis is still in an operation; healing anyway");
            }
            scheduler.finalHeal(Duration.ZERO);
            if (!quick) {
                problems = ClusterHealth.awaitHealthy(context, Duration.ofSeconds(30));
                if (!problems.isEmpty()) log.line("after the final heal: " + String.join("; ", problems));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            scheduler.finalHeal(Duration.ZERO);
        } catch (RuntimeException e) {
            log.line("final heal: " + e);
            problems = List.of("final heal failed: " + e);
        } finally {
            scheduler.teardown();
            synchronized (active) {
                active.clear();
            }
        }
        return problems;
    }

    @Override
    public Map<String, List<ReportInput.ClockPoint>> clockOffsets() {
        Map<String, List<ReportInput.ClockPoint>> out = new LinkedHashMap<>();
        context.clocks().series().forEach((node, samples) -> out.put(node, samples.stream()
                .map(s -> new ReportInput.ClockPoint(s.timeNanos(), s.offsetMillis())).toList()));
        return out;
    }
}
