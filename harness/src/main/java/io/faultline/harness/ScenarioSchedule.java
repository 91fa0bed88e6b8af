package io.faultline.harness;

import io.faultline.checker.history.HistoryRecorder;
import io.faultline.kafkacompat.ClusterAdmin;
import io.faultline.docker.sut.SutCluster;
import io.faultline.harness.Scenario.Role;
import io.faultline.harness.Scenario.Step;
import io.faultline.nemesis.ClusterHealth;
import io.faultline.nemesis.ClusterView.PartitionRef;
import io.faultline.nemesis.FaultLog;
import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.FaultOptions;
import io.faultline.nemesis.FaultPackage;
import io.faultline.nemesis.FaultPackages;
import io.faultline.nemesis.NemesisContext;
import io.faultline.nemesis.Scheduler;
import io.faultline.nemesis.disk.DiskFault;
import io.faultline.nemesis.disk.DiskNemesis;
import io.faultline.nemesis.net.Grudge;
import io.faultline.nemesis.net.PartitionShape;
import io.faultline.nemesis.net.Partitioner;
import io.faultline.nemesis.power.PowerNemesis;
import io.faultline.nemesis.process.ProcessNemesis;
import io.faultline.nemesis.process.Target;
import io.faultline.results.ReportInput;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * A scenario's script as a run's fault schedule: on a background thread it resolves the roles (leader, followers,
 * the rest) of the workload's first partition, then performs each step through the nemesis packages' own
 * operations, so faults land in the history, the report's bands and the final heal exactly as scheduled faults do.
 */
final class ScenarioSchedule implements FaultSchedule {
    private final Scenario scenario;
    private final SutCluster cluster;
    private final PartitionRef partition;
    private final NemesisContext context;
    private final Scheduler scheduler;
    private final RunLog log;
    private final Set<String> active = new LinkedHashSet<>();
    private final boolean unclean;
    private final HistoryRecorder recorder;
    private volatile Thread thread;
    private volatile Map<Role, List<String>> roles;

    private ScenarioSchedule(Scenario scenario, TestConfig config, SutCluster cluster, HistoryRecorder recorder,
                             List<String> topics, RunLog log) {
        this.scenario = scenario;
        this.unclean = config.uncleanInEffect();
        this.recorder = recorder;
        this.cluster = cluster;
        this.log = log;
        this.partition = new PartitionRef(topics.get(0), 0);
        this.context = NemesisContext.builder(cluster).recorder(recorder)
                .log(FaultLog.all(List.of(FaultLog.toHistory(recorder), this::track))).seed(config.seed()).build();
        List<FaultPackage> packages = FaultPackages.create(config.nemesis(), context, FaultOptions.defaults().withPrimaries(List.of(partition)));
        this.scheduler = new Scheduler(context, packages);
    }

    /** test.json's key for the scenario a run performed: {"name": …, "script": […]} (what replay reads). */
    static final String TEST_JSON_KEY = "scenario";

    static TestRunner.FaultScheduleFactory factory(Scenario scenario) {
        return new TestRunner.FaultScheduleFactory() {
            @Override
            public FaultSchedule create(TestConfig config, SutCluster cluster, HistoryRecorder recorder, List<String> topics,
                                        RunLog log) {
                return new ScenarioSchedule(scenario, config, cluster, recorder, topics, log);
            }

            /**
             * The one key never retires: the script acts on its partition, and a loss at its tail is proven only by
             * later writes to it (with Jepsen's 1000 values per key, key 0 retired mid-script and acks-1-failover's
             * lost tail stayed unseen: unknown).
             */
            @Override
            public int maxWritesPerKey() {
                return 1_000_000;
            }

            @Override
            public Map<String, Object> testJsonEntries() {
                return Map.of(TEST_JSON_KEY, Map.of("name", scenario.name(), "script", script(scenario)));
            }

            @Override
            public boolean scripted() {
                return true;
            }
        };
    }

    /** The script as text, one step a line (stored so a replay can tell when the scenario changed since). */
    static List<String> script(Scenario scenario) {
        return scenario.steps().stream().map(Object::toString).toList();
    }

    /**
     * The scenario a stored run performed, from its test.json, or empty for a run of random faults. A name this
     * build does not know, or a script that changed since, is one clear error: replaying would not repeat the run.
     */
    static java.util.Optional<Scenario> of(Map<String, Object> testJson) {
        Object entry = testJson.get(TEST_JSON_KEY);
        if (entry == null) return java.util.Optional.empty();
        if (!(entry instanceof Map<?, ?> m) || !(m.get("name") instanceof String name)) {
            throw new IllegalArgumentException("test.json: \"" + TEST_JSON_KEY + "\" must be an object with a \"name\"");
        }
        List<Scenario> variants = Scenarios.variants(name);
        if (!(m.get("script") instanceof List<?> stored)) return java.util.Optional.of(Scenarios.forRun(name));
        for (Scenario s : variants) if (normalized(stored).equals(normalized(script(s)))) return java.util.Optional.of(s);
        throw new IllegalArgumentException("test.json: scenario " + name + " ran the script " + stored
                + " but this build's is " + script(Scenarios.forRun(name)) + ": a replay would not repeat it");
    }

    /**
     * A stored script with the names inside each [...] sorted: runs stored before the cut's roles were printed sorted
     * carry them in whatever order that JVM's Set had.
     */
    static List<String> normalized(List<?> script) {
        var bracket = java.util.regex.Pattern.compile("\\[([^\\]]*)\\]");
        return script.stream().map(String::valueOf).map(line -> bracket.matcher(line).replaceAll(m ->
                java.util.regex.Matcher.quoteReplacement("[" + String.join(", ", java.util.Arrays.stream(m.group(1).split(",\\s*"))
                        .sorted().toList()) + "]"))).toList();
    }

    private void track(FaultLog.FaultEvent e) {
        synchronized (active) {
            if (e.phase() != FaultLog.Phase.START) return;
            switch (e.f()) {
                case Partitioner.START -> active.add("partition");
                case Partitioner.STOP -> active.remove("partition");
                case ProcessNemesis.KILL -> active.add("kill");
                case ProcessNemesis.START -> active.remove("kill");
                case PowerNemesis.OFF -> active.add("power");
                case PowerNemesis.ON -> active.remove("power");
                default -> { }
            }
        }
    }

    @Override
    public void start() {
        scheduler.setup();
        if (unclean) enableUncleanClusterWide();
        Thread t = new Thread(this::runScript, "faultline-scenario");
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    /**
     * Also sets unclean.leader.election.enable=true as the cluster-wide dynamic default (server.properties already
     * has it): broker-impl's controller reads only the metadata's configs (topic, then cluster default) when it
     * elects, not its server.properties, so without this its unclean election never happens. Kafka takes the same
     * setting the same way, so both systems run the scenario with the same configuration.
     */
    private void enableUncleanClusterWide() {
        try (ClusterAdmin admin = admin()) {
            admin.setClusterDefault("unclean.leader.election.enable", "true");
            log.line("scenario: unclean.leader.election.enable=true set as the cluster-wide dynamic default");
        } catch (Exception e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            log.line("scenario: could not set unclean.leader.election.enable as the cluster default: " + e);
        }
    }

    /** An admin client of the kafka-clients line the system under test speaks. */
    private ClusterAdmin admin() {
        return ClusterAdmin.open(cluster.bootstrapServers(), cluster.sut().clientLine());
    }

    /** Acknowledged writes the workload must have before the script starts (a busy machine connects slowly). */
    static final int WRITES_BEFORE_SCRIPT = 200;

    /** Waits (at most 90 s) until the workload has {@link #WRITES_BEFORE_SCRIPT} acknowledged sends. */
    private void awaitWrites() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        long acked = 0;
        while (System.nanoTime() < deadline) {
            acked = recorder.ops().stream().filter(op -> op.process() != io.faultline.checker.history.Op.NEMESIS
                    && op.type() == io.faultline.checker.history.OpType.OK && "send".equals(op.f())).count();
            if (acked >= WRITES_BEFORE_SCRIPT) break;
            Thread.sleep(250);
        }
        log.line("scenario script starts after " + acked + " acknowledged sends");
    }

    private void runScript() {
        int i = 0;
        try {
            awaitWrites();
            for (Step step : scenario.steps()) {
                i++;
                if (step instanceof Step.Wait w) {
                    Thread.sleep(w.duration().toMillis());
                    continue;
                }
                if (roles == null) roles = resolveRoles();
                if (step instanceof Step.AwaitIsr a) {
                    log.line("scenario step " + i + "/" + scenario.steps().size() + ": " + step + " " + roles.get(a.role()));
                    log.line("scenario step " + i + ": " + awaitIsr(Set.copyOf(roles.get(a.role())), a.limit()));
                    continue;
                }
                if (step instanceof Step.AwaitInIsr a) {
                    log.line("scenario step " + i + "/" + scenario.steps().size() + ": " + step + " " + roles.get(a.role()));
                    log.line("scenario step " + i + ": " + awaitInIsr(Set.copyOf(roles.get(a.role())), a.limit()));
                    continue;
                }
                if (step instanceof Step.AwaitLeader a) {
                    log.line("scenario step " + i + "/" + scenario.steps().size() + ": " + step + " " + roles.get(a.role()));
                    log.line("scenario step " + i + ": " + awaitLeader(roles.get(a.role()).get(0), a.limit()));
                    continue;
                }
                log.line("scenario step " + i + "/" + scenario.steps().size() + ": " + step + describeTargets(step));
                FaultOp done = perform(step);
                if (done.isFailed()) log.line("scenario step " + i + " failed: " + done.error() + " (the script goes on)");
            }
            log.line("scenario script finished");
        } catch (InterruptedException e) {
            log.line("scenario script stopped at step " + i + " (the workload ended first)");
        } catch (RuntimeException e) {
            log.line("scenario script aborted at step " + i + ": " + e);
        }
    }

    private String describeTargets(Step step) {
        if (step instanceof Step.Kill k) return " " + roles.get(k.role());
        if (step instanceof Step.Start st) return " " + roles.get(st.role());
        if (step instanceof Step.TruncateTail t) return " " + roles.get(t.role());
        if (step instanceof Step.TearTail t) return " " + roles.get(t.role());
        if (step instanceof Step.PowerOff p) return " " + names(p.roles());
        if (step instanceof Step.PowerOn p) return " " + roles.get(p.role());
        if (step instanceof Step.Cut c) return " " + names(c.side()) + " | " + names(c.from());
        if (step instanceof Step.CutFetches c) return " " + fetchGrudge(c) + " port " + cluster.sut().replicationPort();
        return "";
    }

    private FaultOp perform(Step step) {
        if (step instanceof Step.Cut c) {
            return scheduler.invoke(FaultPackages.PARTITION,
                    FaultOp.of(Partitioner.START, new PartitionShape.Explicit(grudge(names(c.side()), names(c.from())))));
        }
        if (step instanceof Step.CutFetches c) {
            return scheduler.invoke(FaultPackages.PARTITION, FaultOp.of(Partitioner.START,
                    new PartitionShape.PortCut(fetchGrudge(c), cluster.sut().replicationPort())));
        }
        if (step instanceof Step.Heal) return scheduler.invoke(FaultPackages.PARTITION, FaultOp.of(Partitioner.STOP));
        if (step instanceof Step.Kill k) return scheduler.invoke(FaultPackages.KILL, FaultOp.of(ProcessNemesis.KILL, nodes(k.role())));
        if (step instanceof Step.Start st) return scheduler.invoke(FaultPackages.KILL, FaultOp.of(ProcessNemesis.START, nodes(st.role())));
        if (step instanceof Step.TruncateTail t) {
            return scheduler.invoke(FaultPackages.DISK, FaultOp.of(DiskNemesis.TRUNCATE, new DiskFault.Truncate(nodes(t.role()), t.bytes())));
        }
        if (step instanceof Step.TearTail t) {
            return scheduler.invoke(FaultPackages.DISK, FaultOp.of(DiskNemesis.TEAR, new DiskFault.Tear(nodes(t.role()), t.bytes())));
        }
        if (step instanceof Step.PowerOff p) {
            return scheduler.invoke(FaultPackages.POWER, FaultOp.of(PowerNemesis.OFF, new Target.Nodes(List.copyOf(names(p.roles())))));
        }
        if (step instanceof Step.PowerOn p) return scheduler.invoke(FaultPackages.POWER, FaultOp.of(PowerNemesis.ON, nodes(p.role())));
        throw new IllegalStateException("not a fault step: " + step);
    }

    private Target nodes(Role role) {
        return new Target.Nodes(roles.get(role));
    }

    private Set<String> names(Set<Role> rs) {
        Set<String> out = new TreeSet<>();
        for (Role r : rs) out.addAll(roles.get(r));
        return out;
    }

    private Grudge fetchGrudge(Step.CutFetches c) {
        return fetchGrudge(c, roles);
    }

    /** The nodes that drop fetches, each with the nodes whose connections to its replication port it drops. */
    static Grudge fetchGrudge(Step.CutFetches c, Map<Role, List<String>> roles) {
        Map<String, Set<String>> drops = new TreeMap<>();
        c.fetchesTo().forEach((from, to) -> {
            for (Role r : to) {
                for (String server : roles.get(r)) drops.computeIfAbsent(server, k -> new TreeSet<>()).addAll(roles.get(from));
            }
        });
        return new Grudge(drops);
    }

    /** Each node of a drops each node of b and the other way round. */
    static Grudge grudge(Set<String> a, Set<String> b) {
        Map<String, Set<String>> drops = new TreeMap<>();
        for (String x : a) drops.computeIfAbsent(x, k -> new TreeSet<>()).addAll(b);
        for (String y : b) drops.computeIfAbsent(y, k -> new TreeSet<>()).addAll(a);
        return new Grudge(drops);
    }

    /**
     * Polls the partition's leader until it is {@code node} while that node runs, twice in a row (metadata still
     * naming a node that just crashed is stale, not a new election), or the limit passes; says which.
     */
    private String awaitLeader(String node, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        String seen = "unknown";
        int agreeing = 0;
        // one admin client for the whole wait (reopened after an error): opening one per poll took seconds on a
        // loaded machine, and kip-101-failover must act within replica.lag.time.max.ms of the election
        ClusterAdmin admin = null;
        try {
            while (System.nanoTime() < deadline) {
                try {
                    if (admin == null) admin = admin();
                    var p = admin.partition(partition.topic(), partition.partition()).orElseThrow();
                    seen = p.leader().isEmpty() ? "none" : "n" + p.leader().getAsInt();
                    agreeing = seen.equals(node) && context.node(node).isRunning() ? agreeing + 1 : 0;
                    if (agreeing >= 2) return node + " leads " + partition;
                } catch (Exception e) {
                    seen = "unknown (" + e.getClass().getSimpleName() + ")";
                    closeQuietly(admin);
                    admin = null;
                }
                Thread.sleep(250);
            }
        } finally {
            closeQuietly(admin);
        }
        return "gave up after " + limit.toSeconds() + " s: the leader is " + seen + " (the script goes on)";
    }

    private static void closeQuietly(ClusterAdmin admin) {
        if (admin == null) return;
        try {
            admin.close();
        } catch (RuntimeException e) {
            // closing a client whose cluster is half down may fail; the next poll opens a fresh one
        }
    }

    /** Polls the partition's ISR until it is exactly {@code nodes} or the limit passes; says which. */
    private String awaitIsr(Set<String> nodes, Duration limit) throws InterruptedException {
        return awaitIsr(nodes, limit, true);
    }

    /** Polls the partition's ISR until it holds every one of {@code nodes} or the limit passes; says which. */
    private String awaitInIsr(Set<String> nodes, Duration limit) throws InterruptedException {
        return awaitIsr(nodes, limit, false);
    }

    /**
     * Back in the ISR counts only under another leader, twice in a row: a node just back from a cut still answers
     * with its own stale metadata (itself leading, the old ISR), which once let a script kill the new leader
     * before the old one had even learnt of it.
     */
    private String awaitIsr(Set<String> nodes, Duration limit, boolean exactly) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        String seen = "unknown";
        int agreeing = 0;
        while (System.nanoTime() < deadline) {
            try (ClusterAdmin admin = admin()) {
                var p = admin.partition(partition.topic(), partition.partition()).orElseThrow();
                Set<String> isr = new TreeSet<>();
                for (int id : p.isr()) isr.add("n" + id);
                String leader = p.leader().isEmpty() ? "none" : "n" + p.leader().getAsInt();
                seen = isr + " under leader " + leader;
                boolean match = exactly ? isr.equals(nodes) : isr.containsAll(nodes) && !nodes.contains(leader);
                agreeing = match ? agreeing + 1 : 0;
                if (match && (exactly || agreeing >= 2)) return "the ISR is " + seen;
            } catch (Exception e) {
                seen = "unknown (" + e.getClass().getSimpleName() + ")";
            }
            Thread.sleep(500);
        }
        return "gave up after " + limit.toSeconds() + " s: the ISR is " + seen + " (the script goes on)";
    }

    /**
     * The replicas in the order a clean election considers them (assignment order). A release whose metadata lists
     * replicas in some other order (Kafka before 0.11) still reports the ISR as a list, which the controller first
     * writes in assignment order: while the ISR is full, its order is the assignment order (an ISR that shrank and grew
     * again since may not be; nothing better is asked of the cluster).
     */
    static List<Integer> electionOrder(List<Integer> replicas, List<Integer> isr, boolean replicasInOrder) {
        if (replicasInOrder || isr.size() != replicas.size() || !isr.containsAll(replicas)) return replicas;
        return List.copyOf(isr);
    }

    /** Leader, followers and the rest of the partition, from the cluster's own metadata (retried for 30 s). */
    private Map<Role, List<String>> resolveRoles() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            try (ClusterAdmin admin = admin()) {
                var found = admin.partition(partition.topic(), partition.partition());
                if (found.isPresent() && found.get().leader().isPresent()) {
                    var p = found.get();
                    String leader = "n" + p.leader().getAsInt();
                    List<Integer> order = electionOrder(p.replicas(), p.isr(), cluster.sut().metadataKeepsReplicaOrder());
                    if (order != p.replicas()) log.line("scenario: this release reports replicas " + p.replicas()
                            + " out of assignment order; the ISR as first written gives it: " + order);
                    List<String> followers = new ArrayList<>();
                    for (int r : order) if (r != p.leader().getAsInt()) followers.add("n" + r);
                    List<String> others = new ArrayList<>(context.nodeNames());
                    others.remove(leader);
                    others.removeAll(followers);
                    Map<Role, List<String>> out = new EnumMap<>(Role.class);
                    out.put(Role.LEADER, List.of(leader));
                    out.put(Role.FOLLOWERS, List.copyOf(followers));
                    out.put(Role.OTHERS, List.copyOf(others));
                    out.put(Role.FOLLOWER_1, followers.isEmpty() ? List.of() : List.of(followers.get(0)));
                    out.put(Role.FOLLOWER_2, followers.size() < 2 ? List.of() : List.of(followers.get(1)));
                    String controller = context.activeController().orElse("unknown");
                    log.line("scenario roles of " + partition + ": leader " + leader + ", followers " + followers + ", others "
                            + others + " (active controller " + controller + ")");
                    return out;
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                last = new IllegalStateException("describe " + partition + ": " + e);
            }
            Thread.sleep(500);
        }
        throw last != null ? last : new IllegalStateException("no leader of " + partition + " within 30 s");
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
            Thread t = thread;
            if (t != null) {
                t.interrupt();
                t.join(Duration.ofSeconds(quick ? 5 : 60).toMillis());
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
        return Map.of();
    }
}
