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

    /** test.json as the runner writes it: the run's parameters nested under "parameters". */
    private static void writeTestJson(RunDir run, String truncation, Instant at) throws Exception {
        Files.writeString(run.dir().resolve("test.json"), """
                {"test-name": "%s", "started-at": "%s", "seed": 99,
                 "versions": {"sut": "broker-impl 0.1.0", "faultline": "0.1.0"},
                 "parameters": {"sut": "broker-impl", "nodes": 3, "acks": "all", "seed": 99,
                                "broker-props": {"faultline.truncation": "%s"}}}
                """.formatted(run.testName(), at, truncation));
    }

    @Test
    void twoRunsOfOneSystemInTwoSettingsAreLabelledByWhatDiffersAndKeepBothVerdicts() throws Exception {
        RunStore store = new RunStore(tmp.resolve("store"));
        Instant t = Instant.parse("2026-11-03T10:00:00Z");
        RunDir hw = storedRun(store, "broker-impl-kip-101-loss", t, true);
        writeTestJson(hw, "high-watermark", t);
        RunDir epoch = storedRun(store, "broker-impl-kip-101-loss", t.plusSeconds(90), false);
        writeTestJson(epoch, "leader-epoch", t.plusSeconds(90));
        Path dir = tmp.resolve("store/compare/y");
        // the first run's nodes logged state changes (real Kafka 4.4 lines): its timeline is drawn, linking to its report
        Path logs = Path.of(ComparePageTest.class.getResource("/state-logs/kafka-4.4").toURI());
        for (String n : List.of("n1", "n3")) {
            Path to = hw.dir().resolve("nodes").resolve(n).resolve("logs");
            Files.createDirectories(to);
            Files.copy(logs.resolve(n).resolve("logs/server.log"), to.resolve("server.log"));
        }

        var cols = ComparePage.write("two settings", List.of(new ComparePage.Side("broker-impl", hw.dir()),
                new ComparePage.Side("broker-impl", epoch.dir())), dir);

        assertEquals(List.of("broker-impl · faultline.truncation=high-watermark", "broker-impl · faultline.truncation=leader-epoch"),
                cols.stream().map(ComparePage.Column::label).toList());
        assertEquals(List.of("invalid", "valid"), cols.stream().map(ComparePage.Column::verdict).toList(),
                "each run keeps its own verdict");
        String html = Files.readString(dir.resolve("compare.html"));
        assertTrue(html.contains("<tr class=\"differs\"><th>broker-props.faultline.truncation</th><td>high-watermark</td><td>leader-epoch</td></tr>"),
                "the differing parameter has a row of its own");
        assertTrue(!html.contains("<th>started-at</th>"), "the start time is not a difference worth a row");
        assertTrue(html.contains("<h2 id=\"state\">State timelines</h2><h3>broker-impl · faultline.truncation=high-watermark</h3><svg id=\"state-timeline\""),
                "one timeline block per run");
        assertTrue(html.matches("(?s).*href=\"\\.\\./\\.\\./" + hw.testName() + "/" + hw.timestamp() + "/report\\.html#state-ev-\\d+\".*"),
                "marks link to the event's row in that run's report");
        assertTrue(html.contains("No replication state changes found in this run's node logs"), "the second run logged none");
        String svg = html.substring(html.indexOf("<svg"));
        assertTrue(svg.contains("high-watermark p99") && svg.contains("leader-epoch p99"),
                "each run has its own series on the latency chart");
    }

    @Test
    void runsThatDifferInNothingRecordedAreNumbered() throws Exception {
        RunStore store = new RunStore(tmp.resolve("store"));
        Instant t = Instant.parse("2026-11-03T10:00:00Z");
        RunDir a = storedRun(store, "broker-impl-queue", t, false);
        RunDir b = storedRun(store, "broker-impl-queue", t.plusSeconds(90), true);
        var cols = ComparePage.write("same", List.of(new ComparePage.Side("broker-impl", a.dir()),
                new ComparePage.Side("broker-impl", b.dir())), tmp.resolve("out2"));
        assertEquals(List.of("broker-impl #1", "broker-impl #2"), cols.stream().map(ComparePage.Column::label).toList());
        assertEquals(List.of("valid", "invalid"), cols.stream().map(ComparePage.Column::verdict).toList());
    }
}
