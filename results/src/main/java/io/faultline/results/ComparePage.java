package io.faultline.results;

import com.fasterxml.jackson.core.type.TypeReference;
import io.faultline.checker.history.HistoryReader;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Rectangle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One page with several runs of the same seed and fault schedule side by side, one column per system under test:
 * verdicts, anomaly counts with examples, availability and throughput in and out of faults, latency quantiles, and
 * latency and throughput over time drawn on the same axes. Reads only what the runs stored (results.json,
 * history.jsonl), so it can be rebuilt from a store without a cluster. A run that cannot be read gets a column that
 * says why; the page is still written.
 */
public final class ComparePage {
    static final String PAGE = "compare.html", JSON = "compare.json";
    private static final int EXAMPLES_PER_CATEGORY = 3;
    private static final Color[] SERIES_COLOURS = {new Color(0x1f, 0x77, 0xb4), new Color(0xd6, 0x27, 0x28),
            new Color(0x2c, 0xa0, 0x2c), new Color(0x94, 0x67, 0xbd)};

    private ComparePage() {}

    /** One compared run: its label (the system under test) and folder. */
    public record Side(String label, Path runDir) {}

    /** What the page shows of one side, also written to compare.json. */
    public record Column(String label, String runDir, String verdict, boolean complete, List<String> caveats,
                         Map<String, Long> anomalyCounts, Map<String, List<String>> examples, double availability,
                         double availabilityDuringFaults, double availabilityOutsideFaults, double okOpsPerSecond,
                         double okOpsPerSecondDuringFaults, double okOpsPerSecondOutsideFaults, double p50Ms,
                         double p95Ms, double p99Ms, String error) {}

    /** Writes dir/compare.html and dir/compare.json; returns the columns. */
    public static List<Column> write(String title, List<Side> sides, Path dir) throws IOException {
        if (sides.isEmpty()) throw new IllegalArgumentException("nothing to compare");
        Files.createDirectories(dir);
        List<Column> columns = new ArrayList<>();
        Map<String, HistoryMetrics> metrics = new LinkedHashMap<>();
        CompareLabels labels = CompareLabels.of(sides);
        for (int i = 0; i < sides.size(); i++) {
            Side s = new Side(labels.labels().get(i), sides.get(i).runDir());
            try {
                List<Op> history = HistoryReader.read(s.runDir().resolve("history.jsonl"));
                HistoryMetrics m = HistoryMetrics.of(history, FaultBands.of(history));
                metrics.put(s.label(), m);
                columns.add(column(s, m));
            } catch (IOException | RuntimeException e) {
                columns.add(new Column(s.label(), s.runDir().toString(), "unknown", false, List.of(), Map.of(), Map.of(),
                        Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                        Double.NaN, "cannot read the run: " + e.getMessage()));
            }
        }
        Json.write(dir.resolve(JSON), Map.of("title", title, "columns", columns, "differing", labels.differing(),
                "differences", labels.differences()));
        HtmlReport.writeAtomically(dir.resolve(PAGE), Html.page(title, body(title, columns, labels, metrics, dir)));
        return columns;
    }

    @SuppressWarnings("unchecked")
    private static Column column(Side s, HistoryMetrics m) throws IOException {
        Map<String, Object> results = Json.MAPPER.readValue(s.runDir().resolve("results.json").toFile(),
                new TypeReference<Map<String, Object>>() {});
        Map<String, Object> summary = (Map<String, Object>) results.getOrDefault("summary", Map.of());
        Map<String, Long> counts = new LinkedHashMap<>();
        ((Map<String, Object>) summary.getOrDefault("anomalyCounts", Map.of()))
                .forEach((k, v) -> counts.put(k, ((Number) v).longValue()));
        Map<String, List<String>> examples = new LinkedHashMap<>();
        for (Object check : ((Map<String, Object>) results.getOrDefault("checks", Map.of())).values()) {
            if (!(check instanceof Map<?, ?> c) || !(c.get("examples") instanceof Map<?, ?> ex)) continue;
            ex.forEach((cat, list) -> {
                if (!(list instanceof List<?> l)) return;
                List<String> into = examples.computeIfAbsent(String.valueOf(cat), k -> new ArrayList<>());
                for (Object x : l) {
                    if (into.size() >= EXAMPLES_PER_CATEGORY) break;
                    into.add(x instanceof Map<?, ?> xm ? String.valueOf(xm.get("explanation")) : String.valueOf(x));
                }
            });
        }
        long[] okLatencies = m.completions().stream().filter(c -> c.type() == OpType.OK)
                .mapToLong(HistoryMetrics.Completion::latencyNanos).sorted().toArray();
        return new Column(s.label(), s.runDir().toString(), String.valueOf(results.get("verdict")).toLowerCase(Locale.ROOT),
                Boolean.TRUE.equals(results.get("complete")), (List<String>) results.getOrDefault("caveats", List.of()),
                counts, examples, num(summary, "availability"), num(summary, "availabilityDuringFaults"),
                num(summary, "availabilityOutsideFaults"), num(summary, "okOpsPerSecond"),
                num(summary, "okOpsPerSecondDuringFaults"), num(summary, "okOpsPerSecondOutsideFaults"),
                quantileMs(okLatencies, 0.50), quantileMs(okLatencies, 0.95), quantileMs(okLatencies, 0.99), null);
    }

    private static double num(Map<String, Object> m, String key) {
        return m.get(key) instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    private static double quantileMs(long[] sorted, double q) {
        return sorted.length == 0 ? Double.NaN : HistoryMetrics.ms(HistoryMetrics.quantile(sorted, q));
    }

    private static String body(String title, List<Column> cols, CompareLabels labels, Map<String, HistoryMetrics> metrics,
                               Path dir) {
        var b = new StringBuilder("<h1>").append(Html.esc(title)).append("</h1>");
        b.append("<p class=\"note\">The runs side by side; each column is named by what differs between them.</p>");
        b.append("<table id=\"compare\"><tr><th></th>");
        cols.forEach(c -> b.append("<th>").append(Html.esc(c.label())).append("</th>"));
        b.append("</tr>\n");
        for (String key : labels.differing()) {
            b.append("<tr class=\"differs\"><th>").append(Html.esc(key)).append("</th>");
            for (int i = 0; i < cols.size(); i++) {
                String v = labels.differences().get(i).get(key);
                b.append("<td>").append(Html.esc(v == null ? "(not set)" : v)).append("</td>");
            }
            b.append("</tr>\n");
        }
        b.append("<tr><th>verdict</th>");
        cols.forEach(c -> b.append("<td><span class=\"verdict ").append(Html.verdictClass(c.verdict())).append("\">")
                .append(Html.esc(c.verdict().toUpperCase(Locale.ROOT))).append("</span>")
                .append(c.complete() ? "" : " <span class=\"note\">incomplete</span>")
                .append(c.error() == null ? "" : "<br><span class=\"note\">" + Html.esc(c.error()) + "</span>")
                .append(c.caveats().isEmpty() ? "" : "<br><span class=\"note\">" + Html.esc(String.join("; ", c.caveats())) + "</span>")
                .append("</td>"));
        b.append("</tr>\n");
        for (String cat : categories(cols)) {
            b.append("<tr><th>").append(Html.esc(cat)).append("</th>");
            for (Column c : cols) {
                long n = c.anomalyCounts().getOrDefault(cat, 0L);
                b.append("<td class=\"num").append(n == 0 ? " zero" : "").append("\">").append(n).append("</td>");
            }
            b.append("</tr>\n");
        }
        row(b, "availability", cols, c -> Html.percent(c.availability()));
        row(b, "availability during faults", cols, c -> Html.percent(c.availabilityDuringFaults()));
        row(b, "availability outside faults", cols, c -> Html.percent(c.availabilityOutsideFaults()));
        row(b, "ok ops/s", cols, c -> Html.number(c.okOpsPerSecond()));
        row(b, "ok ops/s during faults", cols, c -> Html.number(c.okOpsPerSecondDuringFaults()));
        row(b, "ok ops/s outside faults", cols, c -> Html.number(c.okOpsPerSecondOutsideFaults()));
        row(b, "latency p50 (ms, ok ops)", cols, c -> Html.number(c.p50Ms()));
        row(b, "latency p95 (ms, ok ops)", cols, c -> Html.number(c.p95Ms()));
        row(b, "latency p99 (ms, ok ops)", cols, c -> Html.number(c.p99Ms()));
        b.append("<tr><th>run</th>");
        for (Column c : cols) {
            String rel = dir.toAbsolutePath().normalize().relativize(Path.of(c.runDir()).toAbsolutePath().normalize())
                    .resolve("report.html").toString();
            b.append("<td><a href=\"").append(Html.href(rel)).append("\">report</a></td>");
        }
        b.append("</tr></table>\n");

        b.append("<h2 id=\"examples\">Anomaly examples</h2>");
        boolean any = false;
        for (Column c : cols) {
            for (var e : c.examples().entrySet()) {
                if (e.getValue().isEmpty() || c.anomalyCounts().getOrDefault(e.getKey(), 0L) == 0) continue;
                any = true;
                b.append("<h3>").append(Html.esc(c.label())).append(": ").append(Html.esc(e.getKey())).append("</h3><ul>");
                e.getValue().forEach(x -> b.append("<li>").append(Html.esc(x)).append("</li>"));
                b.append("</ul>");
            }
        }
        if (!any) b.append("<p class=\"note\">No anomaly in any run.</p>");

        b.append(stateTimelines(cols, dir));
        if (!metrics.isEmpty()) {
            b.append("<h2 id=\"charts\">Latency and throughput on the same axes</h2>");
            b.append(chart("compare-latency", "Latency p50 and p99 per window (ok ops)", metrics, true));
            b.append(chart("compare-throughput", "Throughput (ok ops per second per window)", metrics, false));
        }
        return b.toString();
    }

    /** One state timeline per run (leaders, epochs, ISR, truncations from its node logs), marks linking to its report. */
    private static String stateTimelines(List<Column> cols, Path dir) {
        StringBuilder b = new StringBuilder("<h2 id=\"state\">State timelines</h2>");
        for (Column c : cols) {
            Path run = Path.of(c.runDir());
            b.append("<h3>").append(Html.esc(c.label())).append("</h3>");
            try {
                List<Op> history = HistoryReader.read(run.resolve("history.jsonl"));
                FaultBands faults = FaultBands.of(history);
                long duration = HistoryMetrics.of(history, faults).durationNanos();
                java.time.Instant origin = historyOrigin(run);
                var events = StateEvents.withNodeFaults(StateEvents.read(run.resolve("nodes"), java.time.ZoneOffset.UTC,
                        p -> !p.startsWith("__")), history, origin);
                String report = dir.toAbsolutePath().normalize().relativize(run.toAbsolutePath().normalize())
                        .resolve("report.html").toString();
                b.append(new StateTimeline(events, origin, duration, faults, FaultVocabulary.FALLBACK::colourOf)
                        .lanes(Html.href(report) + "#"));
            } catch (IOException | RuntimeException e) {
                b.append("<p class=\"note\">No timeline: ").append(Html.esc(String.valueOf(e.getMessage()))).append("</p>");
            }
        }
        return b.toString();
    }

    /** The wall-clock time of the run's history time 0, from its test.json (the run's start for older runs). */
    @SuppressWarnings("unchecked")
    private static java.time.Instant historyOrigin(Path run) {
        try {
            Map<String, Object> t = Json.MAPPER.readValue(run.resolve("test.json").toFile(), Map.class);
            Object at = t.getOrDefault("history-origin", t.get("started-at"));
            return at == null ? java.time.Instant.EPOCH : java.time.Instant.parse(at.toString());
        } catch (IOException | RuntimeException e) {
            return java.time.Instant.EPOCH;
        }
    }

    /** Categories with a count in any column, the key data-loss ones first. */
    static List<String> categories(List<Column> cols) {
        Set<String> out = new LinkedHashSet<>(CampaignPage.KEY_CATEGORIES);
        for (Column c : cols) c.anomalyCounts().forEach((k, v) -> {
            if (v > 0) out.add(k);
        });
        return new ArrayList<>(out);
    }

    private static void row(StringBuilder b, String name, List<Column> cols, java.util.function.Function<Column, String> cell) {
        b.append("<tr><th>").append(Html.esc(name)).append("</th>");
        cols.forEach(c -> b.append("<td class=\"num\">").append(Html.esc(cell.apply(c))).append("</td>"));
        b.append("</tr>\n");
    }

    private static String chart(String name, String title, Map<String, HistoryMetrics> metrics, boolean latency) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (var e : metrics.entrySet()) {
            HistoryMetrics m = e.getValue();
            double half = m.windowNanos() / 2e9;
            if (latency) {
                XYSeries p50 = new XYSeries(e.getKey() + " p50"), p99 = new XYSeries(e.getKey() + " p99");
                for (var w : m.latencyQuantiles()) {
                    p50.add(w.startNanos() / 1e9 + half, Math.max(w.p50(), 0.01));
                    p99.add(w.startNanos() / 1e9 + half, Math.max(w.p99(), 0.01));
                }
                data.addSeries(p50);
                data.addSeries(p99);
            } else {
                XYSeries ok = new XYSeries(e.getKey());
                for (var w : m.throughput()) ok.add(w.startNanos() / 1e9 + half, w.okPerSecond());
                data.addSeries(ok);
            }
        }
        JFreeChart chart = ChartFactory.createXYLineChart(null, "time (s)", latency ? "latency (ms)" : "ok ops / s",
                data, PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        chart.setBackgroundPaint(Color.WHITE);
        plot.setBackgroundPaint(Color.WHITE);
        if (latency) {
            LogarithmicAxis axis = new LogarithmicAxis("latency (ms)");
            axis.setStrictValuesFlag(false);
            plot.setRangeAxis(axis);
        }
        XYLineAndShapeRenderer r = (XYLineAndShapeRenderer) plot.getRenderer();
        int perSide = latency ? 2 : 1;
        for (int i = 0; i < data.getSeriesCount(); i++) {
            r.setSeriesPaint(i, SERIES_COLOURS[(i / perSide) % SERIES_COLOURS.length]);
            r.setSeriesShapesVisible(i, false);
            r.setSeriesStroke(i, latency && i % 2 == 1
                    ? new BasicStroke(1.4f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 1f, new float[]{5f, 3f}, 0f)
                    : new BasicStroke(1.6f));
        }
        SVGGraphics2D g2 = new SVGGraphics2D(Charts.WIDTH, Charts.HEIGHT);
        g2.setDefsKeyPrefix(name + "-");
        chart.draw(g2, new Rectangle(0, 0, Charts.WIDTH, Charts.HEIGHT));
        return "<div class=\"chart\" id=\"plot-" + name + "\"><h3>" + Html.esc(title) + "</h3>\n"
                + g2.getSVGElement("chart-" + name) + "\n</div>";
    }
}
