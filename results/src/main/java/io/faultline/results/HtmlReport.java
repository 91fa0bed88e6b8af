package io.faultline.results;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpValue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Writes a run's report.html: one self-contained file (inline CSS and SVG, no script, nothing fetched), plus each
 * chart as plots/&lt;name&gt;.svg. Never fails on odd input: a section that cannot be drawn says so and the rest is
 * still written; only an I/O error writing the file itself escapes.
 */
public final class HtmlReport {

    /** The report embeds at most this many history rows; beyond that it links to history.jsonl. */
    static final int MAX_OP_ROWS = 2000;
    /** Ops shown on each side of an example op. */
    static final int CONTEXT_OPS = 5;
    /** Log excerpts are looked up for this many examples at most (each costs a window in the log scan). */
    static final int MAX_EXCERPT_EXAMPLES = 30;
    static final Duration EXCERPT_MARGIN = Duration.ofSeconds(2);

    /** What the report found, for results.json and campaign pages. NaN where there was nothing to measure. */
    /** Anomaly categories that mean acknowledged writes went missing (what power loss can cause). */
    static final List<String> LOSS_CATEGORIES = List.of("lost-write", "lost", "unseen", "inconsistent-offsets");

    public record Summary(String verdict, boolean complete, double availabilityDuringFaults,
                          double availabilityOutsideFaults, double availability, double okOpsPerSecond,
                          Map<String, Long> anomalyCounts, double okOpsPerSecondOutsideFaults,
                          double okOpsPerSecondDuringFaults) {
    }

    /**
     * The key under which a run's parameters carry its phase timings (phase → seconds), when the runner recorded
     * them; the report shows them beside the verdict rather than among the parameters.
     */
    public static final String PHASES_KEY = "phases";
    private static final int MAX_REPLICA_LOG_KEYS = 4;

    private HtmlReport() {
    }

    /** Writes runDir/report.html and runDir/plots/*.svg; returns what the report found. */
    public static Summary write(ReportInput input, Path runDir) throws IOException {
        return write(input, runDir, prepare(input.history(), input.faults()));
    }

    /**
     * The parts of the report that depend on the history alone, so a caller can work them out while the checks
     * run. Only reads the history.
     */
    public record Prepared(FaultBands faults, HistoryMetrics metrics, PositionOfIndex positions) {
    }

    /** Works out {@link Prepared} for this history and fault vocabulary (null: the fallback vocabulary). */
    public static Prepared prepare(List<Op> history, FaultVocabulary vocabulary) {
        FaultVocabulary v = vocabulary == null ? FaultVocabulary.FALLBACK : vocabulary;
        FaultBands faults = safe(() -> FaultBands.of(history, v), FaultBands.of(List.of()));
        HistoryMetrics metrics = safe(() -> HistoryMetrics.of(history, faults), HistoryMetrics.of(List.of(), faults));
        return new Prepared(faults, metrics, new PositionOfIndex(history));
    }

    /** As {@link #write(ReportInput, Path)}, with the history's parts worked out beforehand from the same history. */
    public static Summary write(ReportInput input, Path runDir, Prepared prepared) throws IOException {
        Files.createDirectories(runDir);
        FaultBands faults = prepared.faults();
        HistoryMetrics metrics = prepared.metrics();
        List<Charts.Chart> charts = new ArrayList<>();
        String body = new Builder(input, faults, metrics, prepared.positions(), charts).build();
        writeAtomically(runDir.resolve("report.html"), Html.page("Faultline: " + input.testName(), body));

        Path plots = runDir.resolve("plots");
        Files.createDirectories(plots);
        for (Charts.Chart c : charts) {
            writeAtomically(plots.resolve(c.name() + ".svg"),
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + c.svg() + "\n");
        }
        HistoryMetrics.Availability a = metrics.availability();
        Map<String, Long> counts = anomalyCounts(input.checks());
        // liveness anomalies found count beside the safety ones (campaign pages read these counts)
        if (input.liveness() != null) input.liveness().counts().forEach((k, n) -> { if (n > 0) counts.put(k, n); });
        return new Summary(input.verdict().name().toLowerCase(Locale.ROOT), input.complete(), a.duringFaults(),
                a.outsideFaults(), a.overall(), metrics.meanOkThroughput(), counts,
                metrics.rates().outsideFaults(), metrics.rates().duringFaults());
    }

    /**
     * Category → count over all checks. Checks overlap (total-queue re-counts what queue counts), so a category
     * takes the largest count any check gave it rather than the sum.
     */
    static Map<String, Long> anomalyCounts(Map<String, CheckResult> checks) {
        Map<String, Long> out = new TreeMap<>();
        for (CheckResult r : checks.values()) {
            if (r != null && r.counts() != null) {
                r.counts().forEach((c, n) -> out.merge(c, n == null ? 0 : n, Math::max));
            }
        }
        return out;
    }

    private static final class Builder {
        private final ReportInput in;
        private final FaultBands faults;
        private final HistoryMetrics metrics;
        private final List<Charts.Chart> charts;
        private final PositionOfIndex positionOfIndex;
        private final TreeSet<Integer> embeddedRows = new TreeSet<>();
        private final TreeSet<Long> exampleOps = new TreeSet<>();
        private final StringBuilder out = new StringBuilder(64 * 1024);
        private StateTimeline timeline;

        Builder(ReportInput in, FaultBands faults, HistoryMetrics metrics, PositionOfIndex positions,
                List<Charts.Chart> charts) {
            this.in = in;
            this.faults = faults;
            this.metrics = metrics;
            this.charts = charts;
            this.positionOfIndex = positions;
        }

        String build() {
            section("banner", this::banner);
            section("summary", this::summary);
            section("parameters", this::parameters);
            chooseEmbeddedRows();
            timeline = safe(() -> StateTimeline.of(in, faults, metrics.durationNanos()),
                    new StateTimeline(List.of(), in.startedAt(), metrics.durationNanos(), faults, in::colourOf));
            section("anomalies", this::anomalies);
            section("liveness", () -> LivenessSection.html(in.liveness()));
            section("state", timeline::html);
            section("replica-logs", this::replicaLogs);
            section("faults", this::faultsSection);
            section("charts", this::chartsSection);
            section("availability", this::availability);
            section("ops", this::opsTable);
            return out.toString();
        }

        /** Each section is drawn on its own: one that fails is replaced by a note, the others still appear. */
        private void section(String name, Supplier<String> body) {
            try {
                out.append(body.get()).append('\n');
            } catch (RuntimeException | Error e) {
                if (e instanceof VirtualMachineError vme) {
                    throw vme;
                }
                out.append("<p class=\"note\">Section ").append(Html.esc(name)).append(" could not be drawn: ")
                        .append(Html.esc(e)).append("</p>\n");
            }
        }

        private String banner() {
            Verdict v = in.verdict();
            String text = switch (v) {
                case VALID -> "VALID: no forbidden anomaly found";
                case INVALID -> "INVALID: forbidden anomalies found";
                case UNKNOWN -> "UNKNOWN: the checkers could not decide";
            };
            String partial = in.complete() ? ""
                    : "<span class=\"partial\">The run was interrupted: this report is partial.</span>";
            return "<div class=\"banner " + Html.verdictClass(v.name()) + "\" id=\"verdict\">" + Html.esc(text)
                    + partial + "</div>\n<h1>" + Html.esc(in.testName()) + "</h1>";
        }

        private String summary() {
            StringBuilder b = new StringBuilder("<table>");
            row(b, "started", in.startedAt().atOffset(ZoneOffset.UTC).toString());
            row(b, "duration", String.format(Locale.ROOT, "%.1f s", metrics.durationNanos() / 1e9));
            rowHtml(b, "history", in.history().size() + " ops (<a href=\"history.jsonl\">history.jsonl</a>, "
                    + "<a href=\"history.edn\">history.edn</a>)");
            row(b, "complete", in.complete() ? "yes" : "no (interrupted)");
            rateAndPhases(b);
            b.append("</table>\n<table><tr><th>check</th><th>verdict</th><th>forbidden anomalies found</th></tr>");
            in.checks().forEach((name, r) -> {
                String verdict = r == null || r.verdict() == null ? "UNKNOWN" : r.verdict().name();
                String found = r == null ? "" : String.join(", ", r.forbiddenFound());
                b.append("<tr><td>").append(Html.esc(name)).append("</td><td><span class=\"verdict ")
                        .append(Html.verdictClass(verdict)).append("\">").append(verdict).append("</span></td><td>")
                        .append(Html.esc(found)).append("</td></tr>");
            });
            if (in.liveness() != null) {
                Liveness l = in.liveness();
                String verdict = l.verdict() == null ? "UNKNOWN" : l.verdict().name();
                b.append("<tr><td><a href=\"#liveness\">recovery</a></td><td><span class=\"verdict ")
                        .append(Html.verdictClass(verdict)).append("\">").append(verdict).append("</span></td><td>")
                        .append(Html.esc(String.join(", ", l.anomalies().stream().map(Liveness.Anomaly::name)
                                .distinct().toList()))).append("</td></tr>");
            }
            return b.append("</table>").toString();
        }

        /**
         * Next to the anomalies, when power faults ran: whether a loss found breaks a promise of the settings in
         * force or is allowed by them (empty when no power fault ran).
         */
        private String durability() {
            ReportInput.Durability d = in.durability();
            if (d == null) return "";
            boolean loss = in.checks().values().stream().filter(java.util.Objects::nonNull)
                    .anyMatch(r -> LOSS_CATEGORIES.stream().anyMatch(c -> r.counts().getOrDefault(c, 0L) > 0));
            String head = !loss ? "Power faults ran and no acknowledged write was lost."
                    : in.verdict() != Verdict.INVALID ? "Acknowledged writes were not read back under power faults, but"
                    + " this run cannot prove them lost (see the caveats). Were they lost, "
                    + (d.promised() ? "that would break the settings' promise: a durability bug."
                    : "the settings in force would allow it.")
                    : d.promised() ? "Acknowledged writes were lost under power faults although the settings in force"
                    + " promised they survive: a durability bug."
                    : "Acknowledged writes were lost under power faults, which the settings in force allow.";
            return "<div class=\"durability\" id=\"durability\"><p><b>" + Html.esc(head) + "</b> "
                    + Html.esc(d.explanation()) + "</p></div>";
        }

        /** Grouped by what a reader asks: system, settings, workload, faults, versions, the run itself. */
        private String parameters() {
            Map<String, Object> shown = new java.util.LinkedHashMap<>(in.parameters());
            shown.remove(PHASES_KEY); // shown beside the verdict
            Map<String, Map<String, String>> groups = ParameterGroups.of(shown);
            StringBuilder b = new StringBuilder("<h2 id=\"parameters\">Parameters</h2>");
            if (groups.isEmpty()) {
                return b.append("<p class=\"note\">No parameters recorded.</p>").toString();
            }
            b.append("<table class=\"parameters\">");
            groups.forEach((group, rows) -> {
                b.append("<tr class=\"group\"><th colspan=\"2\">").append(Html.esc(group)).append("</th></tr>");
                rows.forEach((k, v) -> row(b, k, v));
            });
            return b.append("</table>").toString();
        }

        /** The rate achieved and, when the run recorded them, its phase timings: next to the verdict. */
        private void rateAndPhases(StringBuilder b) {
            HistoryMetrics.Rates rates = safe(metrics::rates, null);
            String rate = String.format(Locale.ROOT, "%.1f ok ops/s", metrics.meanOkThroughput());
            if (rates != null) {
                rate += String.format(Locale.ROOT, " (%.1f outside faults, %.1f during faults)", rates.outsideFaults(),
                        rates.duringFaults());
            }
            Object target = in.parameters().get("parameters") instanceof Map<?, ?> p ? p.get("rate") : null;
            row(b, "rate achieved", rate + (target == null ? "" : " of " + target + " asked"));
            if (in.parameters().get(PHASES_KEY) instanceof List<?> phases && !phases.isEmpty()) {
                StringBuilder t = new StringBuilder();
                for (Object p : phases) {
                    if (!(p instanceof Map<?, ?> m)) continue;
                    t.append(t.length() == 0 ? "" : ", ").append(m.get("phase")).append(' ')
                            .append(m.get("seconds") instanceof Number n
                                    ? String.format(Locale.ROOT, "%.1f s", n.doubleValue()) : String.valueOf(m.get("seconds")));
                }
                row(b, "phases", t.toString());
            }
        }

        private String anomalies() {
            StringBuilder b = new StringBuilder("<h2 id=\"anomalies\">Anomalies</h2>");
            if (in.checks().isEmpty()) {
                return b.append("<p class=\"note\">No check results (the run may have stopped before checking).</p>")
                        .toString();
            }
            b.append(durability());
            Map<String, List<LogExcerpts.Line>> excerpts = findExcerpts();
            int exampleNo = 0;
            for (Map.Entry<String, CheckResult> e : in.checks().entrySet()) {
                CheckResult r = e.getValue();
                if (r == null) {
                    continue;
                }
                b.append("<h3>").append(Html.esc(e.getKey())).append(": <span class=\"verdict ")
                        .append(Html.verdictClass(String.valueOf(r.verdict()))).append("\">").append(r.verdict())
                        .append("</span></h3>");
                if (r.error() != null) {
                    b.append("<pre>").append(Html.esc(r.error())).append("</pre>");
                }
                b.append("<table><tr><th>category</th><th>count</th><th>allowed</th><th>meaning</th></tr>");
                r.counts().forEach((cat, n) -> b.append("<tr").append(n == 0 ? " class=\"zero\"" : "")
                        .append("><td>").append(Html.esc(cat)).append("</td><td class=\"num\">").append(n)
                        .append("</td><td>").append(r.allowed().contains(cat) ? "yes" : "no").append("</td><td>")
                        .append(Html.esc(AnomalyGlossary.meaning(cat))).append("</td></tr>"));
                b.append("</table>");
                for (Map.Entry<String, List<Example>> ex : r.examples().entrySet()) {
                    if (ex.getValue().isEmpty()) {
                        continue;
                    }
                    b.append("<h4>").append(Html.esc(ex.getKey())).append(" (")
                            .append(r.count(ex.getKey())).append(" found, ").append(ex.getValue().size())
                            .append(" shown)</h4><ol>");
                    for (Example x : ex.getValue()) {
                        String id = "ex-" + (exampleNo++);
                        b.append("<li id=\"").append(id).append("\">").append(Html.esc(x.explanation()));
                        if (x.key() != null) {
                            b.append(" <span class=\"note\">(key ").append(x.key()).append(")</span>");
                        }
                        b.append("<br>ops: ").append(opLinks(x.ops()));
                        String why = safe(() -> whyOf(x), "");
                        if (!why.isEmpty()) b.append("<br><span class=\"why\">").append(why).append("</span>");
                        List<LogExcerpts.Line> lines = excerpts.get(id);
                        if (lines != null && !lines.isEmpty()) {
                            b.append("<details><summary>node logs within ±")
                                    .append(EXCERPT_MARGIN.toSeconds()).append(" s</summary><pre>");
                            for (LogExcerpts.Line l : lines) {
                                b.append(Html.esc(l.file() + ":" + l.lineNumber() + "  " + l.text())).append('\n');
                            }
                            b.append("</pre></details>");
                        }
                        b.append("</li>");
                    }
                    b.append("</ol>");
                }
                b.append(CheckDrawings.html(r));
            }
            return b.toString();
        }

        /** For up to four keys with forbidden anomalies: each replica's final log of the key's partition. */
        private String replicaLogs() {
            java.util.LinkedHashSet<Integer> keys = new java.util.LinkedHashSet<>();
            for (CheckResult r : in.checks().values()) {
                if (r == null) continue;
                r.examples().forEach((category, list) -> {
                    if (r.allowed().contains(category)) return;
                    for (Example x : list) if (x.key() != null && keys.size() < MAX_REPLICA_LOG_KEYS) keys.add(x.key());
                });
            }
            if (keys.isEmpty() || in.nodesDir() == null) return "";
            StringBuilder b = new StringBuilder("<h2 id=\"replica-logs\">Replica logs of the keys with anomalies</h2>");
            int drawn = 0;
            for (int key : keys) {
                String partition = ReplicaLogs.partitionOfKey(in.nodesDir(), key);
                if (partition == null) continue;
                String html = ReplicaLogs.html(key, partition, ReplicaLogs.read(in.nodesDir(), partition));
                if (!html.isEmpty()) {
                    b.append(html);
                    drawn++;
                }
            }
            return drawn == 0 ? "" : b.toString();
        }

        /** The state changes on the example's partition that led up to it, from the node logs. */
        private String whyOf(Example x) {
            long[] span = timeSpan(x);
            if (span == null) return "";
            AnomalyStory.Subject subject = AnomalyStory.of(x);
            Integer writer = subject == null || subject.writerOp() == null ? null : positionOfIndex.get(subject.writerOp());
            return timeline.why(x, span[0], span[1], writer == null ? null : in.history().get(writer).time());
        }

        /** The first and last history time of the example's ops that are in the history; null when none is. */
        private long[] timeSpan(Example x) {
            long min = Long.MAX_VALUE, max = Long.MIN_VALUE;
            for (long i : x.ops()) {
                Integer pos = positionOfIndex.get(i);
                if (pos != null) {
                    min = Math.min(min, in.history().get(pos).time());
                    max = Math.max(max, in.history().get(pos).time());
                }
            }
            return min <= max ? new long[]{min, max} : null;
        }

        private String opLinks(List<Long> ops) {
            if (ops.isEmpty()) {
                return "<span class=\"note\">none</span>";
            }
            return ops.stream().map(i -> {
                Integer pos = positionOfIndex.get(i);
                return pos != null && embeddedRows.contains(pos)
                        ? "<a href=\"#op-" + i + "\">" + i + "</a>"
                        : "<a href=\"history.jsonl\" title=\"not embedded: see history.jsonl\">" + i + "</a>";
            }).collect(Collectors.joining(" "));
        }

        /** Windows of ±2 s around each example's ops (same numbering as the example ids), then one log scan. */
        private Map<String, List<LogExcerpts.Line>> findExcerpts() {
            if (in.nodesDir() == null) {
                return Map.of();
            }
            List<LogExcerpts.Window> windows = new ArrayList<>();
            int exampleNo = 0;
            for (CheckResult r : in.checks().values()) {
                if (r == null) {
                    continue;
                }
                for (List<Example> list : r.examples().values()) {
                    for (Example x : list) {
                        String id = "ex-" + (exampleNo++);
                        long[] span = timeSpan(x);
                        if (span != null && windows.size() < MAX_EXCERPT_EXAMPLES) {
                            windows.add(new LogExcerpts.Window(id,
                                    in.startedAt().plusNanos(span[0]).minus(EXCERPT_MARGIN),
                                    in.startedAt().plusNanos(span[1]).plus(EXCERPT_MARGIN)));
                        }
                    }
                }
            }
            return new LogExcerpts(in.nodesDir(), ZoneOffset.UTC).find(windows);
        }

        private String faultsSection() {
            StringBuilder b = new StringBuilder("<h2 id=\"faults\">Faults</h2>");
            if (faults.isEmpty() && faults.events().isEmpty()) {
                return b.append("<p class=\"note\">No faults were injected.</p>").toString();
            }
            b.append("<p>");
            for (String pkg : faults.packages()) {
                b.append("<span class=\"swatch\" style=\"background:").append(Html.esc(in.colourOf(pkg)))
                        .append("\"></span>").append(Html.esc(pkg)).append(" &nbsp; ");
            }
            b.append("</p><table><tr><th>package</th><th>from (s)</th><th>to (s)</th><th>length (s)</th></tr>");
            for (FaultBands.Band band : faults.bands()) {
                b.append("<tr><td><span class=\"swatch\" style=\"background:").append(Html.esc(in.colourOf(band.pkg())))
                        .append("\"></span>").append(Html.esc(band.pkg())).append("</td><td class=\"num\">")
                        .append(seconds(band.startNanos())).append("</td><td class=\"num\">")
                        .append(seconds(band.endNanos())).append(band.closed() ? "" : " (never stopped)")
                        .append("</td><td class=\"num\">").append(seconds(band.endNanos() - band.startNanos()))
                        .append("</td></tr>");
            }
            b.append("</table>");
            if (!faults.events().isEmpty()) {
                b.append("<p>Other nemesis events: ").append(faults.events().stream().limit(50)
                        .map(ev -> Html.esc(ev.f()) + " at " + seconds(ev.timeNanos()) + " s")
                        .collect(Collectors.joining(", "))).append(faults.events().size() > 50 ? ", …" : "")
                        .append("</p>");
            }
            return b.toString();
        }

        private String chartsSection() {
            Charts c = new Charts(in, faults, metrics);
            List<Supplier<Charts.Chart>> wanted = new ArrayList<>(
                    List.of(c::latencyScatter, c::latencyQuantiles, c::throughput));
            boolean clockRan = faults.ran("clock");
            if (!in.clockOffsets().isEmpty()) {
                wanted.add(c::clockOffsets);
            }
            StringBuilder b = new StringBuilder("<h2 id=\"charts\">Latency and throughput</h2>");
            b.append("<p class=\"note\">Time is seconds since the test started; shaded bands are fault periods. "
                    + "Latency is completion time minus invoke time; ok green, fail red, info (indeterminate) amber."
                    + "</p>");
            for (Supplier<Charts.Chart> s : wanted) {
                try {
                    Charts.Chart chart = s.get();
                    charts.add(chart);
                    b.append("<div class=\"chart\" id=\"plot-").append(chart.name()).append("\"><h3>")
                            .append(Html.esc(chart.title())).append("</h3>\n").append(chart.svg()).append("\n</div>");
                } catch (RuntimeException e) {
                    b.append("<p class=\"note\">A chart could not be drawn: ").append(Html.esc(e)).append("</p>");
                }
            }
            if (clockRan && in.clockOffsets().isEmpty()) {
                b.append("<p class=\"note\">Clock faults ran but no clock offsets were recorded.</p>");
            }
            return b.toString();
        }

        private String availability() {
            HistoryMetrics.Availability a = metrics.availability();
            StringBuilder b = new StringBuilder("<h2 id=\"availability\">Availability</h2>");
            b.append("<p class=\"note\">Share of completed client ops that were ok, by whether a fault was active "
                    + "when they completed.</p><table><tr><th></th><th>ok</th><th>completed</th><th>ok share</th></tr>");
            b.append("<tr><td>during faults</td><td class=\"num\">").append(a.okDuringFaults())
                    .append("</td><td class=\"num\">").append(a.totalDuringFaults()).append("</td><td class=\"num\">")
                    .append(Html.percent(a.duringFaults())).append("</td></tr>");
            b.append("<tr><td>outside faults</td><td class=\"num\">").append(a.okOutside())
                    .append("</td><td class=\"num\">").append(a.totalOutside()).append("</td><td class=\"num\">")
                    .append(Html.percent(a.outsideFaults())).append("</td></tr>");
            HistoryMetrics.Rates r = metrics.rates();
            b.append("</table><p id=\"rate\">Rate achieved: ").append(Html.number(r.outsideFaults()))
                    .append(" ok ops/s outside fault windows (").append(r.okOutside()).append(" ok ops in ")
                    .append(Html.number(r.secondsOutside())).append(" s), ").append(Html.number(r.duringFaults()))
                    .append(" ok ops/s during faults (").append(r.okDuring()).append(" in ")
                    .append(Html.number(r.secondsDuring())).append(" s), until the final heal. Mean over the whole "
                            + "history, final drain included: ").append(Html.number(metrics.meanOkThroughput()))
                    .append(" ok ops/s.</p>");
            return b.toString();
        }

        /** Whole history when small; otherwise the ops around each example, up to {@link #MAX_OP_ROWS}. */
        private void chooseEmbeddedRows() {
            int size = in.history().size();
            for (CheckResult r : in.checks().values()) {
                if (r != null) {
                    r.examples().values().forEach(list -> list.forEach(x -> exampleOps.addAll(x.ops())));
                }
            }
            if (size <= MAX_OP_ROWS) {
                for (int i = 0; i < size; i++) {
                    embeddedRows.add(i);
                }
                return;
            }
            for (long index : exampleOps) {
                Integer pos = positionOfIndex.get(index);
                if (pos == null) {
                    continue;
                }
                int from = Math.max(0, pos - CONTEXT_OPS), to = Math.min(size - 1, pos + CONTEXT_OPS);
                if (embeddedRows.size() + (to - from + 1) > MAX_OP_ROWS) {
                    break;
                }
                for (int i = from; i <= to; i++) {
                    embeddedRows.add(i);
                }
            }
        }

        private String opsTable() {
            StringBuilder b = new StringBuilder("<h2 id=\"history\">History</h2>");
            int size = in.history().size();
            if (size == 0) {
                return b.append("<p class=\"note\">The history is empty.</p>").toString();
            }
            b.append("<p class=\"note\">").append(embeddedRows.size() == size
                    ? "The whole history (" + size + " ops); ops in examples are highlighted."
                    : "Ops around the anomaly examples (±" + CONTEXT_OPS + "), " + embeddedRows.size() + " of "
                    + size + "; the full history is in <a href=\"history.jsonl\">history.jsonl</a>.").append("</p>");
            b.append("<table><tr><th>index</th><th>time (s)</th><th>process</th><th>type</th><th>f</th>"
                    + "<th>value</th><th>error</th></tr>\n");
            int previous = -1;
            for (int pos : embeddedRows) {
                if (previous >= 0 && pos != previous + 1) {
                    b.append("<tr class=\"gap\"><td colspan=\"7\">…</td></tr>\n");
                }
                previous = pos;
                Op op = in.history().get(pos);
                b.append("<tr id=\"op-").append(op.index()).append('"')
                        .append(exampleOps.contains(op.index()) ? " class=\"hit\"" : "").append("><td class=\"num\">")
                        .append(op.index()).append("</td><td class=\"num\">").append(seconds(op.time()))
                        .append("</td><td>").append(op.process() == Op.NEMESIS ? "nemesis" : op.process())
                        .append("</td><td>").append(op.type().wireName()).append("</td><td>").append(Html.esc(op.f()))
                        .append("</td><td class=\"mono\">").append(Html.esc(valueText(op.value())))
                        .append("</td><td>").append(op.error() == null ? "" : Html.esc(op.error()))
                        .append("</td></tr>\n");
            }
            return b.append("</table>").toString();
        }
    }

    /** Jepsen-like rendering of a value: [send 3 [12 7]] [poll {3 [[12 7]]}]. Long values are clipped. */
    static String valueText(OpValue value) {
        String s;
        if (value instanceof OpValue.Txn t) {
            s = t.mops().stream().map(m -> {
                if (m instanceof MicroOp.Send send) {
                    return "[send " + send.key() + " " + (send.hasOffset()
                            ? "[" + send.offset() + " " + send.value() + "]" : send.value()) + "]";
                }
                MicroOp.Poll p = (MicroOp.Poll) m;
                return p.reads() == null ? "[poll]" : "[poll " + p.reads().entrySet().stream()
                        .map(e -> e.getKey() + " " + e.getValue().toString().replace(",", ""))
                        .collect(Collectors.joining(", ", "{", "}")) + "]";
            }).collect(Collectors.joining(" "));
        } else if (value instanceof OpValue.Keys k) {
            s = k.keys() + (k.seekToBeginning() ? " seek-to-beginning" : "") + (k.seekToEnd() ? " seek-to-end" : "");
        } else if (value instanceof OpValue.Text t) {
            s = t.text();
        } else {
            s = "";
        }
        return s.length() > 300 ? s.substring(0, 300) + " …" : s;
    }

    static void flatten(String prefix, Object value, Map<String, String> out) {
        if (value instanceof Map<?, ?> m) {
            if (m.isEmpty() && !prefix.isEmpty()) {
                out.put(prefix, "{}");
            }
            m.forEach((k, v) -> flatten(prefix.isEmpty() ? String.valueOf(k) : prefix + "." + k, v, out));
        } else {
            out.put(prefix, String.valueOf(value));
        }
    }

    private static void row(StringBuilder b, String key, String value) {
        rowHtml(b, key, Html.esc(value));
    }

    private static void rowHtml(StringBuilder b, String key, String html) {
        b.append("<tr><th>").append(Html.esc(key)).append("</th><td>").append(html).append("</td></tr>");
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e9);
    }

    private static <T> T safe(Supplier<T> s, T fallback) {
        try {
            return s.get();
        } catch (RuntimeException e) {
            return fallback;
        }
    }

    static void writeAtomically(Path file, String content) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, content, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
