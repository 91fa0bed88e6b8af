package io.faultline.results;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.faultline.results.SyntheticRun.MS;
import static io.faultline.results.SyntheticRun.S;
import static io.faultline.results.SyntheticRun.STARTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HtmlReportTest {

    @TempDir
    Path tmp;

    /** Index of the first ok completion of {@code f} at or after {@code time}. */
    static long firstOk(List<Op> ops, String f, long time) {
        return ops.stream().filter(o -> o.type() == OpType.OK && o.f().equals(f) && o.time() >= time)
                .findFirst().orElseThrow().index();
    }

    static int count(String haystack, String regex) {
        Matcher m = Pattern.compile(regex).matcher(haystack);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    /** A report of a 40 s run with faults, anomalies, clock offsets and node logs, as the screenshot test uses. */
    static ReportInput sampleInput(Path nodes, int seconds) {
        List<Op> ops = SyntheticRun.withFaults(seconds).ops();
        long lost1 = firstOk(ops, "send", 5 * S), lost2 = firstOk(ops, "send", 30 * S);
        long dup1 = firstOk(ops, "poll", 22 * S), dup2 = firstOk(ops, "poll", 23 * S);
        return ReportInput.builder("queue-partition")
                .parameters(SyntheticRun.parameters())
                .history(ops)
                .checks(SyntheticRun.invalidChecks(List.of(lost1, lost2), List.of(dup1, dup2)))
                .verdict(Verdict.INVALID)
                .clockOffsets(Map.of("n3", List.of(new ReportInput.ClockPoint(0, 0),
                        new ReportInput.ClockPoint(25 * S, 30_000), new ReportInput.ClockPoint(35 * S, 30_000))))
                .nodesDir(nodes)
                .startedAt(STARTED)
                .build();
    }

    static void writeNodeLogs(Path nodes) throws Exception {
        Files.createDirectories(nodes.resolve("n1/logs"));
        Files.writeString(nodes.resolve("n1/logs/server.log"), String.join("\n",
                "[2026-11-03 10:00:01,000] INFO too early to matter (kafka.server.KafkaServer)",
                "[2026-11-03 10:00:04,200] INFO [Partition q-0 broker=1] ISR shrunk (kafka.cluster.Partition)",
                "[2026-11-03 10:00:05,300] WARN [ReplicaFetcher] Error in response for fetch (kafka.server.ReplicaFetcherThread)",
                "java.io.IOException: Connection to 2 was disconnected",
                "[2026-11-03 10:01:00,000] INFO much later, outside every window (kafka.server.KafkaServer)",
                ""));
        Files.createDirectories(nodes.resolve("n2"));
        Files.writeString(nodes.resolve("n2/console.log"),
                "[2026-11-03 10:00:30,100] ERROR [KafkaApi] leader epoch fenced (kafka.server.KafkaApis)\n");
    }

    @Test
    void reportWithFaultsAndAnomaliesHasVerdictChartsAnchorsAndLogExcerpts() throws Exception {
        Path nodes = tmp.resolve("run/nodes");
        writeNodeLogs(nodes);
        ReportInput input = sampleInput(nodes, 40);
        HtmlReport.Summary summary = HtmlReport.write(input, tmp.resolve("run"));

        Path report = tmp.resolve("run/report.html");
        String html = Files.readString(report);
        assertTrue(html.contains("id=\"verdict\"") && html.contains("INVALID"), "verdict banner");
        assertTrue(html.contains("v-invalid"), "invalid banner colour");
        assertEquals(4, count(html, "<svg "), "latency scatter, quantiles, throughput, clock");
        for (String plot : List.of("latency-raw", "latency-quantiles", "throughput", "clock-offsets")) {
            String svg = Files.readString(tmp.resolve("run/plots/" + plot + ".svg"));
            assertTrue(svg.startsWith("<?xml") && svg.contains("<svg") && svg.length() > 2000, plot);
            assertTrue(html.contains("id=\"plot-" + plot + "\""), plot + " inline");
        }
        assertTrue(html.contains("fault: partition") && html.contains("fault: kill"), "fault legend in charts");
        assertTrue(html.contains("never stopped"), "unclosed kill band");
        assertFalse(html.contains("<script"), "no scripts");
        assertFalse(html.matches("(?s).*(src|href)=\"https?:.*"), "nothing fetched from the network");

        for (CheckResult r : input.checks().values()) {
            for (List<Example> examples : r.examples().values()) {
                for (Example x : examples) {
                    for (long op : x.ops()) {
                        assertTrue(html.contains("<tr id=\"op-" + op + "\" class=\"hit\""), "anchor for op " + op);
                        assertTrue(html.contains("href=\"#op-" + op + "\""), "link to op " + op);
                    }
                    assertTrue(html.contains(Html.esc(x.explanation())), x.explanation());
                }
            }
        }
        assertTrue(html.contains("ISR shrunk") && html.contains("Connection to 2 was disconnected"),
                "log lines within 2 s of the first lost write (5 s), stack trace continuation included");
        assertTrue(html.contains("leader epoch fenced"), "console.log of n2 near the 30 s example");
        assertFalse(html.contains("too early to matter") || html.contains("outside every window"));
        assertTrue(html.contains("seed") && html.contains("versions.kafka"), "flattened parameters");
        assertTrue(html.contains("<tr class=\"group\"><th colspan=\"2\">settings</th></tr><tr><th>acks</th><td>all</td></tr>"),
                "parameters grouped by what a reader asks");
        assertTrue(html.contains("<tr class=\"group\"><th colspan=\"2\">faults</th></tr><tr><th>nemesis</th>"));
        assertTrue(html.matches("(?s).*<th>rate achieved</th><td>[0-9.]+ ok ops/s \\([0-9.]+ outside faults, [0-9.]+ during faults\\)</td>.*"),
                "the rate achieved beside the verdict");
        int phases = html.indexOf("<th>phases</th><td>cluster start 12.3 s, workload 40.0 s</td>");
        assertTrue(phases > 0 && phases < html.indexOf("<h2 id=\"parameters\">"), "the phase timings beside the verdict,"
                + " above the parameters");
        assertFalse(html.contains("<th>phases.") || html.contains("<th>phases</th><td>[{"), "not repeated as a parameter");

        assertEquals("invalid", summary.verdict());
        assertEquals(2L, summary.anomalyCounts().get("lost-write"), "max over checks, not the sum");
        assertTrue(summary.availabilityDuringFaults() < summary.availabilityOutsideFaults());
        assertTrue(summary.okOpsPerSecond() > 10);
    }

    @Test
    void bigHistoryEmbedsOnlyOpsAroundExamplesAndLinksTheRest() throws Exception {
        ReportInput input = sampleInput(null, 200);
        assertTrue(input.history().size() > 10_000);
        HtmlReport.write(input, tmp);
        String html = Files.readString(tmp.resolve("report.html"));
        int rows = count(html, "<tr id=\"op-");
        assertTrue(rows > 0 && rows <= HtmlReport.MAX_OP_ROWS, "rows: " + rows);
        assertTrue(rows < 100, "only ±5 around 6 example ops: " + rows);
        assertTrue(html.contains("href=\"history.jsonl\""));
        assertFalse(html.contains("id=\"op-9000\""), "an op far from every example is not embedded");
        assertTrue(html.contains("thinned to about"), "scatter of a big history is thinned");
        long points = count(Files.readString(tmp.resolve("plots/latency-raw.svg")), "<(ellipse|circle|rect|path|polygon)");
        assertTrue(points < 5 * Charts.MAX_SCATTER_POINTS, "scatter SVG stays bounded: " + points);
        long lost = input.checks().get("queue").examples("lost-write").get(0).ops().get(0);
        assertTrue(html.contains("id=\"op-" + (lost - 5) + "\"") && html.contains("id=\"op-" + (lost + 5) + "\""));
        assertFalse(html.contains("id=\"op-" + (lost + 6) + "\""));
    }

    @Test
    void emptyHistoryStillGivesAReport() throws Exception {
        HtmlReport.Summary s = HtmlReport.write(ReportInput.builder("empty").build(), tmp);
        String html = Files.readString(tmp.resolve("report.html"));
        assertTrue(html.contains("UNKNOWN"));
        assertTrue(html.contains("The history is empty"));
        assertTrue(html.contains("No faults were injected"));
        assertEquals(3, count(html, "<svg "), "charts are drawn even without data");
        assertTrue(Double.isNaN(s.availability()));
        assertEquals(0.0, s.okOpsPerSecond());
    }

    @Test
    void oddInputDoesNotThrowAndPartialRunIsFlagged() throws Exception {
        SyntheticRun r = new SyntheticRun();
        // a completion without invoke, an invoke never completed, a stop without start
        r.add(OpType.OK, 0, 5 * MS, "send", io.faultline.checker.history.OpValue.None.INSTANCE, null);
        r.add(OpType.INFO, Op.NEMESIS, 6 * MS, "stop-partition", io.faultline.checker.history.OpValue.None.INSTANCE, null);
        r.add(OpType.INVOKE, 1, 7 * MS, "poll", io.faultline.checker.history.OpValue.None.INSTANCE, null);
        CheckResult weird = new CheckResult("queue", Verdict.INVALID, Map.of("lost-write", 1L), Set.of(),
                Map.of("lost-write", List.of(new Example("lost-write", null, "<b>not html</b>", List.of(999L)))),
                Map.of(), null);
        ReportInput input = ReportInput.builder("odd").history(r.ops()).checks(Map.of("queue", weird))
                .verdict(Verdict.INVALID).nodesDir(tmp.resolve("missing-nodes")).complete(false).build();
        HtmlReport.write(input, tmp);
        String html = Files.readString(tmp.resolve("report.html"));
        assertTrue(html.contains("interrupted"), "partial banner");
        assertTrue(html.contains("&lt;b&gt;not html&lt;/b&gt;"), "explanations are escaped");
        assertTrue(html.contains("title=\"not embedded: see history.jsonl\">999</a>"), "unknown op links to jsonl");
    }

    /** Next to a loss under power faults, the report says whether the settings in force promised durability. */
    @Test
    void durabilityIsExplainedNextToALossUnderPowerFaults() throws Exception {
        var lost = new CheckResult("queue", Verdict.INVALID, Map.of("lost-write", 7L, "duplicate", 0L), Set.of(),
                Map.of(), Map.of(), null);
        var clean = new CheckResult("queue", Verdict.VALID, Map.of("lost-write", 0L, "unseen", 0L), Set.of(),
                Map.of(), Map.of(), null);
        String allowed = "log.flush.interval.messages=default (never): every copy can vanish together.";
        String promised = "log.flush.interval.messages=1: every append is fsynced before a replica acknowledges it.";

        String html = report("allowed", lost, new ReportInput.Durability(false, allowed));
        assertTrue(html.contains("id=\"durability\""), "durability note");
        assertTrue(html.contains("which the settings in force allow") && html.contains(Html.esc(allowed)), html);
        assertTrue(html.indexOf("id=\"durability\"") > html.indexOf("id=\"anomalies\""), "with the anomalies");

        html = report("promised", lost, new ReportInput.Durability(true, promised));
        assertTrue(html.contains("a durability bug") && html.contains(Html.esc(promised)), html);

        var unread = new CheckResult("queue", Verdict.UNKNOWN, Map.of("unseen", 2L), Set.of(), Map.of(), Map.of(), null);
        html = report("unproven", unread, new ReportInput.Durability(true, promised));
        assertTrue(html.contains("cannot prove them lost") && html.contains("would break"), html);

        html = report("nothing-lost", clean, new ReportInput.Durability(true, promised));
        assertTrue(html.contains("no acknowledged write was lost") && !html.contains("durability bug"), html);

        html = report("no-power", lost, null);
        assertFalse(html.contains("id=\"durability\""), "no note without power faults");
    }

    private String report(String name, CheckResult check, ReportInput.Durability durability) throws Exception {
        Path dir = tmp.resolve(name);
        HtmlReport.write(ReportInput.builder(name).checks(Map.of(check.checker(), check))
                .verdict(check.verdict()).durability(durability).build(), dir);
        return Files.readString(dir.resolve("report.html"));
    }
}
