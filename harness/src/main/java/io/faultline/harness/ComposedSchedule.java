package io.faultline.harness;

import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.observe.CoverageMap;
import io.faultline.checker.observe.Transition;
import io.faultline.docker.sut.KafkaAdmin;
import io.faultline.docker.sut.SutCluster;
import io.faultline.nemesis.ClusterHealth;
import io.faultline.nemesis.ClusterView.PartitionRef;
import io.faultline.nemesis.FaultLog;
import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.FaultOptions;
import io.faultline.nemesis.FaultPackage;
import io.faultline.nemesis.FaultPackages;
import io.faultline.nemesis.NemesisContext;
import io.faultline.nemesis.Pacer;
import io.faultline.nemesis.Schedule;
import io.faultline.nemesis.Scheduler;
import io.faultline.nemesis.compose.Composer;
import io.faultline.nemesis.compose.Composition;
import io.faultline.nemesis.compose.CompositionKind;
import io.faultline.nemesis.compose.CompositionRunner;
import io.faultline.nemesis.compose.Roles;
import io.faultline.nemesis.compose.Step;
import io.faultline.nemesis.compose.StepOps;
import io.faultline.nemesis.observe.MetadataObserver;
import io.faultline.results.ReportInput;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The nightly mix's faults: a plan of role-aware compositions ({@link Composer}, random or guided by a coverage map),
 * performed through the nemesis packages, while a {@link MetadataObserver} records the cluster's state transitions.
 * The plan is a pure function of the seed, the mix's settings and the coverage map it started from (stored in
 * test.json), so a replay plans the same compositions; schedule.json lists them, one cycle per composition.
 */
final class ComposedSchedule implements FaultSchedule {
    /** How long after its last op a composition is still credited with the transitions seen. */
    static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final TestConfig config;
    private final SutCluster cluster;
    private final NemesisContext context;
    private final List<FaultPackage> packages;
    private final Scheduler scheduler;
    private final List<Composition> plan;
    private final List<String> topics;
    private final RunLog log;
    private final Set<String> active = new LinkedHashSet<>();
    private final CompositionRunner runner;
    private final MetadataObserver observer;
    /** After the final heal, the observer watches for at most this long for the cluster to settle. */
    private static final Duration SETTLE_BOUND = Duration.ofSeconds(3);
    private volatile Thread thread;

    ComposedSchedule(TestConfig config, NightlyMix.Spec spec, SutCluster cluster, HistoryRecorder recorder,
                     List<String> topics, RunLog log, Set<Integer> onlyCompositions) {
        this.config = config;
        this.cluster = cluster;
        this.topics = List.copyOf(topics);
        this.log = log;
        this.context = NemesisContext.builder(cluster).recorder(recorder)
                .log(FaultLog.all(List.of(FaultLog.toHistory(recorder), this::track))).seed(config.seed()).build();
        List<PartitionRef> primaries = topics.stream().map(NemesisSchedule::primary).toList();
        this.packages = FaultPackages.create(config.nemesis(), context, FaultOptions.defaults().withPrimaries(primaries));
        this.scheduler = new Scheduler(context, packages);
        List<Composition> all = plan(config, spec, Math.max(1, topics.size()));
        this.plan = onlyCompositions == null ? all : all.stream().filter(c -> onlyCompositions.contains(c.index())).toList();
        this.runner = new CompositionRunner(scheduler::invoke, this::roles, Math.max(1, topics.size()), context.nodeNames(),
                Pacer.SYSTEM, context::now, log::line);
        this.observer = new MetadataObserver(cluster.bootstrapServers(), MetadataObserver.topicsOf(topics),
                Duration.ofMillis(500), context::now, t -> log.line("observed " + t));
    }

    /**
     * Schedules of this mix; {@code onlyCompositions} keeps those of the plan (null: all), as replay of a shrunk
     * schedule needs; {@code created} is told of each schedule made (so the caller can read its observations).
     */
    static TestRunner.FaultScheduleFactory factory(NightlyMix.Spec spec, Set<Integer> onlyCompositions,
                                                   java.util.function.Consumer<ComposedSchedule> created) {
        return new TestRunner.FaultScheduleFactory() {
            @Override
            public FaultSchedule create(TestConfig config, SutCluster cluster, HistoryRecorder recorder, List<String> topics,
                                        RunLog log) {
                var s = new ComposedSchedule(config, spec, cluster, recorder, topics, log, onlyCompositions);
                created.accept(s);
                return s;
            }

            @Override
            public Map<String, Object> testJsonEntries() {
                return Map.of(NightlyMix.TEST_JSON_KEY, spec.toJson());
            }
        };
    }

    /** The run's plan: its compositions from the seed, the mix's settings and (guided) the stored coverage map. */
    static List<Composition> plan(TestConfig config, NightlyMix.Spec spec, int partitions) {
        boolean clock = config.nemesis().contains(FaultPackages.CLOCK);
        boolean links = config.nemesis().contains(FaultPackages.LINK);
        boolean disk = config.nemesis().contains(FaultPackages.DISK);
        boolean membership = config.nemesis().contains(FaultPackages.MEMBERSHIP);
        var shape = new CompositionKind.Shape(config.nemesisIntervalSeconds() * 1000L, NightlyMix.sessionTimeoutMillis(config),
                clock, links, disk, membership);
        var options = new Composer.Options(spec.kinds(), partitions, shape, spec.density(), spec.healthySeconds() * 1000L, 0.25);
        CoverageMap coverage = spec.guided() ? (spec.coverage() == null ? new CoverageMap() : CoverageMap.fromJson(spec.coverage())) : null;
        return Composer.plan(options, config.seed(), config.timeLimitSeconds() * 1000L, coverage);
    }

    List<Composition> compositions() {
        return plan;
    }

    /** The schedule.json view: each composition's ops (roles, not nodes: they are bound when it starts) at their times. */
    @Override
    public List<Schedule.PlannedOp> plan() {
        return planView(plan);
    }

    /**
     * The ops of these compositions at their times, each described by its step (its roles). Steps are resolved
     * against stand-ins shaped like real bindings (node names ni, a partition topic-p) so every kind of step resolves
     * as it would in a run; only the package and the op's name are kept from that.
     */
    static List<Schedule.PlannedOp> planView(List<Composition> plan) {
        Roles standIns = new Roles("topic-0", "n1", List.of("n2", "n3"), Set.of(), "n4", "n5");
        List<String> nodes = List.of("n1", "n2", "n3", "n4", "n5", "n6");
        List<Schedule.PlannedOp> out = new ArrayList<>();
        for (Composition c : plan) {
            long t = c.atMillis();
            for (Step s : c.steps()) {
                if (s instanceof Step.Wait w) {
                    t += w.millis();
                    continue;
                }
                var inv = StepOps.of(s, standIns, nodes);
                if (inv.isEmpty()) continue;
                boolean heal = s instanceof Step.Heal || s instanceof Step.Start || s instanceof Step.Resume
                        || s instanceof Step.ResetClocks || s instanceof Step.HealLinks;
                out.add(new Schedule.PlannedOp(t, inv.get().packageName(), FaultOp.of(inv.get().op().f(),
                        c.kind().id() + " (" + c.choice() + "): " + s), c.index(), heal ? Schedule.Role.HEAL : Schedule.Role.FAULT));
            }
        }
        return out;
    }

    /**
     * The roles of the composition's partition, from the cluster's metadata now. Index i picks among the partitions of
     * the keys in use, the newest but for those made ahead of need (keys retire and new topics take their place, so
     * the first topics go quiet), the controller from the system's own view.
     */
    private Optional<Roles> roles(int index) {
        try (Admin admin = KafkaAdmin.create(cluster.bootstrapServers())) {
            var watched = MetadataObserver.topicsOf(topics);
            List<String> live = admin.listTopics().names().get(10, TimeUnit.SECONDS).stream().filter(watched)
                    .sorted(java.util.Comparator.comparingInt(ComposedSchedule::topicNumber)).toList();
            if (live.isEmpty()) return Optional.empty();
            // the newest topics are the next keys', made ahead of need (TopicManager): no writes reach them yet
            int end = Math.max(Math.min(topics.size(), live.size()), live.size() - io.faultline.workloads.queue.TopicManager.LOOKAHEAD);
            List<String> newest = live.subList(Math.max(0, end - topics.size()), end);
            String topic = newest.get(index % newest.size());
            List<PartitionRef> states = transactionStates(topics);
            return rolesOf(admin, topic, context.activeController().orElse(null)).map(r -> states.isEmpty()
                    ? withCoordinator(admin, r, topic) : withTransactionCoordinator(admin, r, states.get(index % states.size())));
        } catch (Exception e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** Leader, followers (replica order) and ISR of a topic's partition 0 as node names (broker i is node ni). */
    static Optional<Roles> rolesOf(Admin admin, String topic, String controller) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
        var p = d.partitions().get(0);
        if (p.leader() == null || p.leader().isEmpty()) return Optional.empty();
        String leader = "n" + p.leader().id();
        List<String> followers = new ArrayList<>();
        for (var r : p.replicas()) if (r.id() != p.leader().id()) followers.add("n" + r.id());
        Set<String> isr = new HashSet<>();
        for (var r : p.isr()) isr.add("n" + r.id());
        return Optional.of(new Roles(topic + "-0", leader, followers, isr, controller));
    }

    /**
     * The transaction state partitions among the fault targets (txn-queue names those of its transactional ids): their
     * leaders are those transactions' coordinators, so there COORDINATOR means the transaction coordinator.
     */
    static List<PartitionRef> transactionStates(List<String> targets) {
        return targets.stream().filter(t -> t.startsWith(org.apache.kafka.common.internals.Topic.TRANSACTION_STATE_TOPIC_NAME + ":"))
                .map(NemesisSchedule::primary).toList();
    }

    /** The roles with the leader of a transaction state partition as the coordinator; unchanged if it has none. */
    private static Roles withTransactionCoordinator(Admin admin, Roles r, PartitionRef state) {
        try {
            var d = admin.describeTopics(List.of(state.topic())).allTopicNames().get(10, TimeUnit.SECONDS).get(state.topic());
            var leader = d.partitions().get(state.partition()).leader();
            if (leader == null || leader.isEmpty()) return r;
            return new Roles(r.partition(), r.leader(), r.followers(), r.isr(), r.controller(), "n" + leader.id());
        } catch (Exception e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            return r;
        }
    }

    /** The roles with the workload group's coordinator (FindCoordinator, through DescribeGroups); unchanged if unknown. */
    private static Roles withCoordinator(Admin admin, Roles r, String topic) {
        String group = io.faultline.workloads.queue.QueueWorkloadConfig.defaultGroupId(topic.substring(0, topic.lastIndexOf('-')));
        try {
            var d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get(10, TimeUnit.SECONDS);
            if (d.coordinator() == null || d.coordinator().isEmpty()) return r;
            return new Roles(r.partition(), r.leader(), r.followers(), r.isr(), r.controller(), "n" + d.coordinator().id());
        } catch (Exception e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            return r;
        }
    }

    private static int topicNumber(String topic) {
        try {
            return Integer.parseInt(topic.substring(topic.lastIndexOf('-') + 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private void track(FaultLog.FaultEvent event) {
        synchronized (active) {
            for (FaultPackage p : packages) {
                if (!p.name().equals(event.packageName())) continue;
                if (p.faultFs().contains(event.f()) && event.phase() == FaultLog.Phase.START) active.add(p.name());
                if (p.isHeal(event.f()) && event.phase() == FaultLog.Phase.END) active.remove(p.name());
            }
        }
    }

    @Override
    public void start() {
        scheduler.setup();
        observer.start();
        log.line(plan.size() + " compositions planned: " + String.join(", ", plan.stream().map(c -> c.kind().id()).toList()));
        Thread t = new Thread(() -> runner.run(plan, config.timeLimitSeconds() * 1000L), "faultline-compositions");
        t.setDaemon(true);
        thread = t;
        t.start();
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
            runner.stop();
            Thread t = thread;
            if (t != null) {
                t.interrupt();
                t.join(Duration.ofSeconds(quick ? 5 : 60).toMillis());
            }
            scheduler.finalHeal(Duration.ZERO);
            if (!quick) {
                problems = ClusterHealth.awaitHealthy(context, Duration.ofSeconds(30));
                if (!problems.isEmpty()) log.line("after the final heal: " + String.join("; ", problems));
                // the recovery's own transitions (ISR back to full) belong to the run too: keep observing until a
                // fresh poll sees every leader back and every ISR full, for at most what a blind wait used to take
                observer.awaitSettled(SETTLE_BOUND);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            scheduler.finalHeal(Duration.ZERO);
        } catch (RuntimeException e) {
            log.line("final heal: " + e);
            problems = List.of("final heal failed: " + e);
        } finally {
            observer.close();
            scheduler.teardown();
            synchronized (active) {
                active.clear();
            }
        }
        return problems;
    }

    /** The transitions the observer saw, in order. */
    List<Transition> transitions() {
        return observer.transitions();
    }

    /** Each composition that ran, as a coverage window (its first op to its last, plus the settling after). */
    List<CoverageMap.Window> windows() {
        return runner.executed().stream().map(e -> new CoverageMap.Window(e.composition().kind().id(), e.startNanos(),
                e.endNanos() + SETTLE_NANOS)).toList();
    }

    List<CompositionRunner.Executed> executed() {
        return runner.executed();
    }

    @Override
    public Map<String, List<ReportInput.ClockPoint>> clockOffsets() {
        Map<String, List<ReportInput.ClockPoint>> out = new LinkedHashMap<>();
        context.clocks().series().forEach((node, samples) -> out.put(node, samples.stream()
                .map(s -> new ReportInput.ClockPoint(s.timeNanos(), s.offsetMillis())).toList()));
        return out;
    }

    @Override
    public List<FaultPackage.Legend> legends() {
        Map<String, FaultPackage.Legend> out = new LinkedHashMap<>();
        packages.forEach(p -> out.put(p.name(), p.legend()));
        FaultPackages.legends().forEach(l -> out.putIfAbsent(l.name(), l));
        return List.copyOf(out.values());
    }
}
