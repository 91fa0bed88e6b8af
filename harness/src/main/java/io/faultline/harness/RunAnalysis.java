package io.faultline.harness;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Checker;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.EdnWriter;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpenInvocations;
import io.faultline.harness.recovery.LivenessCheck;
import io.faultline.harness.recovery.RecoveryRecord;
import io.faultline.nemesis.FaultPackages;
import io.faultline.nemesis.power.DurabilityPromise;
import io.faultline.nemesis.power.PowerHistory;
import io.faultline.results.HtmlReport;
import io.faultline.results.Liveness;
import io.faultline.results.ReportInput;
import io.faultline.results.RunDir;
import io.faultline.results.RunResults;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The end of every run, and all of `analyze`: check the history, write results.json, history.edn and the
 * report. Never throws for a bad history: the checkers turn internal errors into an unknown verdict.
 */
final class RunAnalysis {
    private RunAnalysis() {}

    /** What the checks concluded, and the report's summary. */
    record Outcome(Verdict verdict, Map<String, CheckResult> checks, HtmlReport.Summary summary, List<String> caveats,
                   Liveness liveness) {
        int exitCode() {
            return switch (verdict) {
                case VALID -> FaultlineCli.EXIT_VALID;
                case INVALID -> FaultlineCli.EXIT_INVALID;
                case UNKNOWN -> FaultlineCli.EXIT_UNKNOWN_OR_ERROR;
            };
        }
    }

    /**
     * How far the end of the run can be trusted. Only a run that finished, whose cluster was healthy after the
     * final heal and whose final drain read up to every acknowledged offset can call an unread value lost.
     */
    record Ending(boolean complete, boolean drained, List<String> problems) {
        Ending {
            problems = problems == null ? List.of() : List.copyOf(problems);
        }

        /** What the run wrote in ending.json; a run that died before writing it counts as incomplete. */
        static Ending ofStored(java.nio.file.Path runDir) {
            try {
                return StoredRun.JSON.readValue(runDir.resolve(TestRunner.ENDING_FILE).toFile(), Ending.class);
            } catch (IOException missingOrTorn) {
                return new Ending(false, false, List.of());
            }
        }

        List<String> caveats() {
            List<String> out = new java.util.ArrayList<>();
            if (!complete) out.add("the run did not finish (interrupted or a harness error): no final drain");
            else if (!drained) out.add("the final drain did not reach every acknowledged offset before its time limit");
            problems.forEach(p -> out.add("after the final heal: " + p));
            return out;
        }
    }

    /** Categories that only mean loss if the final drain read everything there was to read. */
    private static final Set<String> NEED_A_FULL_DRAIN = Set.of("unseen", "lost");

    static Outcome analyze(RunDir run, TestConfig config, Map<String, Object> testJson, List<Op> recorded,
                           Ending ending, Instant startedAt, Map<String, List<ReportInput.ClockPoint>> clocks)
            throws IOException {
        return analyze(run, config, testJson, recorded, ending, startedAt, clocks, List.of(), true);
    }

    /**
     * @param readCaveats what reading the history dropped (a torn last line): shown, and the ending is then not
     *                    trusted to prove loss
     * @param writeEdn    whether to (re)write history.edn; `analyze` does only when asked, as it costs more than
     *                    the checks on a long history
     */
    static Outcome analyze(RunDir run, TestConfig config, Map<String, Object> testJson, List<Op> recorded,
                           Ending ending, Instant startedAt, Map<String, List<ReportInput.ClockPoint>> clocks,
                           List<String> readCaveats, boolean writeEdn)
            throws IOException {
        return analyze(run, config, testJson, checkHistory(config, testJson, recorded), ending, startedAt, clocks,
                readCaveats, writeEdn);
    }

    /**
     * The half of the analysis that reads the history alone (the workload's checkers and the report's history
     * parts): a run starts it while its nodes stop and their files are copied out, the other half waits for those.
     */
    record HistoryChecks(List<Op> history, Map<String, CheckResult> checks, HtmlReport.Prepared prepared) {}

    static HistoryChecks checkHistory(TestConfig config, Map<String, Object> testJson, List<Op> recorded) {
        // Ops the run never completed are indeterminate, as in Jepsen: close them as info before judging.
        List<Op> history = OpenInvocations.completeAsInfo(recorded);
        // What the client settings permit by design (duplicates without idempotence, loss with acks=0) is
        // reported but allowed; everything else is a broken promise.
        List<Checker> checkers = Workloads.checkers(config);
        var faultVocabulary = StoredRun.vocabulary(testJson);
        // The checkers and the report's history-only parts only read the history (records nobody changes), so
        // they run side by side; results keep the checkers' order, so results.json is as from one thread.
        Map<String, CheckResult> checks = new LinkedHashMap<>();
        HtmlReport.Prepared prepared;
        ExecutorService pool = readersPool(Math.min(checkers.size() + 1, Runtime.getRuntime().availableProcessors()));
        try {
            List<Future<CheckResult>> pending = new ArrayList<>();
            for (Checker c : checkers) pending.add(pool.submit(() -> c.check(history)));
            Future<HtmlReport.Prepared> preparing = pool.submit(() -> HtmlReport.prepare(history, faultVocabulary));
            for (int i = 0; i < checkers.size(); i++) checks.put(checkers.get(i).name(), await(pending.get(i)));
            prepared = await(preparing);
        } finally {
            pool.shutdownNow();
        }
        return new HistoryChecks(history, checks, prepared);
    }

    /** The analysis with the history's half already done ({@link #checkHistory}): node files, liveness, report. */
    static Outcome analyze(RunDir run, TestConfig config, Map<String, Object> testJson, HistoryChecks checked,
                           Ending ending, Instant startedAt, Map<String, List<ReportInput.ClockPoint>> clocks,
                           List<String> readCaveats, boolean writeEdn)
            throws IOException {
        List<Op> history = checked.history();
        Map<String, CheckResult> checks = new LinkedHashMap<>(checked.checks());
        HtmlReport.Prepared prepared = checked.prepared();
        var faultVocabulary = StoredRun.vocabulary(testJson);
        // replicas must agree below their high watermarks, whatever the history shows (clients read leaders only)
        CheckResult agreement = io.faultline.results.ReplicaAgreement.check(run.nodesDir(), recoveredPartitions(run));
        if (agreement != null) checks.put(agreement.checker(), agreement);
        // and their files must be well formed (a lost unsynced write may leave one short: not judged under power faults)
        CheckResult segments = FaultPackages.needsLazyFs(config.nemesis()) ? null : io.faultline.results.SegmentAudit.checkWithRules(
                run.nodesDir(), RunAnalysis::compacted, rollRules(testJson, config));
        if (segments != null) checks.put(segments.checker(), segments);
        // and the system's own code must not have thrown what signals a programming error (an invariant, a null);
        // not judged after flipped bits (a flip outside a batch's CRC, its base offset, may meet an invariant check)
        // or power faults (files a lost unsynced write left short or zeroed are read back), as segment-audit
        boolean damaged = FaultPackages.needsLazyFs(config.nemesis())
                || history.stream().anyMatch(o -> io.faultline.nemesis.disk.DiskNemesis.BITFLIP.equals(o.f()));
        CheckResult nodeLogs = damaged ? null : io.faultline.results.NodeLogAudit.check(run.nodesDir(), Suts.codePackages(config.sut()));
        if (nodeLogs != null) checks.put(nodeLogs.checker(), nodeLogs);
        CheckResult audit = audit(run);
        if (audit != null) checks.put(audit.checker(), audit);
        // and a replica move the faults asked for, well formed, must not be refused as malformed
        CheckResult refusals = MembershipRefusals.check(history);
        if (refusals != null) checks.put(refusals.checker(), refusals);
        // and with one node down for long, nothing else wrong, every key must take writes again
        CheckResult failover = FailoverCheck.check(history, config.replicationFactor(), config.minIsr());
        if (failover != null) checks.put(failover.checker(), failover);
        // and, at a quiet end, every replica of the metadata quorum must have caught up with its leader
        CheckResult quorum = QuorumConvergence.check(run.dir());
        if (quorum != null) checks.put(quorum.checker(), quorum);
        List<String> caveats = new java.util.ArrayList<>(readCaveats);
        caveats.addAll(ending.caveats());
        Verdict verdict = verdictOf(checks.values(), caveats.isEmpty());
        // Liveness apart from safety: judged only for a run that reached its end, from what it recorded there.
        // A cluster that never came up (no fault injected yet) is judged too: that is the system failing, not the run.
        Liveness liveness = ending.complete() ? liveness(run, config, history) : neverReady(run);
        if (liveness != null) {
            verdict = verdict.and(liveness.verdict());
            if (liveness.verdict() == Verdict.UNKNOWN) caveats.add("recovery check: " + liveness.reason());
        }
        if (writeEdn) EdnWriter.write(history, run.historyEdn());
        ReportInput.Durability durability = durability(config, history);
        Map<String, Object> shown = new LinkedHashMap<>(testJson);
        shown.remove(StoredRun.FAULTS);
        if (!caveats.isEmpty()) shown.put("caveats", caveats);
        var input = ReportInput.builder(run.testName())
                .parameters(shown)
                .history(history)
                .checks(checks)
                .verdict(verdict)
                .clockOffsets(clocks)
                .nodesDir(run.nodesDir())
                .startedAt(startedAt)
                .complete(ending.complete())
                .faults(faultVocabulary)
                .durability(durability)
                .liveness(liveness)
                .build();
        HtmlReport.Summary summary = HtmlReport.write(input, run.dir(), prepared);
        run.writeResults(new RunResults(verdict, ending.complete(), checks, summary, caveats,
                durability == null ? null : durability.explanation(), liveness));
        // where the run's time went stays beside its results when `analyze` rewrites them
        Object phases = testJson.get(io.faultline.results.HtmlReport.PHASES_KEY);
        if (phases != null) run.addToResults(io.faultline.results.HtmlReport.PHASES_KEY, phases);
        return new Outcome(verdict, checks, summary, caveats, liveness);
    }

    /**
     * Written by a run whose cluster did not come up within the readiness bound (the readiness wait's message), or
     * came up and failed the workload's set-up before any fault (the refusal).
     */
    static final String NEVER_READY_FILE = "never-ready.txt";

    /** Invalid (liveness/never-ready) when the run's cluster never came up; null otherwise. */
    static Liveness neverReady(RunDir run) {
        java.nio.file.Path file = run.dir().resolve(NEVER_READY_FILE);
        if (!java.nio.file.Files.isRegularFile(file)) return null;
        String why;
        try {
            why = java.nio.file.Files.readString(file);
        } catch (IOException e) {
            why = "(" + NEVER_READY_FILE + " cannot be read: " + e.getMessage() + ")";
        }
        return Liveness.neverReady("Started on a healthy network with no fault injected, the cluster never became"
                + " usable: " + why, null);
    }

    /** The API audit's check from audit.json (null: no audit was made); an unreadable file is a failed check. */
    static CheckResult audit(RunDir run) {
        java.nio.file.Path file = run.dir().resolve(io.faultline.harness.audit.ApiAudit.Report.FILE);
        if (!java.nio.file.Files.isRegularFile(file)) return null;
        try {
            return io.faultline.harness.audit.ApiAudit.toCheck(
                    StoredRun.JSON.readValue(file.toFile(), io.faultline.harness.audit.ApiAudit.Report.class));
        } catch (IOException | RuntimeException e) {
            return CheckResult.failure(io.faultline.harness.audit.ApiAudit.CHECKER, e);
        }
    }

    /** Whether a partition (or its directory) belongs to a workload topic created compacted: the nightly's key-value topic. */
    static boolean compacted(String partition) {
        return partition.contains(io.faultline.workloads.kv.KvOps.TOPIC_SUFFIX + "-");
    }

    /** The queue's key topics' partition directories: the run's prefix ("fl" and digits), the key, the partition. */
    private static final java.util.regex.Pattern KEY_PARTITION = java.util.regex.Pattern.compile("fl[0-9]+-[0-9]+-[0-9]+");

    /**
     * The segment.ms each partition directory's topic was created with, by name: the workload's key topics take the
     * one test.json records; -1 (no roll rule) for every other topic and for runs stored without it.
     */
    @SuppressWarnings("unchecked")
    static java.util.function.ToLongFunction<String> segmentMs(Map<String, Object> testJson) {
        Object configs = testJson.get(StoredRun.TOPIC_CONFIGS);
        if (!(configs instanceof Map<?, ?> m) || m.get("segment.ms") == null) return dir -> -1;
        long ms;
        try {
            ms = Long.parseLong(String.valueOf(m.get("segment.ms")));
        } catch (NumberFormatException e) {
            return dir -> -1;
        }
        return dir -> KEY_PARTITION.matcher(dir).matches() ? ms : -1;
    }

    /** Kafka's smallest segment.bytes (since 4.0): no roll of a smaller pair of segments was due by size. */
    static final long SMALLEST_SEGMENT_BYTES = 1 << 20;

    /**
     * The roll rule of each partition directory's topic: segment.ms as {@link #segmentMs}; segment.bytes and
     * segment.index.bytes from the topic's configs, else the brokers' (log.segment.bytes, log.index.size.max.bytes in
     * --broker-prop), else Kafka's smallest segment.bytes and an unknown index size (no early-roll rule).
     */
    @SuppressWarnings("unchecked")
    static java.util.function.Function<String, io.faultline.results.SegmentAudit.RollRule> rollRules(Map<String, Object> testJson,
                                                                                                   TestConfig config) {
        var ms = segmentMs(testJson);
        Map<String, Object> topic = testJson.get(StoredRun.TOPIC_CONFIGS) instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
        long bytes = number(topic.get("segment.bytes"), number(config.brokerProperties().get("log.segment.bytes"), SMALLEST_SEGMENT_BYTES));
        long index = number(topic.get("segment.index.bytes"), number(config.brokerProperties().get("log.index.size.max.bytes"), -1));
        return dir -> {
            long m = ms.applyAsLong(dir);
            return m < 0 ? io.faultline.results.SegmentAudit.RollRule.UNKNOWN
                    : new io.faultline.results.SegmentAudit.RollRule(m, bytes, index);
        };
    }

    private static long number(Object value, long otherwise) {
        if (value == null) return otherwise;
        try {
            return Long.parseLong(String.valueOf(value));
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    /**
     * The partitions (topic-partition) whose whole replica set the recovery check last saw in the ISR: their replicas
     * must hold the same committed log. Empty when the run has no readable recovery.json.
     */

    static java.util.Set<String> recoveredPartitions(RunDir run) {
        java.nio.file.Path file = run.dir().resolve(RecoveryRecord.FILE);
        java.util.Set<String> out = new java.util.TreeSet<>();
        try {
            if (!java.nio.file.Files.isRegularFile(file)) return out;
            RecoveryRecord record = StoredRun.JSON.readValue(file.toFile(), RecoveryRecord.class);
            if (record.findings() == null) return out;
            record.findings().subjects().forEach((name, t) -> {
                // a compacted log has gaps by design: compared as a partition not seen recovered (no gap rule)
                if (t.kind() == io.faultline.harness.recovery.RecoveryTracker.Kind.PARTITION && t.lastOk()
                        && name.startsWith(io.faultline.harness.recovery.RecoveryTracker.PARTITION_PREFIX) && !compacted(name)) {
                    out.add(name.substring(io.faultline.harness.recovery.RecoveryTracker.PARTITION_PREFIX.length()));
                }
            });
        } catch (IOException | RuntimeException e) {
            out.clear(); // unreadable: compare below the lower high watermarks only
        }
        return out;
    }

    /** The recovery check's verdict from recovery.json; null for a run that has none (made before the check existed). */
    static Liveness liveness(RunDir run, TestConfig config, List<Op> history) {
        java.nio.file.Path file = run.dir().resolve(RecoveryRecord.FILE);
        if (!java.nio.file.Files.isRegularFile(file)) return null;
        RecoveryRecord record;
        try {
            record = StoredRun.JSON.readValue(file.toFile(), RecoveryRecord.class);
        } catch (IOException e) {
            return Liveness.unknown(RecoveryRecord.FILE + " cannot be read: " + e.getMessage(), null);
        }
        return LivenessCheck.judge(record, run.nodesDir(), history, !"0".equals(config.acks()));
    }

    private static ExecutorService readersPool(int threads) {
        return Executors.newFixedThreadPool(Math.max(1, threads), r -> {
            Thread t = new Thread(r, "analysis");
            t.setDaemon(true);
            return t;
        });
    }

    /** A checker never throws; what escapes one anyway (an Error such as running out of memory) escapes here. */
    private static <T> T await(Future<T> result) {
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking the history", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error err) throw err;
            if (e.getCause() instanceof RuntimeException re) throw re;
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * When power faults ran: whether the brokers' flush settings promised that acknowledged writes survive the
     * power losses the history shows (how many nodes were off at once), null otherwise. A write acknowledged with
     * acks=1 or 0 was on one replica only when acknowledged, so then one copy is all that was promised.
     */
    static ReportInput.Durability durability(TestConfig config, List<Op> history) {
        if (!FaultPackages.needsLazyFs(config.nemesis())) return null;
        int copies = "all".equals(config.acks()) ? config.minIsr() : 1;
        var promise = DurabilityPromise.of(config.flushMessages(), config.flushMs(), copies,
                PowerHistory.maxNodesOffAtOnce(history));
        return new ReportInput.Durability(promise.promised(), promise.explanation());
    }

    /**
     * Invalid if a check found a forbidden anomaly that stands on its own; unknown if the only ones found need a
     * full drain that did not happen, or a check could not judge; else valid.
     */
    static Verdict verdictOf(Iterable<CheckResult> results, boolean endingTrusted) {
        return Verdict.merge(results, endingTrusted ? Set.of() : NEED_A_FULL_DRAIN);
    }
}
