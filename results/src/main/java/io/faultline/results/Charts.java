package io.faultline.results;

import io.faultline.checker.history.OpType;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYItemRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.Layer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Rectangle;
import java.awt.Shape;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Rectangle2D;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The report's charts, drawn by JFreeChart and rendered to SVG with JFreeSVG. All time axes are seconds since test
 * start over the same range, with the fault bands as translucent interval markers (one colour per package, in the
 * legend), so the charts line up with each other.
 */
final class Charts {

    /** A rendered chart: a file-friendly name, its title and the standalone SVG element. */
    record Chart(String name, String title, String svg) {
    }

    static final int WIDTH = 1000;
    static final int HEIGHT = 420;

    /** Scatter plots of huge histories would make huge SVGs: each outcome is thinned to about this many points. */
    static final int MAX_SCATTER_POINTS = 4000;

    private static final Map<OpType, Color> OUTCOME_COLOURS = Map.of(
            OpType.OK, new Color(0x2f, 0x9e, 0x44),
            OpType.FAIL, new Color(0xc9, 0x2a, 0x2a),
            OpType.INFO, new Color(0xf0, 0x8c, 0x00));

    private final ReportInput input;
    private final FaultBands faults;
    private final HistoryMetrics metrics;
    private final double xMaxSeconds;

    Charts(ReportInput input, FaultBands faults, HistoryMetrics metrics) {
        this.input = input;
        this.faults = faults;
        this.metrics = metrics;
        this.xMaxSeconds = Math.max(1e-3, metrics.durationNanos() / 1e9);
    }

    Chart latencyScatter() {
        List<HistoryMetrics.Completion> all = metrics.completions();
        // thin each outcome on its own, so rare fails and infos are not drowned by (or thinned like) oks
        Map<OpType, Long> perOutcome = new java.util.EnumMap<>(OpType.class);
        all.forEach(c -> perOutcome.merge(c.type(), 1L, Long::sum));
        Map<OpType, Long> strides = new java.util.EnumMap<>(OpType.class);
        perOutcome.forEach((t, n) -> strides.put(t, Math.max(1, (n + MAX_SCATTER_POINTS - 1) / MAX_SCATTER_POINTS)));
        Map<OpType, Long> seen = new java.util.EnumMap<>(OpType.class);
        Map<String, XYSeries> series = new LinkedHashMap<>();
        Map<String, OpType> outcomeOf = new LinkedHashMap<>();
        List<String> functions = new ArrayList<>();
        for (HistoryMetrics.Completion c : all) {
            long nth = seen.merge(c.type(), 1L, Long::sum) - 1;
            if (nth % strides.get(c.type()) != 0) {
                continue;
            }
            String key = c.f() + " " + c.type().wireName();
            if (!functions.contains(c.f())) {
                functions.add(c.f());
            }
            outcomeOf.put(key, c.type());
            series.computeIfAbsent(key, k -> new XYSeries(k, false, true))
                    .add(c.invokeNanos() / 1e9, Math.max(HistoryMetrics.ms(c.latencyNanos()), 0.01));
        }
        XYSeriesCollection data = new XYSeriesCollection();
        series.values().forEach(data::addSeries);
        JFreeChart chart = ChartFactory.createScatterPlot(null, "time (s)", "latency (ms)", data,
                PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        plot.setRangeAxis(logAxis("latency (ms)"));
        XYItemRenderer r = plot.getRenderer();
        int i = 0;
        for (String key : series.keySet()) {
            r.setSeriesPaint(i, OUTCOME_COLOURS.get(outcomeOf.get(key)));
            r.setSeriesShape(i, shapeFor(functions.indexOf(key.substring(0, key.lastIndexOf(' ')))));
            i++;
        }
        long maxStride = strides.values().stream().mapToLong(Long::longValue).max().orElse(1);
        String title = "Latency by op type and outcome"
                + (maxStride > 1 ? " (thinned to about " + MAX_SCATTER_POINTS + " points per outcome)" : "");
        return render("latency-raw", title, chart);
    }

    Chart latencyQuantiles() {
        XYSeries p50 = new XYSeries("p50"), p95 = new XYSeries("p95"), p99 = new XYSeries("p99"),
                max = new XYSeries("max");
        double half = metrics.windowNanos() / 2e9;
        for (HistoryMetrics.LatencyWindow w : metrics.latencyQuantiles()) {
            double x = w.startNanos() / 1e9 + half;
            p50.add(x, Math.max(w.p50(), 0.01));
            p95.add(x, Math.max(w.p95(), 0.01));
            p99.add(x, Math.max(w.p99(), 0.01));
            max.add(x, Math.max(w.max(), 0.01));
        }
        XYSeriesCollection data = collection(p50, p95, p99, max);
        JFreeChart chart = lineChart(data, "latency (ms)");
        chart.getXYPlot().setRangeAxis(logAxis("latency (ms)"));
        return render("latency-quantiles", "Latency quantiles per " + windowLabel(), chart);
    }

    Chart throughput() {
        XYSeries total = new XYSeries("all ok ops");
        Map<String, XYSeries> byF = new LinkedHashMap<>();
        double half = metrics.windowNanos() / 2e9;
        for (HistoryMetrics.ThroughputWindow w : metrics.throughput()) {
            double x = w.startNanos() / 1e9 + half;
            total.add(x, w.okPerSecond());
            w.okPerSecondByF().forEach((f, v) -> byF.computeIfAbsent(f + " ok", XYSeries::new).add(x, v));
        }
        XYSeriesCollection data = collection(total);
        if (byF.size() > 1) { // one function only: its line would hide under the total
            byF.values().forEach(data::addSeries);
        }
        JFreeChart chart = lineChart(data, "ok ops / s");
        return render("throughput", "Throughput (ok ops per second, per " + windowLabel() + ")", chart);
    }

    Chart clockOffsets() {
        XYSeriesCollection data = new XYSeriesCollection();
        input.clockOffsets().forEach((node, points) -> {
            XYSeries s = new XYSeries(node, false, true);
            for (ReportInput.ClockPoint p : points) {
                s.add(p.timeNanos() / 1e9, p.offsetMillis());
            }
            data.addSeries(s);
        });
        JFreeChart chart = lineChart(data, "clock offset (ms)");
        return render("clock-offsets", "Clock offset per node", chart);
    }

    private JFreeChart lineChart(XYSeriesCollection data, String yLabel) {
        JFreeChart chart = ChartFactory.createXYLineChart(null, "time (s)", yLabel, data,
                PlotOrientation.VERTICAL, true, false, false);
        XYLineAndShapeRenderer r = (XYLineAndShapeRenderer) chart.getXYPlot().getRenderer();
        for (int i = 0; i < data.getSeriesCount(); i++) {
            r.setSeriesStroke(i, new BasicStroke(1.6f));
            r.setSeriesShapesVisible(i, data.getItemCount(i) < 80);
        }
        return chart;
    }

    /** Common look, shared time range, fault bands and their legend entries; then SVG. */
    private Chart render(String name, String title, JFreeChart chart) {
        XYPlot plot = chart.getXYPlot();
        chart.setBackgroundPaint(Color.WHITE);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xdd, 0xdd, 0xdd));
        plot.setRangeGridlinePaint(new Color(0xdd, 0xdd, 0xdd));
        NumberAxis x = (NumberAxis) plot.getDomainAxis();
        x.setRange(0, xMaxSeconds);
        Font tick = new Font(Font.SANS_SERIF, Font.PLAIN, 11);
        x.setTickLabelFont(tick);
        plot.getRangeAxis().setTickLabelFont(tick);

        LegendItemCollection legend = new LegendItemCollection();
        LegendItemCollection seriesItems = plot.getLegendItems();
        for (int i = 0; i < seriesItems.getItemCount(); i++) {
            legend.add(seriesItems.get(i));
        }
        for (FaultBands.Band band : faults.bands()) {
            Color c = colour(input.colourOf(band.pkg()));
            IntervalMarker m = new IntervalMarker(band.startNanos() / 1e9, band.endNanos() / 1e9,
                    new Color(c.getRed(), c.getGreen(), c.getBlue(), 60));
            plot.addDomainMarker(m, Layer.BACKGROUND);
        }
        for (String pkg : faults.packages()) {
            Shape box = new Rectangle2D.Double(-6, -6, 12, 12);
            Color c = colour(input.colourOf(pkg));
            legend.add(new LegendItem("fault: " + pkg, null, null, null, box,
                    new Color(c.getRed(), c.getGreen(), c.getBlue(), 110)));
        }
        plot.setFixedLegendItems(legend);

        SVGGraphics2D g2 = new SVGGraphics2D(WIDTH, HEIGHT);
        g2.setDefsKeyPrefix(name + "-"); // several SVGs share one page: clip-path ids must not collide
        chart.draw(g2, new Rectangle(0, 0, WIDTH, HEIGHT));
        return new Chart(name, title, g2.getSVGElement("chart-" + name));
    }

    private String windowLabel() {
        long w = metrics.windowNanos();
        return w >= 1_000_000_000L && w % 1_000_000_000L == 0 ? (w / 1_000_000_000L) + " s window"
                : String.format(java.util.Locale.ROOT, "%.0f ms window", w / 1e6);
    }

    /** A log axis labelled with plain numbers (0.1, 1, 10, 100) rather than powers of ten. */
    private static LogarithmicAxis logAxis(String label) {
        LogarithmicAxis axis = new LogarithmicAxis(label);
        axis.setStrictValuesFlag(false); // latencies are clamped to 10 µs anyway: log scales cannot show 0
        axis.setAutoRangeNextLogFlag(true);
        axis.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        return axis;
    }

    private static XYSeriesCollection collection(XYSeries... series) {
        XYSeriesCollection c = new XYSeriesCollection();
        for (XYSeries s : series) {
            c.addSeries(s);
        }
        return c;
    }

    private static Shape shapeFor(int functionIndex) {
        return switch (Math.floorMod(functionIndex, 3)) {
            case 0 -> new Ellipse2D.Double(-2.5, -2.5, 5, 5);
            case 1 -> new Rectangle2D.Double(-2.5, -2.5, 5, 5);
            default -> new java.awt.Polygon(new int[]{0, 3, -3}, new int[]{-3, 3, 3}, 3);
        };
    }

    static Color colour(String hex) {
        try {
            return Color.decode(hex);
        } catch (RuntimeException e) {
            return Color.GRAY;
        }
    }
}
