package io.faultline.harness;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Checker;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.EdnWriter;
import io.faultline.checker.history.Op;
import io.faultline.checker.queue.QueueChecker;
import io.faultline.checker.queue.TotalQueueChecker;
import io.faultline.results.HtmlReport;
import io.faultline.results.ReportInput;
import io.faultline.results.RunDir;
import io.faultline.results.RunResults;
import io.faultline.workloads.queue.QueueWorkload;

import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The end of every run, and all of `analyze`: check the history, write results.json, history.edn and the
 * report. Never throws for a bad history: the checkers turn internal errors into an unknown verdict.
 */
final class RunAnalysis {
    private RunAnalysis() {}

    /** What the checks concluded, and the report's summary. */
    record Outcome(Verdict verdict, Map<String, CheckResult> checks, HtmlReport.Summary summary) {
        int exitCode() {
            return switch (verdict) {
                case VALID -> FaultlineCli.EXIT_VALID;
                case INVALID -> FaultlineCli.EXIT_INVALID;
                case UNKNOWN -> FaultlineCli.EXIT_UNKNOWN_OR_ERROR;
            };
        }
    }

    static Outcome analyze(RunDir run, TestConfig config, Map<String, Object> testJson, List<Op> history,
                           boolean complete, Instant startedAt, Map<String, List<ReportInput.ClockPoint>> clocks)
            throws IOException {
        // What the client settings permit by design (duplicates without idempotence, loss with acks=0) is
        // reported but allowed; everything else is a broken promise.
        var allowed = QueueWorkload.allowedAnomalies(TestRunner.queueSettings(config));
        List<Checker> checkers = List.of(
                new QueueChecker(new QueueChecker.Options(allowed, QueueChecker.DEFAULT_MAX_EXAMPLES)),
                new TotalQueueChecker());
        Map<String, CheckResult> checks = new LinkedHashMap<>();
        for (Checker c : checkers) checks.put(c.name(), c.check(history));
        Verdict verdict = complete ? combine(checks.values()) : worstOf(combine(checks.values()), Verdict.UNKNOWN);
        EdnWriter.write(history, run.historyEdn());
        var input = ReportInput.builder(run.testName())
                .parameters(testJson)
                .history(history)
                .checks(checks)
                .verdict(verdict)
                .clockOffsets(clocks)
                .nodesDir(run.nodesDir())
                .startedAt(startedAt)
                .complete(complete)
                .build();
        HtmlReport.Summary summary = HtmlReport.write(input, run.dir());
        run.writeResults(new RunResults(verdict, complete, checks, summary));
        return new Outcome(verdict, checks, summary);
    }

    /** Invalid if any check is invalid; else unknown if any is unknown; else valid. */
    static Verdict combine(Iterable<CheckResult> results) {
        Verdict v = Verdict.VALID;
        for (CheckResult r : results) v = worstOf(v, r.verdict());
        return v;
    }

    private static Verdict worstOf(Verdict a, Verdict b) {
        if (a == Verdict.INVALID || b == Verdict.INVALID) return Verdict.INVALID;
        if (a == Verdict.UNKNOWN || b == Verdict.UNKNOWN) return Verdict.UNKNOWN;
        return Verdict.VALID;
    }
}
