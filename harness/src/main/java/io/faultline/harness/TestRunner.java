package io.faultline.harness;

import io.faultline.checker.Verdict;
import io.faultline.checker.history.HistoryReader;
import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.Op;
import io.faultline.docker.DockerEngine;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.docker.sut.SutCluster;
import io.faultline.nemesis.FaultPackages;
import io.faultline.docker.sut.SystemUnderTest;
import io.faultline.harness.recovery.ClusterObserver;
import io.faultline.harness.recovery.RecoveryMonitor;
import io.faultline.harness.recovery.RecoveryRecord;
import io.faultline.results.RunDir;
import io.faultline.results.RunStore;
import io.faultline.workloads.PhaseRunner;
import io.faultline.workloads.Workload;
import io.faultline.workloads.queue.QueueSettings;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One Jepsen-style test, phase by phase: provision → build images → start cluster → create topics →
 * workload + nemesis → final heals → recovery wait → final drain → collect → teardown → check → report.
 * Whatever happens (an error, Ctrl-C), the history stays on disk, the cluster is removed and a report is
 * written; an interrupted run's report says it is incomplete.
 */
final class TestRunner {
    /** Written into the run folder when every phase up to the final drain finished. */
    static final String COMPLETE_MARKER = ".complete";
    /** How the run ended (complete, drained, problems after the final heal), for `analyze`. */
    static final String ENDING_FILE = "ending.json";
    /** Hooks run while the JVM exits; this bounds how long Ctrl-C waits for the partial report. */
    private static final Duration INTERRUPT_GRACE = Duration.ofSeconds(150);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(180);
    /** Each broker must answer each request of the recovery probe within this. */
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(500);
    /** After the final phase, a cluster not yet recovered is polled at least this much longer. */
    private static final Duration SETTLE = Duration.ofSeconds(5);
    /** Runs at least this long (seconds) end quietly, checked for converged replicas, and audited. */
    private static final int QUIESCE_FROM_TIME_LIMIT = 60;

    /**
     * How a run ended: its verdict, folder and exit code, the forbidden anomalies found (with counts) and the
     * caveats behind an unknown verdict, and its wall-clock length.
     */
    record Result(Verdict verdict, Path runDir, int exitCode, List<String> anomalies, List<String> caveats,
                  double seconds) {
        Result {
            anomalies = List.copyOf(anomalies);
            caveats = List.copyOf(caveats);
        }
    }

    private final TestConfig config;
    private final RunStore store;
    private final RunLog log;
    private final FaultScheduleFactory faults;
    private final java.util.Set<Integer> onlyCycles;
    private io.faultline.results.Liveness.Bounds livenessBounds = LivenessOptions.DEFAULT_BOUNDS;
    private Path brokerJar;

    /** Builds the fault schedule of a run once the cluster and the history exist. */
    interface FaultScheduleFactory {
        FaultSchedule create(TestConfig config, SutCluster cluster, HistoryRecorder recorder, List<String> topics,
                             RunLog log);

        /** What test.json must also hold so `replay` builds the same schedule (a scenario's name and script). */
        default Map<String, Object> testJsonEntries() {
            return Map.of();
        }

        /** Whether the faults follow a scenario's script (which fixes every fault of the run, the end included). */
        default boolean scripted() {
            return false;
        }

        /** Values sent to a key before it retires (a scenario's one key must not: its script targets that partition). */
        default int maxWritesPerKey() {
            return io.faultline.workloads.queue.QueueOps.Options.defaults().maxWritesPerKey();
        }
    }

    TestRunner(TestConfig config, RunStore store, PrintStream terminal, FaultScheduleFactory faults) {
        this(config, store, terminal, faults, null);
    }

    /** A run whose faults keep only these cycles of the seed's schedule (null: all), as replay and shrink need. */
    TestRunner(TestConfig config, RunStore store, PrintStream terminal, FaultScheduleFactory faults,
               java.util.Set<Integer> onlyCycles) {
        this.config = config;
        this.store = store;
        this.log = new RunLog(terminal);
        this.faults = faults;
        this.onlyCycles = onlyCycles == null ? null : java.util.Set.copyOf(onlyCycles);
    }

    /** The recovery check's bounds for this run (default: {@link LivenessOptions#DEFAULT_BOUNDS}). */
    TestRunner withLivenessBounds(io.faultline.results.Liveness.Bounds bounds) {
        this.livenessBounds = bounds;
        return this;
    }

    /**
     * Runs broker-impl from this jar instead of the built one (a mutant's); test.json records its path and hash
     * under {@value #BROKER_JAR_KEY}.
     */
    TestRunner withBrokerJar(Path jar) {
        if (!"broker-impl".equals(config.sut())) throw new IllegalArgumentException("--broker-jar applies to broker-impl only");
        this.brokerJar = jar;
        return this;
    }

    static final String BROKER_JAR_KEY = "broker-jar";

    /**
     * The jar a stored run's test.json names (replay runs the same broker); a jar that is gone or changed since is
     * one line, not a run of some other broker.
     */
    TestRunner withStoredBrokerJar(Map<String, Object> testJson) throws IOException {
        if (!(testJson.get(BROKER_JAR_KEY) instanceof Map<?, ?> entry)) return this;
        Path jar = Path.of(String.valueOf(entry.get("path")));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("test.json names the broker jar " + jar + ", which is gone");
        }
        if (!sha256(jar).equals(entry.get("sha256"))) {
            throw new IllegalArgumentException("test.json names the broker jar " + jar + ", which changed since the run");
        }
        return withBrokerJar(jar);
    }

    Result run() throws IOException {
        // The seed comes first, so any run can be replayed even if everything after this line fails.
        log.line("seed " + config.seed() + "  (replay: --seed " + config.seed() + ")");
        Instant startedAt = Instant.now();
        RunDir run = store.newRun(config.testName(), startedAt);
        log.attach(run.faultlineLog());
        log.line("run folder " + run.dir());
        if (!config.systemDefaults().isEmpty()) {
            log.line("left to " + config.sut() + "'s own defaults (not written): " + config.systemDefaults().entrySet()
                    .stream().map(e -> e.getKey() + "=" + e.getValue()).collect(java.util.stream.Collectors.joining(", ")));
        }
        SystemUnderTest sut = brokerJar == null ? systemUnderTest(config) : brokerImplWithJar(config, brokerJar);
        var testJson = StoredRun.testJson(run.testName(), config, startedAt, sut.version());
        if (brokerJar != null) {
            testJson.put(BROKER_JAR_KEY, Map.of("path", brokerJar.toAbsolutePath().toString(), "sha256", sha256(brokerJar)));
        }
        if (onlyCycles != null) testJson.put("fault-cycles", new java.util.TreeSet<>(onlyCycles));
        testJson.putAll(faults.testJsonEntries());
        run.writeTestJson(testJson);

        var state = new RunState();
        Thread main = Thread.currentThread();
        CountDownLatch finished = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            // Ctrl-C or a kill: stop the run where it is and let its own cleanup write what it has.
            if (finished.getCount() == 0) return;
            log.line("interrupted: tearing down and writing a partial report");
            state.interrupted = true;
            // Once cleanup has begun it must not be interrupted: it is what writes the history and the report.
            if (!state.cleaningUp) main.interrupt();
            try {
                finished.await(INTERRUPT_GRACE.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        }, "faultline-interrupt");
        Runtime.getRuntime().addShutdownHook(hook);

        try (Progress progress = new Progress(log, Progress.testPhases(config), () -> state.schedule.active(), 5000)) {
            try {
                execute(run, testJson, sut, state, progress);
            } catch (Throwable e) {
                if (state.interrupted) {
                    log.line("run interrupted in phase " + progress.phase());
                } else {
                    state.error = e;
                    log.line("harness error in phase " + progress.phase() + ": " + e);
                    java.io.StringWriter trace = new java.io.StringWriter();
                    e.printStackTrace(new java.io.PrintWriter(trace));
                    log.line(trace.toString().stripTrailing()); // where it came from, causes included
                }
            }
            state.cleaningUp = true;
            Thread.interrupted(); // clear, so cleanup and the report can wait on I/O
            cleanUp(run, state, progress);
            Thread.interrupted(); // a Ctrl-C that raced the flag above must not cut the report short
            return conclude(run, testJson, startedAt, state, progress);
        } finally {
            finished.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it waits for us
            }
            log.close();
        }
    }

    /** Mutable state shared by the phases and the cleanup. */
    private static final class RunState {
        volatile SutCluster cluster;
        volatile HistoryRecorder recorder;
        volatile FaultSchedule schedule = FaultSchedule.NONE;
        volatile boolean complete;
        volatile boolean drained;
        volatile List<String> problemsAfterHeal = List.of();
        /** The audit at the quiet end; its lifecycle part starts with the final drain. */
        volatile EndAudit endAudit;
        volatile boolean interrupted;
        volatile boolean cleaningUp;
        volatile Throwable error;
        volatile boolean healed;
        /** The final heal crashed every node: the recovery wait may then take up to {@link #CRASH_RECOVERY_WAIT}. */
        volatile boolean crashedAtHeal;
        volatile Instant clusterStartedAt;
        /** The cluster's removal, begun after its files were collected and awaited after the check. */
        volatile java.util.concurrent.CompletableFuture<Void> removal;
        volatile RecoveryMonitor recoveryMonitor;
        volatile ClusterObserver observer;
        volatile RecoveryRecord recovery;
        volatile String topicPrefix;
        /** The history's half of the check, begun while the nodes stop and their files are copied out. */
        volatile java.util.concurrent.CompletableFuture<RunAnalysis.HistoryChecks> historyChecks;
    }

    private void execute(RunDir run, Map<String, Object> testJson, SystemUnderTest sut, RunState state, Progress progress)
            throws Exception {
        progress.phase("provision");
        DockerEngine.ensureAvailable();

        progress.phase("build-images");
        String image = sut.buildImage();

        progress.phase("start-cluster");
        state.clusterStartedAt = Instant.now();
        // Power loss needs every node's data on lazyfs, which forgets what was not fsynced.
        try {
            state.cluster = FaultPackages.needsLazyFs(config.nemesis())
                    ? SutCluster.start(sut, image, config.nodes(), READY_TIMEOUT, io.faultline.docker.LazyFsMount::on)
                    : SutCluster.start(sut, image, config.nodes(), READY_TIMEOUT);
        } catch (io.faultline.docker.sut.ClusterNotReadyException e) {
            // the system's failure, not the harness's: kept so the check judges it (liveness/never-ready)
            writeNeverReady(run, "it did not come up within the readiness bound: " + (e.getMessage() == null ? "" : e.getMessage()));
            throw e;
        }
        log.line(config.nodes() + " " + sut.name() + " nodes ready: " + state.cluster.bootstrapServers());
        // node consoles go to the run folder as they are written: nothing holds a whole log in memory
        state.cluster.cluster().streamConsoleLogsTo(run.nodesDir());

        state.recorder = HistoryRecorder.toFile(run.historyJsonl(), config.concurrency());
        testJson.put(StoredRun.HISTORY_ORIGIN, Instant.now().toString());
        step("writing the history origin", () -> run.writeTestJson(testJson));
        progress.recorder(state.recorder);
        state.topicPrefix = "fl" + run.timestamp().replaceAll("[^0-9]", "");
        state.endAudit = new EndAudit(config, log, faults.maxWritesPerKey(), config.timeLimitSeconds() >= QUIESCE_FROM_TIME_LIMIT);
        Workload workload = Workloads.of(config, state.topicPrefix, faults.maxWritesPerKey());
        PhaseRunner.Faults nemesis = new PhaseRunner.Faults() {
            @Override
            public void start(List<String> targets) {
                state.schedule = faults.create(config, state.cluster, state.recorder, targets, log);
                writeSchedule(run, state.schedule);
                // the report draws faults by the vocabulary the run wrote, so it is the schedule's own
                step("writing the fault vocabulary", () -> {
                    testJson.put(StoredRun.FAULTS, StoredRun.vocabularyOf(state.schedule.legends()).toJson());
                    run.writeTestJson(testJson);
                });
                state.schedule.start();
            }

            private Instant healStartedAt;

            @Override
            public void heal() {
                healStartedAt = Instant.now();
                state.problemsAfterHeal = state.schedule.stopAndHeal(false);
                state.healed = true;
                if (!crashAllAtHeal(config, faults.scripted())) startRecoveryCheck(state, healStartedAt);
            }

            /**
             * The crash of every node comes once the ops in flight at the time limit have completed on the healed
             * cluster (or were given up): crashed first, they waited out their grace on restarting nodes, then ended
             * indeterminate.
             */
            @Override
            public void afterInFlight() {
                if (!crashAllAtHeal(config, faults.scripted()) || healStartedAt == null) return;
                crashAll(state);
                state.crashedAtHeal = true;
                startRecoveryCheck(state, healStartedAt);
            }
        };
        // The recovery wait ends early once the recovery check has seen every broker serving and every ISR full
        // (a blind sleep when the check could not start): no point in idling a recovered cluster.
        PhaseRunner.Pause recoveryWait = asked -> {
            // every node restarting at once takes longer than one (five Kafka nodes: 28 s measured); the final writes
            // and reads must meet a cluster that serves again, and the wait still ends at the first healthy poll
            Duration d = state.crashedAtHeal && asked.compareTo(CRASH_RECOVERY_WAIT) < 0 ? CRASH_RECOVERY_WAIT : asked;
            RecoveryMonitor monitor = state.recoveryMonitor;
            if (monitor == null) {
                Thread.sleep(d.toMillis());
            } else if (monitor.awaitRecovered(d)) {
                log.line(String.format("recovery wait: the cluster had recovered after %.1f s of at most %d s",
                        Duration.between(monitor.healedAt(), Instant.now()).toMillis() / 1000.0, d.toSeconds()));
            }
        };
        PhaseRunner.Outcome outcome;
        try {
            outcome = PhaseRunner.run(workload, state.cluster.bootstrapServers(), state.recorder, nemesis,
                    Duration.ofSeconds(config.recoverySeconds()), recoveryWait, phase -> {
                        progress.phase(phase);
                        // the lifecycle audit works on topics of its own: it runs beside the final drain
                        if (PhaseRunner.FINAL_READS.equals(phase)) state.endAudit.startLifecycle(state.cluster.bootstrapServers(), state.topicPrefix);
                    });
        } catch (PhaseRunner.SetupRefused e) {
            // judged like a cluster that never came up (liveness/never-ready), with the refusal as the reason
            writeNeverReady(run, e.getMessage() == null ? "" : e.getMessage());
            throw e;
        }
        finishRecoveryCheck(state);
        quiesce(run, state);
        state.drained = outcome.reached();
        if (!state.drained) log.line("the final drain did not reach every acknowledged offset in " + config.drainSeconds() + " s");
        Files.writeString(run.dir().resolve(COMPLETE_MARKER), Instant.now().toString());
        state.complete = true;
    }

    /**
     * A run of a minute or more ends with the cluster idle for a few seconds, so every replica checkpoints the final
     * high watermark and the recovery check can compare them (liveness/unconverged-replicas). Shorter runs, such
     * as the suite's, skip it. The idle time is used for the read-only API audit of the queue workloads' partitions.
     */
    private void quiesce(RunDir run, RunState state) throws InterruptedException {
        if (config.timeLimitSeconds() < QUIESCE_FROM_TIME_LIMIT || state.recovery == null || state.recovery.findings() == null) return;
        // idle since the last write ended: the final drain and the recovery check's last polls only read
        long idleSinceNanos = lastWriteEnded(state.recorder.ops(), state.recorder.now());
        log.line(String.format("quiescing: the cluster stays without writes for at least %.0f s (%.1f s so far), so every"
                + " replica checkpoints its final high watermark before the stop", RecoveryRecord.CONVERGED_AFTER_SECONDS,
                (state.recorder.now() - idleSinceNanos) / 1e9));
        if (state.endAudit != null) {
            step("auditing ListOffsets, offsetsForTimes, DescribeConfigs and the topic lifecycle", () -> state.endAudit.run(run,
                    state.cluster.bootstrapServers(), state.topicPrefix, state.recovery.findings().subjects().keySet()));
        }
        if (Suts.clientLine(config.sut()) == io.faultline.kafkacompat.KafkaClientLine.CURRENT) {
            step("asking the metadata quorum whether every replica caught up", () -> {
                var q = QuorumConvergence.observe(state.cluster.bootstrapServers(), d -> Thread.sleep(d.toMillis()));
                QuorumConvergence.write(run.dir(), q);
                log.line(q.notJudged() != null ? "metadata quorum: not judged: " + q.notJudged()
                        : String.format("metadata quorum: leader %d, %d replicas, %d behind high watermark %d after %.1f s",
                                q.leaderId(), q.replicas().size(), q.behind().size(), q.highWatermark(), q.seconds()));
            });
        }
        long leftMs = (long) (RecoveryRecord.CONVERGED_AFTER_SECONDS * 1000) - (state.recorder.now() - idleSinceNanos) / 1_000_000;
        if (leftMs > 0) Thread.sleep(leftMs);
        state.recovery = state.recovery.withQuiesced((state.recorder.now() - idleSinceNanos) / 1e9);
    }

    /** When the history's last write (an op with a send) completed, on the history's clock; {@code now} if it has none. */
    static long lastWriteEnded(List<io.faultline.checker.history.Op> ops, long now) {
        for (int i = ops.size() - 1; i >= 0; i--) {
            var op = ops.get(i);
            if (op.process() == io.faultline.checker.history.Op.NEMESIS
                    || op.type() == io.faultline.checker.history.OpType.INVOKE) continue;
            for (var m : op.mops()) if (m instanceof io.faultline.checker.history.MicroOp.Send) return op.time();
        }
        return now;
    }

    /** Keeps why the cluster never became usable, for the check to judge (liveness/never-ready). */
    private void writeNeverReady(RunDir run, String why) {
        step("writing " + RunAnalysis.NEVER_READY_FILE, () -> Files.writeString(run.dir().resolve(RunAnalysis.NEVER_READY_FILE), why));
    }

    /**
     * Whether the final heal ends with a crash of every node at once (kill -9, then start): for the queue workloads
     * (plain, nightly, transactional) under faults that already include process crashes, not under a scenario's
     * script or power faults (lazyfs). A run's own faults restart a node only now and then, so the state a crash must
     * survive (every partition's log, its indexes, checkpoints and producer state as the faults left them) is seldom
     * recovered from disk; after this crash every node recovers all of it, and the final writes, the final drain and
     * the recovery check then judge what came back. A process crash loses nothing a correct broker acknowledged (the
     * page cache survives). It costs the time the nodes take to serve again (3 nodes: 6-9 s here; 5 Kafka nodes up to
     * about 30 s).
     */
    /** The longest recovery wait after a final crash of every node, whatever --recovery says (it ends when recovered). */
    static final Duration CRASH_RECOVERY_WAIT = Duration.ofSeconds(45);

    static boolean crashAllAtHeal(TestConfig config, boolean scripted) {
        boolean queue = List.of("queue", NightlyMix.WORKLOAD, "txn-queue").contains(config.workload());
        return queue && !scripted && config.nemesis().contains(FaultPackages.KILL)
                && !FaultPackages.needsLazyFs(config.nemesis());
    }

    /** Kills every node, then starts every node (each at once); both steps land in the history as nemesis ops. */
    private void crashAll(RunState state) {
        List<io.faultline.docker.Node> nodes = state.cluster.nodes();
        String names = String.join(", ", nodes.stream().map(io.faultline.docker.Node::name).toList());
        log.line("final heal: crashing every node (" + names + ") and starting it again, so each recovers from disk");
        state.recorder.nemesis(io.faultline.checker.history.OpType.INFO, "kill",
                new io.faultline.checker.history.OpValue.Text("final crash of every node: " + names), null);
        long started = System.nanoTime();
        io.faultline.docker.Concurrently.forEach(nodes.stream().filter(io.faultline.docker.Node::isRunning).toList(),
                "final-crash", io.faultline.docker.Node::kill);
        long killed = System.nanoTime();
        io.faultline.docker.Concurrently.forEach(nodes.stream().filter(n -> !n.isRunning()).toList(),
                "final-start", io.faultline.docker.Node::start);
        log.line(String.format("final crash: killed in %.1f s, started again in %.1f s", (killed - started) / 1e9,
                (System.nanoTime() - killed) / 1e9));
        state.recorder.nemesis(io.faultline.checker.history.OpType.INFO, "start",
                new io.faultline.checker.history.OpValue.Text("started " + names), null);
    }

    /** From the end of the final heal on, the cluster is polled in the background (see {@link RecoveryMonitor}). */
    private void startRecoveryCheck(RunState state, Instant healStartedAt) {
        long healNanos = state.recorder.now();
        try {
            var observer = new ClusterObserver(state.cluster.nodes(), PROBE_TIMEOUT, Clock.systemUTC());
            var monitor = new RecoveryMonitor(observer, Clock.systemUTC(), d -> Thread.sleep(d.toMillis()),
                    Duration.ofMillis((long) (livenessBounds.recoverySeconds() * 1000)), POLL_INTERVAL);
            state.observer = observer;
            state.recoveryMonitor = monitor;
            state.recovery = new RecoveryRecord(livenessBounds, healStartedAt.toString(), healNanos,
                    state.clusterStartedAt.toString(), null, null, "the run ended before the recovery check finished");
            monitor.startInBackground();
        } catch (RuntimeException e) {
            state.recovery = new RecoveryRecord(livenessBounds, healStartedAt.toString(), healNanos,
                    String.valueOf(state.clusterStartedAt), null, null, "the recovery check could not start: " + e);
        }
    }

    /** After the final phase: poll on until recovered or past the bound, and keep what was seen. */
    private void finishRecoveryCheck(RunState state) {
        RecoveryMonitor monitor = state.recoveryMonitor;
        RecoveryRecord started = state.recovery;
        if (monitor == null || started == null) return;
        Duration bound = Duration.ofMillis((long) (livenessBounds.recoverySeconds() * 1000));
        var findings = monitor.finish(bound.compareTo(SETTLE) < 0 ? bound : SETTLE);
        state.recovery = new RecoveryRecord(started.bounds(), started.healStartedAt(), started.healedAtHistoryNanos(),
                started.clusterStartedAt(), null, findings, null);
        if (findings.allRecoveredAt() != null) {
            log.line(String.format("recovery: every broker first serving and every partition's ISR first full %.1f s after the final heal",
                    Duration.between(monitor.healedAt(), Instant.parse(findings.allRecoveredAt())).toMillis() / 1000.0));
        } else {
            log.line("recovery: the cluster did not fully recover within " + livenessBounds.recoverySeconds()
                    + " s of the final heal (" + findings.polls() + " polls)");
        }
    }

    /** schedule.json: the faults this run plans, which `replay --schedule` and `shrink` read back. */
    private void writeSchedule(RunDir run, FaultSchedule schedule) {
        step("writing " + ScheduleFile.RUN_FILE, () -> {
            var plan = schedule.plan();
            java.util.Set<Integer> kept = new java.util.TreeSet<>();
            plan.forEach(p -> kept.add(p.cycle()));
            boolean all = onlyCycles == null;
            ScheduleFile.of(config, all ? null : onlyCycles, plan, "run " + run.dir()).write(run.dir().resolve(ScheduleFile.RUN_FILE));
            log.line(kept.size() + " faults planned" + (all ? "" : " (cycles " + onlyCycles + " of the seed's schedule)"));
        });
    }

    /** Always runs: heal, close the history, collect node files, remove every container. */
    private void cleanUp(RunDir run, RunState state, Progress progress) {
        if (!state.healed) {
            // after Ctrl-C the containers may already be gone: heal quickly, do not wait for health
            step("final heal", () -> state.schedule.stopAndHeal(state.interrupted));
        }
        if (state.recoveryMonitor != null) step("stopping the recovery check", state.recoveryMonitor::stopBackground);
        if (state.observer != null) step("closing the recovery probes", state.observer::close);
        if (state.recorder != null) step("closing the history", state.recorder::close);
        if (state.recorder != null && !state.interrupted) state.historyChecks = startHistoryChecks(run);
        step("writing clocks.json", () -> StoredRun.writeClocks(run.dir(), state.schedule.clockOffsets()));
        step("writing " + ENDING_FILE, () -> StoredRun.JSON.writeValue(run.dir().resolve(ENDING_FILE).toFile(),
                new RunAnalysis.Ending(state.complete, state.drained, state.problemsAfterHeal)));
        if (state.cluster != null) {
            progress.phase("collect-and-teardown");
            try {
                timedStep("stopping the nodes", () -> log.line("stopped: " + String.join(", ", state.cluster.stopAll())));
                if (!state.interrupted) timedStep("collecting the nodes' files", () -> state.cluster.collect(run.nodesDir()));
            } finally {
                if (state.interrupted) {
                    timedStep("removing the cluster", state.cluster::close);
                } else {
                    // containers and networks go while the check reads the collected files; conclude waits for it
                    state.removal = startRemoval(state.cluster);
                }
            }
        }
        if (state.recovery != null && state.complete) {
            step("writing " + RecoveryRecord.FILE, () -> StoredRun.JSON.writeValue(run.dir().resolve(RecoveryRecord.FILE).toFile(),
                    state.recovery.withClusterStoppedAt(Instant.now().toString())));
        }
    }

    private interface Step {
        void run() throws Exception;
    }

    /** A cleanup step that also logs how long it took: where a run's seconds go after the workload. */
    private void timedStep(String what, Step step) {
        long start = System.nanoTime();
        step(what, step);
        log.line(String.format("%s: %.1f s", what, (System.nanoTime() - start) / 1e9));
    }

    /** Reads the closed history and runs the checks that need nothing else, on a thread of their own. */
    private java.util.concurrent.CompletableFuture<RunAnalysis.HistoryChecks> startHistoryChecks(RunDir run) {
        Map<String, Object> testJson;
        try {
            testJson = StoredRun.readTestJson(run.dir());
        } catch (IOException | RuntimeException e) {
            log.line("the history's checks wait for the end of the run: " + e);
            return null;
        }
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                List<Op> history = Files.exists(run.historyJsonl()) ? HistoryReader.read(run.historyJsonl()) : List.of();
                return RunAnalysis.checkHistory(config, testJson, history);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, r -> {
            Thread t = new Thread(r, "faultline-history-checks");
            t.setDaemon(true);
            t.start();
        });
    }

    private java.util.concurrent.CompletableFuture<Void> startRemoval(SutCluster cluster) {
        long start = System.nanoTime();
        return java.util.concurrent.CompletableFuture.runAsync(() -> {
            step("removing the cluster", cluster::close);
            log.line(String.format("removing the cluster: %.1f s (beside the check)", (System.nanoTime() - start) / 1e9));
        }, r -> {
            Thread t = new Thread(r, "faultline-removal");
            t.start();
        });
    }

    /** Waits for the cluster's removal begun in cleanup: a run never ends with its containers still there. */
    private void awaitRemoval(RunState state) {
        var removal = state.removal;
        if (removal == null) return;
        try {
            removal.get(REMOVAL_BOUND.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            log.line("interrupted while removing the cluster");
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            log.line("removing the cluster did not finish within " + REMOVAL_BOUND.toSeconds() + " s: " + e);
        }
    }

    private static final Duration REMOVAL_BOUND = Duration.ofMinutes(5);

    /** One cleanup step: a failure is logged and the next step still runs. */
    private void step(String what, Step step) {
        try {
            step.run();
        } catch (Throwable e) {
            log.line(what + " failed: " + e);
        }
    }

    private Result conclude(RunDir run, Map<String, Object> testJson, Instant startedAt, RunState state,
                            Progress progress) throws IOException {
        progress.phase("check");
        // the phases so far, beside the verdict on the report and in test.json (so `analyze` shows them again)
        testJson.put(io.faultline.results.HtmlReport.PHASES_KEY, phaseList(progress.phaseSeconds()));
        step("writing the phase timings", () -> run.writeTestJson(testJson));
        try {
            return check(run, testJson, startedAt, state);
        } finally {
            awaitRemoval(state);
            // every run ends with where its time went, the check included, on the terminal and in results.json
            var phases = progress.phaseSeconds();
            log.line("phases: " + progress.phaseBreakdown() + "; " + Progress.overheadLine(phases, config.timeLimitSeconds()));
            testJson.put(io.faultline.results.HtmlReport.PHASES_KEY, phaseList(phases));
            step("writing the phase timings", () -> run.writeTestJson(testJson));
            if (Files.isRegularFile(run.resultsJson())) {
                step("adding the phase timings to results.json", () -> {
                    run.addToResults(io.faultline.results.HtmlReport.PHASES_KEY, phaseList(phases));
                    run.addToResults(OVERHEAD_KEY, Progress.overhead(phases, config.timeLimitSeconds()));
                });
            }
        }
    }

    /** results.json's harness-overhead entry (see {@link Progress#overhead}). */
    static final String OVERHEAD_KEY = "overhead";

    private static List<Map<String, Object>> phaseList(Map<String, Double> phases) {
        return phases.entrySet().stream().map(e -> Map.<String, Object>of("phase", e.getKey(), "seconds", e.getValue())).toList();
    }

    private Result check(RunDir run, Map<String, Object> testJson, Instant startedAt, RunState state) throws IOException {
        RunAnalysis.HistoryChecks checked = null;
        if (state.historyChecks != null) {
            try {
                checked = state.historyChecks.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while checking the history", e);
            } catch (java.util.concurrent.ExecutionException e) {
                log.line("checking the history beside the teardown failed (" + e.getCause() + "); checking it again");
            }
        }
        if (checked == null) {
            List<Op> recorded = Files.exists(run.historyJsonl()) ? HistoryReader.read(run.historyJsonl()) : List.of();
            checked = RunAnalysis.checkHistory(config, testJson, recorded);
        }
        List<Op> history = checked.history();
        var ending = new RunAnalysis.Ending(state.complete, state.drained, state.problemsAfterHeal);
        var outcome = RunAnalysis.analyze(run, config, testJson, checked, ending, StoredRun.startedAt(testJson),
                state.schedule.clockOffsets(), List.of(), true);
        int exit = state.error != null && outcome.verdict() != Verdict.INVALID
                ? FaultlineCli.EXIT_UNKNOWN_OR_ERROR : outcome.exitCode();
        log.line(String.format("verdict %s%s; %d ops; report %s", outcome.verdict().name().toLowerCase(),
                outcome.caveats().isEmpty() ? "" : " (" + String.join("; ", outcome.caveats()) + ")",
                history.size(), run.reportHtml()));
        var found = new java.util.ArrayList<>(outcome.checks().values().stream().flatMap(r -> r.forbiddenFound().stream())
                .distinct().toList());
        if (outcome.liveness() != null) outcome.liveness().anomalies().stream().map(a -> a.name()).distinct().forEach(found::add);
        if (!found.isEmpty()) log.line("anomalies: " + String.join(", ", found));
        Map<String, Long> counts = outcome.summary() == null ? Map.of() : outcome.summary().anomalyCounts();
        List<String> anomalies = found.stream().map(a -> counts.containsKey(a) ? a + " " + counts.get(a) : a).toList();
        List<String> caveats = new java.util.ArrayList<>(outcome.caveats());
        if (state.error != null) caveats.add("harness error: " + state.error);
        double seconds = java.time.Duration.between(startedAt, Instant.now()).toMillis() / 1000.0;
        return new Result(outcome.verdict(), run.dir(), exit, anomalies, caveats, seconds);
    }

    static SystemUnderTest systemUnderTest(TestConfig config) {
        return Suts.named(config.sut()).create().apply(kafkaSettings(config));
    }

    /** The brokers' settings of a test: what it states, and nothing for what it leaves to the system's defaults. */
    static KafkaSettings kafkaSettings(TestConfig config) {
        KafkaSettings settings = KafkaSettings.defaults()
                .withReplicationFactor(config.replicationFactor())
                .withMinInsyncReplicas(config.minIsr())
                .withUncleanLeaderElection(config.unclean())
                .withFlush(config.flushMessages(), config.flushMs());
        for (var e : config.brokerProperties().entrySet()) settings = settings.withProperty(e.getKey(), e.getValue());
        return settings;
    }

    /** broker-impl with the configuration's settings, running {@code jar} in place of the built broker-impl jar. */
    static SystemUnderTest brokerImplWithJar(TestConfig config, Path jar) {
        return new io.faultline.docker.sut.BrokerImpl(kafkaSettings(config), jar);
    }

    private static String sha256(Path file) throws IOException {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The clients' settings a test configuration stands for; the checker's allowances follow from them. */
    static QueueSettings queueSettings(TestConfig config) {
        return Workloads.queueSettings(config);
    }
}
