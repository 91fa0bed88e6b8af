package io.faultline.results;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A campaign's state coverage, run by run (the nightly mix): how many sequences of cluster state transitions were
 * known after each run and how many it added, as a table and a small step chart, with links to the runs' reports.
 * The campaign page links to it.
 */
public final class CoveragePage {
    public static final String FILE = "coverage.html";

    private CoveragePage() {}

    /**
     * One run's coverage.
     *
     * @param total        n-grams known after the run (-1: the run recorded none, e.g. it broke)
     * @param added        n-grams it was the first to show
     * @param compositions compositions that ran
     * @param examples     a few of the new n-grams
     */
    public record Row(Path runDir, int compositions, int total, int added, List<String> examples) {
        public Row {
            examples = List.copyOf(examples);
        }
    }

    public static void write(Path campaignDir, String name, boolean guided, Path mapFile, List<Row> rows) throws IOException {
        Path page = campaignDir.toAbsolutePath().normalize();
        StringBuilder b = new StringBuilder();
        b.append("<h1>State coverage of campaign ").append(Html.esc(name)).append("</h1><p class=\"note\">")
                .append(guided ? "Guided: each run planned its compositions from the map of the runs before it."
                        : "Random compositions (not guided); the same map is kept, for comparison.")
                .append(" Coverage counts sequences of 1 to 3 abstract state transitions (leader, ISR, controller, fencing)"
                        + " seen by polling the cluster's metadata. Map: ").append(Html.esc(mapFile.toString())).append("</p>");
        b.append(chart(rows));
        b.append("<table><tr><th>run</th><th>compositions</th><th>sequences known</th><th>new</th><th>new, for example</th><th>report</th></tr>\n");
        int i = 0;
        for (Row r : rows) {
            i++;
            String rel = r.runDir() == null ? null
                    : page.relativize(r.runDir().toAbsolutePath().normalize().resolve("report.html")).toString().replace('\\', '/');
            b.append("<tr><td class=\"num\">").append(i).append("</td><td class=\"num\">").append(r.compositions())
                    .append("</td><td class=\"num\">").append(r.total() < 0 ? "" : Integer.toString(r.total()))
                    .append("</td><td class=\"num\">").append(r.added()).append("</td><td>")
                    .append(Html.esc(String.join("; ", r.examples().subList(0, Math.min(3, r.examples().size())))))
                    .append("</td><td>").append(rel == null ? "" : "<a href=\"" + Html.esc(Html.href(rel)) + "\">report</a>")
                    .append("</td></tr>\n");
        }
        b.append("</table>");
        HtmlReport.writeAtomically(campaignDir.resolve(FILE), Html.page("Coverage of " + name, b.toString()));
    }

    /** Sequences known after each run, as a step line. */
    static String chart(List<Row> rows) {
        List<Row> known = rows.stream().filter(r -> r.total() >= 0).toList();
        if (known.isEmpty()) return "";
        int max = Math.max(1, known.stream().mapToInt(Row::total).max().orElse(1));
        int w = 480, h = 160, pad = 30;
        double dx = known.size() == 1 ? 0 : (w - 2.0 * pad) / (known.size() - 1);
        StringBuilder path = new StringBuilder();
        for (int i = 0; i < known.size(); i++) {
            double x = pad + i * dx, y = h - pad - (h - 2.0 * pad) * known.get(i).total() / max;
            path.append(i == 0 ? "M" : " L").append(String.format(Locale.ROOT, "%.1f %.1f", x, y));
        }
        return "<svg width=\"" + w + "\" height=\"" + h + "\" role=\"img\" aria-label=\"sequences known after each run\">"
                + "<line x1=\"" + pad + "\" y1=\"" + (h - pad) + "\" x2=\"" + (w - pad) + "\" y2=\"" + (h - pad) + "\" stroke=\"#999\"/>"
                + "<path d=\"" + path + "\" fill=\"none\" stroke=\"#2A9D8F\" stroke-width=\"2\"/>"
                + "<text x=\"" + pad + "\" y=\"" + (pad - 8) + "\" font-size=\"11\">" + max + " sequences</text>"
                + "<text x=\"" + (w - pad) + "\" y=\"" + (h - 8) + "\" font-size=\"11\" text-anchor=\"end\">run " + known.size() + "</text></svg>";
    }
}
