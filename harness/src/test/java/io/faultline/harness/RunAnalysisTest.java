package io.faultline.harness;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.results.RunStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the end of a run weighs on the verdict. */
class RunAnalysisTest {
    private static CheckResult invalid(String checker, String... found) {
        Map<String, Long> counts = new java.util.LinkedHashMap<>();
        for (String f : found) counts.put(f, 3L);
        return new CheckResult(checker, Verdict.INVALID, counts, Set.of(), Map.of(), Map.of(), null);
    }

    private static final CheckResult VALID = new CheckResult("x", Verdict.VALID, Map.of("unseen", 0L), Set.of(),
            Map.of(), Map.of(), null);

    @Test
    void theRollRuleKnowsSegmentMsOnlyForTheQueuesKeyTopicsOfRunsThatRecordedIt() {
        var config = new TestConfig("broker-impl", 3, "queue", List.of("partition"), 10, 10, 2, 1, "all", true, 2, 3,
                false, "assign", 5, 7, 1, 1);
        var testJson = StoredRun.testJson("t", config, java.time.Instant.EPOCH, "v");
        var segmentMs = RunAnalysis.segmentMs(testJson);
        assertEquals(3000, segmentMs.applyAsLong("fl20261206093107384-3-0"));
        assertEquals(-1, segmentMs.applyAsLong("fl20261206093107384-kv-0"), "the compacted topic");
        assertEquals(-1, segmentMs.applyAsLong("fl20261206093107384-audit-tri-0"), "the audit's scratch topics");
        assertEquals(-1, RunAnalysis.segmentMs(java.util.Map.of("seed", 1)).applyAsLong("fl1-3-0"), "a run stored before it");
        var offsets = new TestConfig("broker-impl", 3, "offsets", List.of("partition"), 10, 10, 2, 1, "all", true, 2, 3,
                false, "assign", 5, 7, 1, 1);
        assertEquals(-1, RunAnalysis.segmentMs(StoredRun.testJson("t", offsets, java.time.Instant.EPOCH, "v")).applyAsLong("fl1-3-0"));
    }

    @Test
    void theEarlyRollRuleTakesTheTopicsIndexSizeAndTheBrokersSegmentSize() {
        var config = new TestConfig("broker-impl", 3, "queue", List.of("partition"), 10, 10, 2, 1, "all", true, 2, 3,
                false, "assign", 5, 7, 1, 1);
        var rules = RunAnalysis.rollRules(StoredRun.testJson("t", config, java.time.Instant.EPOCH, "v"), config);
        assertEquals(new io.faultline.results.SegmentAudit.RollRule(3000, 1 << 20, 65536), rules.apply("fl1-3-0"));
        assertEquals(io.faultline.results.SegmentAudit.RollRule.UNKNOWN, rules.apply("fl1-kv-0"));
        var small = config.withBrokerProperties(java.util.Map.of("log.segment.bytes", "50000"));
        var stored = new java.util.LinkedHashMap<>(StoredRun.testJson("t", small, java.time.Instant.EPOCH, "v"));
        assertEquals(1 << 20, RunAnalysis.rollRules(stored, small).apply("fl1-3-0").segmentBytes(), "the topic's own wins");
        // a run stored before the topics had a segment size of their own (6 December 2026, evening) and with 1 KiB indexes
        stored.put(StoredRun.TOPIC_CONFIGS, java.util.Map.of("segment.ms", "3000", "segment.index.bytes", "1024"));
        assertEquals(new io.faultline.results.SegmentAudit.RollRule(3000, 50000, 1024), RunAnalysis.rollRules(stored, small)
                .apply("fl1-3-0"), "then a smaller segment size set with --broker-prop");
    }

    @Test
    void unreadValuesAreNotLossWhenTheDrainDidNotHappen() {
        var onlyUnread = List.of(invalid("queue", "unseen"), invalid("total-queue", "lost"));
        assertEquals(Verdict.INVALID, RunAnalysis.verdictOf(onlyUnread, true), "after a full drain: lost");
        assertEquals(Verdict.UNKNOWN, RunAnalysis.verdictOf(onlyUnread, false), "without one: not proven");
    }

    @Test
    void anomaliesThatStandOnTheirOwnStayInvalid() {
        var divergent = List.of(invalid("queue", "unseen", "inconsistent-offsets"), VALID);
        assertEquals(Verdict.INVALID, RunAnalysis.verdictOf(divergent, false));
        assertEquals(Verdict.INVALID, RunAnalysis.verdictOf(List.of(invalid("queue", "lost-write")), false));
        assertEquals(Verdict.VALID, RunAnalysis.verdictOf(List.of(VALID), false));
    }

    @Test
    void caveatsSayWhatWasMissing() {
        assertEquals(List.of(), new RunAnalysis.Ending(true, true, List.of()).caveats());
        assertTrue(new RunAnalysis.Ending(false, false, List.of()).caveats().get(0).contains("did not finish"));
        assertTrue(new RunAnalysis.Ending(true, false, List.of()).caveats().get(0).contains("final drain"));
        assertTrue(new RunAnalysis.Ending(true, true, List.of("n2 is paused")).caveats().get(0).contains("n2 is paused"));
    }

    @Test
    void campaignExitCodesRankInvalidFirst() {
        assertEquals(FaultlineCli.EXIT_INVALID, CampaignCommand.worse(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, FaultlineCli.EXIT_INVALID));
        assertEquals(FaultlineCli.EXIT_INVALID, CampaignCommand.worse(FaultlineCli.EXIT_INVALID, FaultlineCli.EXIT_UNKNOWN_OR_ERROR));
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, CampaignCommand.worse(FaultlineCli.EXIT_VALID, FaultlineCli.EXIT_UNKNOWN_OR_ERROR));
        assertEquals(FaultlineCli.EXIT_VALID, CampaignCommand.worse(FaultlineCli.EXIT_VALID, FaultlineCli.EXIT_VALID));
    }

    // Power faults: the durability explanation comes from the run's flush settings and the power-offs in its history.

    private static TestConfig powerConfig(Long flushMessages) {
        return new TestConfig("broker-impl", 3, "queue", List.of("power"), 10, 10, 2, 1, "all", true, 2, 3, false,
                "assign", 5, 7, 1, 1).withFlush(flushMessages, null);
    }

    private static Op op(long i, OpType type, int process, String f, OpValue value) {
        return new Op(i, type, process, i * 1_000_000, f, value, null);
    }

    /**
     * Two acknowledged sends, the given power-offs (each followed by a power-on of the same nodes), then a poll that
     * reads the second send only (the first lost) or both.
     */
    private static List<Op> history(boolean firstLost, String... powerOffs) {
        List<Op> h = new java.util.ArrayList<>();
        for (int v = 0; v < 2; v++) {
            h.add(op(h.size(), OpType.INVOKE, 0, Op.SEND, OpValue.Txn.of(MicroOp.Send.invoke(1, 10 + v))));
            h.add(op(h.size(), OpType.OK, 0, Op.SEND, OpValue.Txn.of(new MicroOp.Send(1, 10 + v, (long) v))));
        }
        for (String nodes : powerOffs) {
            h.add(op(h.size(), OpType.INFO, Op.NEMESIS, "power-off", new OpValue.Text("all")));
            h.add(op(h.size(), OpType.INFO, Op.NEMESIS, "power-off", new OpValue.Text("power lost on " + nodes + " {}")));
            h.add(op(h.size(), OpType.INFO, Op.NEMESIS, "power-on", new OpValue.Text("all")));
            h.add(op(h.size(), OpType.INFO, Op.NEMESIS, "power-on", new OpValue.Text("powered on " + nodes)));
        }
        List<MicroOp.Record> read = firstLost ? List.of(new MicroOp.Record(1, 11))
                : List.of(new MicroOp.Record(0, 10), new MicroOp.Record(1, 11));
        h.add(op(h.size(), OpType.INVOKE, 1, Op.POLL, OpValue.Txn.of(MicroOp.Poll.invoke())));
        h.add(op(h.size(), OpType.OK, 1, Op.POLL, OpValue.Txn.of(new MicroOp.Poll(Map.of(1, read)))));
        return h;
    }

    /** What analyze wrote: results.json's durability (null when absent) and report.html. */
    private record Written(String durability, String html) {}

    private static Written analyze(Path store, TestConfig config, List<Op> history, Verdict expected) throws Exception {
        var run = new RunStore(store).newRun(config.testName(), Instant.EPOCH);
        var outcome = RunAnalysis.analyze(run, config, StoredRun.testJson(run.testName(), config, Instant.EPOCH, "x"),
                history, new RunAnalysis.Ending(true, true, List.of()), Instant.EPOCH, Map.of(), List.of(), false);
        assertEquals(expected, outcome.verdict(), outcome.checks()::toString);
        @SuppressWarnings("unchecked")
        Map<String, Object> results = StoredRun.JSON.readValue(run.resultsJson().toFile(), Map.class);
        String html = Files.readString(run.reportHtml());
        String durability = (String) results.get("durability");
        if (durability != null) {
            String escaped = durability.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                    .replace("\"", "&quot;").replace("'", "&#39;");
            assertTrue(html.contains(escaped), "the report explains: " + durability);
        }
        return new Written(durability, html);
    }

    @Test
    void aClusterThatNeverCameUpIsInvalidNotUnknown(@TempDir Path store) throws Exception {
        TestConfig config = powerConfig(null);
        var run = new RunStore(store).newRun(config.testName(), Instant.EPOCH);
        Files.writeString(run.dir().resolve(RunAnalysis.NEVER_READY_FILE),
                "broker-impl did not come up within 180 s: missing [n2]\n--- last lines of n2 ---\n(exited with 1)");
        var outcome = RunAnalysis.analyze(run, config, StoredRun.testJson(run.testName(), config, Instant.EPOCH, "x"),
                List.of(), new RunAnalysis.Ending(false, false, List.of()), Instant.EPOCH, Map.of(), List.of(), false);
        assertEquals(Verdict.INVALID, outcome.verdict());
        assertEquals(List.of(io.faultline.results.Liveness.NEVER_READY),
                outcome.liveness().anomalies().stream().map(a -> a.name()).toList());
        assertTrue(outcome.liveness().anomalies().get(0).explanation().contains("missing [n2]"));
        String html = Files.readString(run.reportHtml());
        assertTrue(html.contains("liveness/never-ready"), "the report names it");
    }

    @Test
    void nearMissARunThatStoppedForAnotherReasonStaysUnjudged(@TempDir Path store) throws Exception {
        // no never-ready file: an interrupted run or a harness error (say the engine refused a container)
        TestConfig config = powerConfig(null);
        var run = new RunStore(store).newRun(config.testName(), Instant.EPOCH);
        var outcome = RunAnalysis.analyze(run, config, StoredRun.testJson(run.testName(), config, Instant.EPOCH, "x"),
                List.of(), new RunAnalysis.Ending(false, false, List.of()), Instant.EPOCH, Map.of(), List.of(), false);
        assertNull(outcome.liveness());
        assertFalse(outcome.verdict() == Verdict.INVALID);
    }

    @Test
    void thePhaseTimingsOfTestJsonAreKeptInResultsJson(@TempDir Path store) throws Exception {
        TestConfig config = powerConfig(null);
        var run = new RunStore(store).newRun(config.testName(), Instant.EPOCH);
        var testJson = StoredRun.testJson(run.testName(), config, Instant.EPOCH, "x");
        var phases = List.of(Map.of("phase", "workload", "seconds", 61.0), Map.of("phase", "check", "seconds", 2.5));
        testJson.put(io.faultline.results.HtmlReport.PHASES_KEY, phases);
        RunAnalysis.analyze(run, config, testJson, history(false), new RunAnalysis.Ending(true, true, List.of()),
                Instant.EPOCH, Map.of(), List.of(), false);
        @SuppressWarnings("unchecked")
        Map<String, Object> results = StoredRun.JSON.readValue(run.resultsJson().toFile(), Map.class);
        assertEquals(phases, results.get("phases"), "analyze rewrites results.json with them");
        assertTrue(results.containsKey("verdict") && results.containsKey("checks"), "the rest as written");
    }

    @Test
    void aLossWhenEveryNodeLostPowerWithDefaultFlushingIsAllowedBySettings(@TempDir Path store) throws Exception {
        String html = analyze(store, powerConfig(null), history(true, "[n1, n2, n3]"), Verdict.INVALID).html();
        assertTrue(html.contains("which the settings in force allow"), html);
        assertTrue(html.contains("3 node(s) lost power at once"), html);
        assertTrue(html.contains("log.flush.interval.messages=default"), html);
    }

    @Test
    void aLossWithAnFsyncPerMessageIsABugEvenWhenEveryNodeLostPower(@TempDir Path store) throws Exception {
        String html = analyze(store, powerConfig(1L), history(true, "[n1, n2, n3]"), Verdict.INVALID).html();
        assertTrue(html.contains("a durability bug"), html);
        assertTrue(html.contains("log.flush.interval.messages=1"), html);
    }

    @Test
    void oneNodeAtATimePromisesDurabilityEvenWithDefaultFlushing(@TempDir Path store) throws Exception {
        var h = history(true, "[n1]", "[n2]", "[n3]");
        var d = RunAnalysis.durability(powerConfig(null), h);
        assertTrue(d.promised(), d.explanation());
        String html = analyze(store.resolve("lost"), powerConfig(null), h, Verdict.INVALID).html();
        assertTrue(html.contains("a durability bug") && html.contains("at most 1 node(s) lost power at once"), html);
        html = analyze(store.resolve("kept"), powerConfig(null), history(false, "[n1]", "[n2]"), Verdict.VALID).html();
        assertTrue(html.contains("no acknowledged write was lost"), html);
    }

    @Test
    void noExplanationWithoutPowerFaults(@TempDir Path store) throws Exception {
        var config = new TestConfig("broker-impl", 3, "queue", List.of("kill"), 10, 10, 2, 1, "all", true, 2, 3,
                false, "assign", 5, 7, 1, 1);
        assertNull(RunAnalysis.durability(config, history(true)));
        var written = analyze(store, config, history(true), Verdict.INVALID);
        assertNull(written.durability());
        assertFalse(written.html().contains("id=\"durability\""));
    }

    @Test
    void flushSettingsRoundTripThroughTestJson() {
        var config = powerConfig(1L).withFlush(1L, 500L);
        assertEquals(config, TestConfig.fromMap(config.asMap()));
        assertFalse(powerConfig(null).asMap().containsKey("flush-messages"), "default flushing leaves test.json as it was");
        assertEquals(powerConfig(null), TestConfig.fromMap(powerConfig(null).asMap()));
    }

    @Test
    void flushFlagsReachTheConfigAndBadOnesAreOneLine() {
        var options = new TestOptions();
        new picocli.CommandLine(options).parseArgs("--flush-messages", "1", "--flush-ms", "250");
        TestConfig c = options.toConfig();
        assertEquals(1L, c.flushMessages());
        assertEquals(250L, c.flushMs());
        var r = CliTestSupport.run("test", "--flush-messages", "0");
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode());
        assertTrue(r.err().contains("--flush-messages must be at least 1"), r.err());
    }
}
