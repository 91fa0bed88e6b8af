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
 * The harness's mutation score: for each mutant of broker-impl (one operator applied at one place), what its own unit
 * tests said (a cheap kill), and whether the harness's runs detected it (an invalid verdict), in which run, with which
 * anomalies; then the unmutated broker's runs under the same mix, where an invalid verdict is a false alarm. Writes
 * mutants.html and mutants.json into a folder of the store, in the style of {@link BugsPage}, whose run records it
 * shares.
 */
public final class MutantsPage {
    public static final String PAGE = "mutants.html", JSON = "mutants.json";

    private MutantsPage() {}

    /**
     * One mutant and its runs (stopped at the first detection).
     *
     * @param unitTests    killed, timed out, survived or not run (broker-impl's tests of the mutated package)
     * @param unitDetail   how many tests failed, or why they did not run
     */
    public record Mutant(String id, String className, String method, int line, String operator, String description,
                         String unitTests, String unitDetail, List<BugsPage.Attempt> attempts) {
        public Mutant {
            attempts = List.copyOf(attempts);
        }

        public java.util.Optional<BugsPage.Attempt> detection() {
            return attempts.stream().filter(BugsPage.Attempt::invalid).findFirst();
        }

        public boolean detected() {
            return detection().isPresent();
        }

        /** 1-based: the run that detected it (0 when none did). */
        public int detectingRun() {
            return detection().map(d -> attempts.indexOf(d) + 1).orElse(0);
        }

        public boolean killedByUnitTests() {
            return "killed".equals(unitTests) || "timed out".equals(unitTests);
        }

        /** Whether the unit tests ran and let it through (the mutants where the harness's verdict matters most). */
        public boolean survivedUnitTests() {
            return "survived".equals(unitTests);
        }

        public List<String> categories() {
            return detection().map(d -> d.anomalies().stream().map(a -> a.split(" ")[0]).distinct().toList()).orElse(List.of());
        }
    }

    /**
     * Everything the page shows.
     *
     * @param setup   how the runs were made, shown in the note (mix, runs, time limit, jar, packages)
     * @param clean   the unmutated broker's runs under the same mix (false-alarm control)
     * @param details further top-level entries of mutants.json
     */
    public record Input(String title, String startedAt, long seed, String setup, List<Mutant> mutants,
                        List<BugsPage.Attempt> clean, Map<String, Object> details) {
        public Input {
            mutants = List.copyOf(mutants);
            clean = List.copyOf(clean);
            details = details == null ? Map.of() : new LinkedHashMap<>(details);
        }

        public long detected() {
            return mutants.stream().filter(Mutant::detected).count();
        }

        public long unitSurvivors() {
            return mutants.stream().filter(Mutant::survivedUnitTests).count();
        }

        public long detectedOfUnitSurvivors() {
            return mutants.stream().filter(m -> m.survivedUnitTests() && m.detected()).count();
        }

        public long killedByUnitTests() {
            return mutants.stream().filter(Mutant::killedByUnitTests).count();
        }

        /** Of the mutants broker-impl's unit tests kill (a change of behaviour shown apart from the harness), those detected. */
        public long detectedOfUnitKilled() {
            return mutants.stream().filter(m -> m.killedByUnitTests() && m.detected()).count();
        }

        /**
         * Mutants shown to change behaviour: a unit test fails or a run finds them (the "live"). The rest may be
         * equivalent to the original (a hash code no map reads, a flush no crash tests) or need what no run did.
         */
        public long shownLive() {
            return mutants.stream().filter(m -> m.killedByUnitTests() || m.detected()).count();
        }

        public long falseAlarms() {
            return clean.stream().filter(BugsPage.Attempt::invalid).count();
        }
    }

    /** Writes dir/mutants.html and dir/mutants.json; returns the page. */
    public static Path write(Input in, Path dir) throws IOException {
        Files.createDirectories(dir);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("title", in.title());
        json.put("startedAt", in.startedAt());
        json.put("seed", in.seed());
        json.put("setup", in.setup());
        json.put("mutants", in.mutants().size());
        json.put("detected", in.detected());
        json.put("killedByUnitTests", in.killedByUnitTests());
        json.put("unitTestSurvivors", in.unitSurvivors());
        json.put("detectedOfUnitTestSurvivors", in.detectedOfUnitSurvivors());
        json.put("detectedOfUnitTestKilled", in.detectedOfUnitKilled());
        json.put("shownLive", in.shownLive());
        json.put("falseAlarms", in.falseAlarms());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Mutant m : in.mutants()) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("id", m.id());
            r.put("class", m.className());
            r.put("method", m.method());
            r.put("line", m.line());
            r.put("operator", m.operator());
            r.put("description", m.description());
            r.put("unitTests", m.unitTests());
            r.put("unitDetail", m.unitDetail());
            r.put("detected", m.detected());
            r.put("detectingRun", m.detectingRun());
            r.put("categories", m.categories());
            r.put("attempts", m.attempts());
            rows.add(r);
        }
        json.put("mutantTable", rows);
        json.put("clean", in.clean());
        in.details().forEach(json::putIfAbsent);
        Json.write(dir.resolve(JSON), json);
        Path page = dir.resolve(PAGE);
        HtmlReport.writeAtomically(page, Html.page(in.title(), body(in, dir.toAbsolutePath().normalize())));
        return page;
    }

    private static String body(Input in, Path dir) {
        var b = new StringBuilder("<h1>").append(Html.esc(in.title())).append("</h1>");
        b.append("<div class=\"banner ").append(in.falseAlarms() == 0 ? "v-valid" : "v-invalid").append("\">")
                .append(in.detected()).append(" of ").append(in.mutants().size()).append(" mutants detected by the harness; ")
                .append(in.detectedOfUnitSurvivors()).append(" of the ").append(in.unitSurvivors())
                .append(" that broker-impl's unit tests let through; ").append(in.detectedOfUnitKilled()).append(" of the ")
                .append(in.killedByUnitTests()).append(" they kill; ").append(in.detected()).append(" of the ").append(in.shownLive())
                .append(" shown to change behaviour (killed or detected); ").append(in.falseAlarms())
                .append(in.falseAlarms() == 1 ? " false alarm" : " false alarms").append(" in ").append(in.clean().size())
                .append(" runs of the unmutated broker</div>");
        b.append("<p class=\"note\">started ").append(Html.esc(in.startedAt())).append(", seed ").append(in.seed())
                .append(". ").append(Html.esc(in.setup())).append(" Each mutant runs until the first invalid verdict. Replay"
                        + " a run with <code>bin/faultline replay RUN_DIR</code> (test.json names the mutant's jar).</p>");
        b.append("<h2 id=\"mutants\">Mutants</h2><table id=\"mutant-table\"><tr><th>id</th><th>class</th><th>line</th>"
                + "<th>operator</th><th>what changed</th><th>unit tests</th><th>detected</th><th>detecting run</th>"
                + "<th>runs</th><th>anomalies</th><th>run</th></tr>\n");
        for (Mutant m : in.mutants()) {
            var d = m.detection();
            b.append("<tr id=\"mutant-").append(Html.esc(m.id())).append("\"><td><code>").append(Html.esc(m.id()))
                    .append("</code></td><td><code>").append(Html.esc(simple(m.className()))).append("</code></td><td class=\"num\">")
                    .append(m.line()).append("</td><td>").append(Html.esc(m.operator())).append("</td><td>")
                    .append(Html.esc(m.description())).append(" <span class=\"note\">(in ").append(Html.esc(m.method()))
                    .append(")</span></td><td title=\"").append(Html.esc(m.unitDetail())).append("\">")
                    .append(Html.esc(m.unitTests())).append("</td><td><span class=\"verdict ")
                    .append(m.detected() ? "v-valid\">yes" : "v-invalid\">no").append("</span></td><td class=\"num\">")
                    .append(m.detected() ? Integer.toString(m.detectingRun()) : "–").append("</td><td class=\"num\">")
                    .append(m.attempts().size()).append("</td><td>")
                    .append(Html.esc(d.map(x -> String.join(", ", x.anomalies())).orElse("–"))).append("</td><td>");
            for (BugsPage.Attempt a : m.attempts()) b.append(verdictLink(dir, a)).append(' ');
            b.append("</td></tr>\n");
        }
        b.append("</table>\n");
        b.append("<h2 id=\"clean\">The unmutated broker (false alarms)</h2><table id=\"clean-table\"><tr><th>runs</th>"
                + "<th>false alarms</th><th>verdicts</th></tr>\n<tr><td class=\"num\">").append(in.clean().size())
                .append("</td><td class=\"num").append(in.falseAlarms() == 0 ? " zero" : "").append("\">").append(in.falseAlarms())
                .append("</td><td>");
        for (BugsPage.Attempt a : in.clean()) b.append(verdictLink(dir, a)).append(' ');
        b.append("</td></tr>\n</table>\n");
        b.append("<h2 id=\"runs\">Every run</h2><table id=\"runs\"><tr><th>broker</th><th>seed</th><th>verdict</th>"
                + "<th>anomalies</th><th>seconds</th><th>run</th></tr>\n");
        for (Mutant m : in.mutants()) m.attempts().forEach(a -> runRow(b, dir, "mutant " + m.id(), a));
        in.clean().forEach(a -> runRow(b, dir, "unmutated", a));
        b.append("</table>\n");
        return b.toString();
    }

    private static String simple(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    private static void runRow(StringBuilder b, Path dir, String broker, BugsPage.Attempt a) {
        b.append("<tr><td>").append(Html.esc(broker)).append("</td><td class=\"num\">").append(a.seed())
                .append("</td><td>").append(verdictLink(dir, a)).append("</td><td>")
                .append(Html.esc(String.join(", ", a.anomalies()))).append("</td><td class=\"num\">")
                .append(Html.number(a.seconds())).append("</td><td>")
                .append(a.runDir() == null ? "–" : "<a href=\"" + Html.href(rel(dir, a.runDir())) + "\">report</a>")
                .append("</td></tr>\n");
    }

    private static String verdictLink(Path dir, BugsPage.Attempt a) {
        String label = "<span class=\"verdict " + Html.verdictClass(a.verdict()) + "\">"
                + Html.esc(a.verdict().toUpperCase(Locale.ROOT)) + "</span>";
        return a.runDir() == null ? label : "<a href=\"" + Html.href(rel(dir, a.runDir())) + "\">" + label + "</a>";
    }

    private static String rel(Path dir, String runDir) {
        return dir.relativize(Path.of(runDir).toAbsolutePath().normalize()).resolve("report.html").toString();
    }
}
