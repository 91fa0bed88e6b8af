package io.faultline.results;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * trend.html over every stored campaign of one name (store/campaigns/&lt;name&gt;/*&#47;campaign.json), oldest
 * first: the verdict of each configuration in each campaign (a night, when run nightly), the key anomaly counts,
 * and availability and throughput over time. Built only from the campaign.json files, so it can be redrawn at any
 * time; a file that cannot be read is listed, not fatal.
 */
public final class TrendPage {
    /** One campaign as read back from its campaign.json. */
    record Campaign(Path dir, Instant createdAt, List<Row> runs) {}

    /** One run of a campaign: its configuration (as text), verdict, counts and figures, report link if any. */
    record Row(String config, String verdict, Map<String, Long> anomalyCounts, double availability,
               double okOpsPerSecond, String report) {}

    private TrendPage() {}

    /** Reads every campaign.json under {@code nameDir} and writes nameDir/trend.html; returns its path. */
    public static Path write(Path nameDir) throws IOException {
        List<String> unreadable = new ArrayList<>();
        List<Campaign> campaigns = read(nameDir, unreadable);
        String name = nameDir.getFileName().toString();
        Path out = nameDir.resolve("trend.html");
        HtmlReport.writeAtomically(out, Html.page("Trend " + name, body(name, campaigns, unreadable)));
        return out;
    }

    static List<Campaign> read(Path nameDir, List<String> unreadable) throws IOException {
        List<Campaign> out = new ArrayList<>();
        if (!Files.isDirectory(nameDir)) return out;
        try (Stream<Path> dirs = Files.list(nameDir)) {
            for (Path dir : dirs.filter(Files::isDirectory).sorted().toList()) {
                Path file = dir.resolve("campaign.json");
                if (!Files.isRegularFile(file)) continue;
                try {
                    out.add(parse(dir, Json.MAPPER.readTree(file.toFile())));
                } catch (IOException | RuntimeException e) {
                    unreadable.add(nameDir.relativize(file) + ": " + e.getMessage());
                }
            }
        }
        out.sort(Comparator.comparing(Campaign::createdAt));
        return out;
    }

    private static Campaign parse(Path dir, JsonNode root) {
        Instant at = Instant.parse(root.path("createdAt").asText());
        List<Row> rows = new ArrayList<>();
        for (JsonNode r : root.path("runs")) {
            Map<String, String> config = new TreeMap<>();
            r.path("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
            List<String> parts = new ArrayList<>();
            config.forEach((k, v) -> parts.add(k + "=" + v));
            Map<String, Long> counts = new LinkedHashMap<>();
            r.path("anomalyCounts").fields().forEachRemaining(e -> counts.put(e.getKey(), e.getValue().asLong()));
            String report = r.path("report").isTextual() ? r.path("report").asText() : null;
            rows.add(new Row(String.join(" ", parts), r.path("verdict").asText("unknown").toLowerCase(Locale.ROOT),
                    counts, number(r.path("availability")), number(r.path("okOpsPerSecond")), report));
        }
        return new Campaign(dir, at, rows);
    }

    /** Numbers may be stored as "NaN" strings (Jackson's default for non-finite values). */
    private static double number(JsonNode n) {
        if (n.isNumber()) return n.asDouble();
        try {
            return Double.parseDouble(n.asText());
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static String body(String name, List<Campaign> campaigns, List<String> unreadable) {
        StringBuilder b = new StringBuilder("<h1>Trend of campaign ").append(Html.esc(name)).append("</h1><p class=\"note\">")
                .append(campaigns.size()).append(" campaigns, oldest first. Each cell links to the run's report.</p>");
        if (!unreadable.isEmpty()) {
            b.append("<p class=\"note\">Left out, unreadable: ").append(Html.esc(String.join("; ", unreadable))).append("</p>");
        }
        if (campaigns.isEmpty()) return b.append("<p>No campaign of this name is stored yet.</p>").toString();
        b.append(verdicts(campaigns)).append(counts(campaigns)).append(figures(campaigns));
        return b.toString();
    }

    private static String label(Campaign c) {
        return c.createdAt().toString().substring(0, 16).replace('T', ' ');
    }

    /** Rows: configurations; columns: campaigns; cell: verdict, data-loss count, link. */
    private static String verdicts(List<Campaign> campaigns) {
        Set<String> configs = new LinkedHashSet<>();
        campaigns.forEach(c -> c.runs().forEach(r -> configs.add(r.config())));
        StringBuilder b = new StringBuilder("<h2>Verdict by configuration</h2><table id=\"verdicts\"><tr><th>configuration</th>");
        campaigns.forEach(c -> b.append("<th>").append(Html.esc(label(c))).append("</th>"));
        b.append("</tr>\n");
        for (String config : configs) {
            b.append("<tr><th>").append(Html.esc(config.isEmpty() ? "(default)" : config)).append("</th>");
            for (Campaign c : campaigns) {
                List<Row> rows = c.runs().stream().filter(r -> r.config().equals(config)).toList();
                if (rows.isEmpty()) {
                    b.append("<td></td>");
                    continue;
                }
                b.append("<td>");
                for (Row r : rows) {
                    long loss = CampaignPage.DATA_LOSS.stream().mapToLong(k -> r.anomalyCounts().getOrDefault(k, 0L)).sum();
                    String text = r.verdict().toUpperCase(Locale.ROOT) + (loss > 0 ? " " + loss : "");
                    String badge = "<span class=\"verdict " + Html.verdictClass(r.verdict()) + "\">" + Html.esc(text) + "</span>";
                    b.append(r.report() == null ? badge : "<a href=\"" + Html.esc(Html.href(c.dir().getFileName() + "/" + r.report()))
                            + "\">" + badge + "</a>").append(' ');
                }
                b.append("</td>");
            }
            b.append("</tr>\n");
        }
        return b.append("</table>").toString();
    }

    /** Per campaign: runs, invalid runs, and the key anomaly categories summed over its runs. */
    private static String counts(List<Campaign> campaigns) {
        StringBuilder b = new StringBuilder("<h2>Anomalies per campaign</h2><table id=\"counts\"><tr><th>campaign</th>"
                + "<th>runs</th><th>invalid</th>");
        CampaignPage.KEY_CATEGORIES.forEach(k -> b.append("<th>").append(Html.esc(k)).append("</th>"));
        b.append("</tr>\n");
        for (Campaign c : campaigns) {
            long invalid = c.runs().stream().filter(r -> r.verdict().equals("invalid")).count();
            b.append("<tr><td>").append(Html.esc(label(c))).append("</td><td class=\"num\">").append(c.runs().size())
                    .append("</td><td class=\"num").append(invalid == 0 ? " zero" : "").append("\">").append(invalid).append("</td>");
            for (String k : CampaignPage.KEY_CATEGORIES) {
                long n = c.runs().stream().mapToLong(r -> r.anomalyCounts().getOrDefault(k, 0L)).sum();
                b.append("<td class=\"num").append(n == 0 ? " zero" : "").append("\">").append(n).append("</td>");
            }
            b.append("</tr>\n");
        }
        return b.append("</table>").toString();
    }

    /** Mean availability and ok ops/s per campaign, as a table and two small line charts. */
    private static String figures(List<Campaign> campaigns) {
        List<Double> availability = new ArrayList<>(), throughput = new ArrayList<>();
        StringBuilder t = new StringBuilder("<table id=\"figures\"><tr><th>campaign</th><th>mean availability</th>"
                + "<th>mean ok ops/s</th></tr>\n");
        for (Campaign c : campaigns) {
            double a = mean(c.runs().stream().mapToDouble(Row::availability).toArray());
            double o = mean(c.runs().stream().mapToDouble(Row::okOpsPerSecond).toArray());
            availability.add(a * 100);
            throughput.add(o);
            t.append("<tr><td>").append(Html.esc(label(c))).append("</td><td class=\"num\">").append(Html.percent(a))
                    .append("</td><td class=\"num\">").append(Html.number(o)).append("</td></tr>\n");
        }
        t.append("</table>");
        return "<h2>Availability and throughput over time</h2>" + line("availability %", availability, 100)
                + line("ok ops/s", throughput, Double.NaN) + t;
    }

    private static double mean(double[] xs) {
        double sum = 0;
        int n = 0;
        for (double x : xs) {
            if (!Double.isNaN(x)) {
                sum += x;
                n++;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    /** A small inline SVG line over the campaigns, one point each (NaN points are skipped). */
    static String line(String title, List<Double> ys, double fixedMax) {
        int w = 600, h = 140, pad = 30;
        double max = fixedMax;
        if (Double.isNaN(max)) {
            max = ys.stream().filter(y -> !Double.isNaN(y)).mapToDouble(Double::doubleValue).max().orElse(1);
            if (max <= 0) max = 1;
        }
        StringBuilder pts = new StringBuilder();
        StringBuilder dots = new StringBuilder();
        for (int i = 0; i < ys.size(); i++) {
            double y = ys.get(i);
            if (Double.isNaN(y)) continue;
            double x = pad + (ys.size() == 1 ? (w - 2 * pad) / 2.0 : i * (w - 2.0 * pad) / (ys.size() - 1));
            double py = h - pad - Math.max(0, Math.min(1, y / max)) * (h - 2 * pad);
            pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, py));
            dots.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#264653\"><title>%s</title></circle>",
                    x, py, Html.esc(Html.number(y))));
        }
        return String.format(Locale.ROOT, "<figure><figcaption>%s (max %s)</figcaption><svg class=\"trend\" width=\"%d\" "
                        + "height=\"%d\" viewBox=\"0 0 %d %d\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>"
                        + "<polyline fill=\"none\" stroke=\"#264653\" stroke-width=\"2\" points=\"%s\"/>%s</svg></figure>",
                Html.esc(title), Html.esc(Html.number(max)), w, h, w, h, pad, h - pad, w - pad, h - pad, pts.toString().trim(), dots);
    }
}
