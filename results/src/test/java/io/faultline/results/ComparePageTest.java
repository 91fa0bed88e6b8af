package io.faultline.results;

import io.faultline.checker.Verdict;
import io.faultline.checker.history.HistoryJson;
import io.faultline.checker.history.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static io.faultline.results.SyntheticRun.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The side-by-side page, built from stored runs only (no cluster). */
class ComparePageTest {
    @TempDir
    Path tmp;

    /** A stored run as the runner leaves it: history.jsonl, and results.json with the report's summary. */
    private static RunDir storedRun(RunStore store, String name, Instant at, boolean withLoss) throws Exception {
        RunDir run = store.newRun(name, at);
        List<Op> ops = SyntheticRun.withFaults(40).ops();
        Files.writeString(run.historyJsonl(), ops.stream().map(HistoryJson::toJson).collect(Collectors.joining("\n")) + "\n");
        var checks = withLoss
                ? SyntheticRun.invalidChecks(List.of(HtmlReportTest.firstOk(ops, "send", 5 * S), HtmlReportTest.firstOk(ops, "send", 30 * S)),
                        List.of(HtmlReportTest.firstOk(ops, "poll", 22 * S)))
                : Map.<String, io.faultline.checker.CheckResult>of();
        var input = ReportInput.builder(name).parameters(SyntheticRun.parameters()).history(ops).checks(checks)
                .verdict(withLoss ? Verdict.INVALID : Verdict.VALID).startedAt(at).build();
        HtmlReport.Summary summary = HtmlReport.write(input, run.dir());
        run.writeResults(new RunResults(withLoss ? Verdict.INVALID : Verdict.VALID, true, checks, summary));
        return run;
    }

    @Test
    void twoSystemsSideBySideWithVerdictsCountsExamplesAndSharedCharts() throws Exception {
        RunStore store = new RunStore(tmp.resolve("store"));
        Instant t = Instant.parse("2026-11-03T10:00:00Z");
        RunDir kafka = storedRun(store, "apache-kafka-queue", t, true);
        RunDir broker = storedRun(store, "broker-impl-queue", t.plusSeconds(90), false);
        Path dir = tmp.resolve("store/compare/x");

        var cols = ComparePage.write("seed 12345", List.of(new ComparePage.Side("apache-kafka", kafka.dir()),
                new ComparePage.Side("broker-impl", broker.dir())), dir);

        assertEquals(List.of("invalid", "valid"), cols.stream().map(ComparePage.Column::verdict).toList());
        assertEquals(2L, cols.get(0).anomalyCounts().get("lost-write"));
        assertEquals(0L, cols.get(1).anomalyCounts().getOrDefault("lost-write", 0L));
        assertTrue(cols.get(0).p50Ms() > 0 && cols.get(0).p99Ms() >= cols.get(0).p50Ms(), "latency quantiles: " + cols.get(0));
        assertTrue(cols.get(1).okOpsPerSecond() > 0);
        String html = Files.readString(dir.resolve("compare.html"));
        assertTrue(html.contains("<th>apache-kafka</th><th>broker-impl</th>"), "one column per system");
        assertTrue(html.contains("v-invalid\">INVALID") && html.contains("v-valid\">VALID"), "both verdicts");
        assertTrue(html.contains("<th>lost-write</th><td class=\"num\">2</td><td class=\"num zero\">0</td>"), "counts side by side");
        assertTrue(html.contains("value 42 of key 0 was acknowledged at offset 42 but never read"), "an example of the loss");
        assertTrue(html.contains("availability during faults") && html.contains("latency p99 (ms, ok ops)"));
        assertEquals(2, HtmlReportTest.count(html, "<svg"), "latency and throughput charts");
        assertTrue(html.contains("apache-kafka p99") && html.contains("broker-impl p50"), "both systems on one latency chart");
        for (RunDir r : List.of(kafka, broker)) {
            String rel = "../../" + r.testName() + "/" + r.timestamp() + "/report.html";
            assertTrue(html.contains("href=\"" + rel + "\""), "link " + rel + " in " + html.substring(0, 200));
            assertTrue(Files.exists(dir.resolve(rel)), "the link resolves");
        }
        assertTrue(Files.readString(dir.resolve("compare.json")).contains("\"label\" : \"broker-impl\""));
    }

    @Test
    void anUnreadableRunGetsAColumnSayingWhyAndThePageIsStillWritten() throws Exception {
        RunStore store = new RunStore(tmp.resolve("store"));
        RunDir kafka = storedRun(store, "apache-kafka-queue", Instant.parse("2026-11-03T10:00:00Z"), false);
        Path missing = tmp.resolve("no-such-run");
        var cols = ComparePage.write("t", List.of(new ComparePage.Side("apache-kafka", kafka.dir()),
                new ComparePage.Side("broker-impl", missing)), tmp.resolve("out"));
        assertEquals("unknown", cols.get(1).verdict());
        assertTrue(cols.get(1).error().startsWith("cannot read the run"), cols.get(1).error());
        String html = Files.readString(tmp.resolve("out/compare.html"));
        assertTrue(html.contains("cannot read the run") && html.contains("v-valid\">VALID"));
    }
}
