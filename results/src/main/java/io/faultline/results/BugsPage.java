package io.faultline.results;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The seeded-bug score: for each bug switched into the broker, whether the harness caught it, after how many runs
 * and how much test time, which anomalies showed it, and the run that did (seed and report link); then the runs of
 * the unseeded broker under the same fault mixes, where any invalid verdict is a false alarm. Writes bugs.html and
 * bugs.json into a folder of the store; links to run reports are relative, so the store can be moved.
 */
public final class BugsPage {
    public static final String PAGE = "bugs.html", JSON = "bugs.json";

    private BugsPage() {}

    /** One test run: its seed, verdict (valid / invalid / unknown), forbidden anomalies found, folder and length. */
    public record Attempt(long seed, String verdict, List<String> anomalies, String runDir, double seconds) {
        public Attempt {
            anomalies = List.copyOf(anomalies);
            verdict = verdict.toLowerCase(Locale.ROOT);
        }

        public boolean invalid() {
            return "invalid".equals(verdict);
        }
    }

    /** One seeded bug: what it is, the fault mix it ran under, and its runs in order (stopped at the first detection). */
    public record Bug(String name, String mistake, String mix, List<Attempt> attempts) {
        public Bug {
            attempts = List.copyOf(attempts);
        }

        /** The first run with an invalid verdict, if any. */
        public java.util.Optional<Attempt> detection() {
            return attempts.stream().filter(Attempt::invalid).findFirst();
        }

        public boolean detected() {
            return detection().isPresent();
        }

        /** Runs up to and including the detecting one (all runs when none detected it). */
        public int runsUntilDetection() {
            return detection().map(d -> attempts.indexOf(d) + 1).orElse(attempts.size());
        }

        /** Wall-clock seconds of those runs together. */
        public double secondsToDetection() {
            return attempts.subList(0, runsUntilDetection()).stream().mapToDouble(Attempt::seconds).sum();
        }

        /** The anomaly categories (without counts) of the detecting run. */
        public List<String> categories() {
            return detection().map(d -> d.anomalies().stream().map(a -> a.split(" ")[0]).distinct().toList())
                    .orElse(List.of());
        }
    }

    /** The unseeded broker under one fault mix: every invalid run is a false alarm. */
    public record Clean(String mix, List<Attempt> attempts) {
        public Clean {
            attempts = List.copyOf(attempts);
        }

        public long falseAlarms() {
            return attempts.stream().filter(Attempt::invalid).count();
        }
    }

    /**
     * Everything the page shows.
     *
     * @param missing points of a sharded hunt that no shard reported ("bug NAME", "unseeded MIX"): a missing bug
     *                is in {@code bugs} without attempts and counts as not detected; a missing mix has no runs
     * @param details further top-level entries of bugs.json (a sharded hunt's identity and shard)
     */
    public record Input(String title, String startedAt, long seed, List<Bug> bugs, List<Clean> clean, List<String> missing,
                        Map<String, Object> details) {
        public Input {
            bugs = List.copyOf(bugs);
            clean = List.copyOf(clean);
            missing = missing == null ? List.of() : List.copyOf(missing);
            details = details == null ? Map.of() : new LinkedHashMap<>(details);
        }

        public Input(String title, String startedAt, long seed, List<Bug> bugs, List<Clean> clean) {
            this(title, startedAt, seed, bugs, clean, List.of(), Map.of());
        }

        /** The same score with these further bugs.json entries. */
        public Input withDetails(Map<String, Object> more) {
            var all = new LinkedHashMap<>(details);
            all.putAll(more);
            return new Input(title, startedAt, seed, bugs, clean, missing, all);
        }

        public boolean isMissing(String point) {
            return missing.contains(point);
        }

        public long detected() {
            return bugs.stream().filter(Bug::detected).count();
        }

        public long falseAlarms() {
            return clean.stream().mapToLong(Clean::falseAlarms).sum();
        }
    }

    /** Writes dir/bugs.html and dir/bugs.json; returns the page. */
    public static Path write(Input input, Path dir) throws IOException {
        Files.createDirectories(dir);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("title", input.title());
        json.put("startedAt", input.startedAt());
        json.put("seed", input.seed());
        json.put("detected", input.detected());
        json.put("bugs", input.bugs().size());
        json.put("falseAlarms", input.falseAlarms());
        List<Map<String, Object>> bugs = new ArrayList<>();
        for (Bug b : input.bugs()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", b.name());
            m.put("mix", b.mix());
            m.put("detected", b.detected());
            m.put("runsUntilDetection", b.runsUntilDetection());
            m.put("secondsToDetection", b.secondsToDetection());
            m.put("categories", b.categories());
            b.detection().ifPresent(d -> {
                m.put("detectingSeed", d.seed());
                m.put("detectingRun", d.runDir());
            });
            m.put("attempts", b.attempts());
            bugs.add(m);
        }
        json.put("bugTable", bugs);
        json.put("clean", input.clean());
        json.put("missing", input.missing());
        input.details().forEach(json::putIfAbsent);
        Json.write(dir.resolve(JSON), json);
        Path page = dir.resolve(PAGE);
        HtmlReport.writeAtomically(page, Html.page(input.title(), body(input, dir.toAbsolutePath().normalize())));
        return page;
    }

    private static String body(Input in, Path dir) {
        var b = new StringBuilder("<h1>").append(Html.esc(in.title())).append("</h1>");
        boolean bar = in.detected() == in.bugs().size() && in.falseAlarms() == 0;
        b.append("<div class=\"banner ").append(bar ? "v-valid" : "v-invalid").append("\">")
                .append(in.detected()).append(" of ").append(in.bugs().size()).append(" seeded bugs detected, ")
                .append(in.falseAlarms()).append(in.falseAlarms() == 1 ? " false alarm" : " false alarms").append("</div>");
        if (!in.missing().isEmpty()) {
            // a merged hunt with a shard absent: its points are not silently dropped, and a missing bug is not detected
            b.append("<div class=\"banner v-invalid\" id=\"missing\">").append(in.missing().size())
                    .append(" points missing, no shard reported them: ").append(Html.esc(String.join(", ", in.missing())))
                    .append("</div>");
        }
        b.append("<p class=\"note\">started ").append(Html.esc(in.startedAt())).append(", seed ").append(in.seed())
                .append(". Each bug runs on a 3-node broker-impl under its fault mix, seed after seed, until the first"
                        + " invalid verdict. Replay a detection with <code>bin/faultline replay RUN_DIR</code>.</p>");
        b.append("<h2 id=\"bugs\">Seeded bugs</h2><table id=\"bug-table\"><tr><th>bug</th><th>the mistake</th>"
                + "<th>fault mix</th><th>detected</th><th>runs until detection</th><th>test time to detection (s)</th>"
                + "<th>anomalies</th><th>detecting seed</th><th>run</th></tr>\n");
        for (Bug bug : in.bugs()) {
            var d = bug.detection();
            b.append("<tr id=\"bug-").append(Html.esc(bug.name())).append("\"><td><code>").append(Html.esc(bug.name()))
                    .append("</code></td><td>").append(Html.esc(bug.mistake())).append("</td><td>").append(Html.esc(bug.mix()))
                    .append("</td><td><span class=\"verdict ").append(bug.detected() ? "v-valid\">yes"
                            : in.isMissing("bug " + bug.name()) ? "v-missing\">MISSING" : "v-invalid\">no")
                    .append("</span></td><td class=\"num\">")
                    .append(bug.detected() ? Integer.toString(bug.runsUntilDetection()) : "none in " + bug.attempts().size())
                    .append("</td><td class=\"num\">").append(bug.detected() ? Html.number(bug.secondsToDetection())
                            : "– (" + Html.number(bug.secondsToDetection()) + " s spent)").append("</td><td>")
                    .append(Html.esc(d.map(x -> String.join(", ", x.anomalies())).orElse("–"))).append("</td><td class=\"num\">")
                    .append(d.map(x -> Long.toString(x.seed())).orElse("–")).append("</td><td>")
                    .append(d.map(x -> link(dir, x.runDir(), "report")).orElse("–")).append("</td></tr>\n");
        }
        b.append("</table>\n");

        b.append("<h2 id=\"clean\">The unseeded broker (false alarms)</h2><table id=\"clean-table\"><tr><th>fault mix</th>"
                + "<th>runs</th><th>false alarms</th><th>verdicts</th></tr>\n");
        for (Clean c : in.clean()) {
            b.append("<tr><td>").append(Html.esc(c.mix())).append("</td><td class=\"num\">").append(c.attempts().size())
                    .append("</td><td class=\"num").append(c.falseAlarms() == 0 ? " zero" : "").append("\">")
                    .append(c.falseAlarms()).append("</td><td>");
            for (Attempt a : c.attempts()) b.append(verdictLink(dir, a)).append(' ');
            b.append("</td></tr>\n");
        }
        b.append("</table>\n");

        b.append("<h2 id=\"runs\">Every run</h2><table id=\"runs\"><tr><th>broker</th><th>seed</th><th>verdict</th>"
                + "<th>anomalies</th><th>seconds</th><th>run</th></tr>\n");
        for (Bug bug : in.bugs()) bug.attempts().forEach(a -> runRow(b, dir, "bug " + bug.name(), a));
        for (Clean c : in.clean()) c.attempts().forEach(a -> runRow(b, dir, "unseeded: " + c.mix(), a));
        b.append("</table>\n");
        return b.toString();
    }

    private static void runRow(StringBuilder b, Path dir, String broker, Attempt a) {
        b.append("<tr><td>").append(Html.esc(broker)).append("</td><td class=\"num\">").append(a.seed())
                .append("</td><td><span class=\"verdict ").append(Html.verdictClass(a.verdict())).append("\">")
                .append(Html.esc(a.verdict().toUpperCase(Locale.ROOT))).append("</span></td><td>")
                .append(Html.esc(String.join(", ", a.anomalies()))).append("</td><td class=\"num\">")
                .append(Html.number(a.seconds())).append("</td><td>").append(link(dir, a.runDir(), "report"))
                .append("</td></tr>\n");
    }

    private static String verdictLink(Path dir, Attempt a) {
        String label = "<span class=\"verdict " + Html.verdictClass(a.verdict()) + "\">"
                + Html.esc(a.verdict().toUpperCase(Locale.ROOT)) + "</span>";
        return a.runDir() == null ? label : "<a href=\"" + Html.href(rel(dir, a.runDir())) + "\">" + label + "</a>";
    }

    private static String link(Path dir, String runDir, String text) {
        if (runDir == null) return "–";
        return "<a href=\"" + Html.href(rel(dir, runDir)) + "\">" + Html.esc(text) + "</a>";
    }

    private static String rel(Path dir, String runDir) {
        return dir.relativize(Path.of(runDir).toAbsolutePath().normalize()).resolve("report.html").toString();
    }
}
