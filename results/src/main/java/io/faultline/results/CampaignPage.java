package io.faultline.results;

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
 * Writes a campaign's index.html and campaign.json. The page answers "which acks / min.isr / unclean settings lose
 * data under which faults": a grid (configuration without the pivot key × pivot value, each cell the data-loss
 * count and verdict) and the full matrix (one row per run: configuration, verdict, key anomaly counts,
 * availability, throughput, link to the run's report).
 */
public final class CampaignPage {

    /** Always shown as columns, in this order; any other category with a non-zero count is added after them. */
    public static final List<String> KEY_CATEGORIES =
            List.of("lost-write", "inconsistent-offsets", "duplicate", "unseen");
    /** The categories that mean acknowledged data was lost or rewritten. */
    static final List<String> DATA_LOSS = List.of("lost-write", "inconsistent-offsets");

    private CampaignPage() {
    }

    public static void write(CampaignInput input, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path page = dir.toAbsolutePath().normalize();
        List<String> configKeys = configKeys(input.runs());
        List<String> categories = categories(input.runs());

        StringBuilder b = new StringBuilder();
        b.append("<h1>Campaign ").append(Html.esc(input.name())).append("</h1><p class=\"note\">started ")
                .append(Html.esc(input.createdAt())).append(", ").append(input.runs().size() - input.missing())
                .append(" runs</p>");
        if (input.missing() > 0) {
            // a merged campaign with a shard absent: say so first, and keep the missing points as rows below
            b.append("<div class=\"banner v-invalid\" id=\"missing\">").append(input.missing()).append(" of ")
                    .append(input.runs().size()).append(" points of the matrix missing: no shard reported them</div>");
        }
        if (java.nio.file.Files.isRegularFile(dir.resolve(CoveragePage.FILE))) {
            b.append("<p><a href=\"").append(CoveragePage.FILE).append("\">State coverage, run by run</a></p>");
        }
        b.append(grid(input, page));
        b.append("<h2>All runs</h2><table id=\"matrix\"><tr>");
        configKeys.forEach(k -> b.append("<th>").append(Html.esc(k)).append("</th>"));
        b.append("<th>verdict</th>");
        categories.forEach(c -> b.append("<th>").append(Html.esc(c)).append("</th>"));
        b.append("<th>availability</th><th>availability during faults</th><th>ok ops/s</th><th>report</th></tr>\n");
        for (CampaignInput.Run r : input.runs()) {
            b.append("<tr>");
            configKeys.forEach(k -> b.append("<td>").append(Html.esc(r.config().getOrDefault(k, ""))).append("</td>"));
            b.append("<td><span class=\"verdict ").append(Html.verdictClass(r.verdict())).append("\">")
                    .append(Html.esc(r.verdict().toUpperCase(Locale.ROOT))).append("</span></td>");
            for (String c : categories) {
                long n = r.count(c);
                b.append("<td class=\"num").append(n == 0 ? " zero" : "").append("\">").append(n).append("</td>");
            }
            b.append("<td class=\"num\">").append(Html.percent(r.availability())).append("</td><td class=\"num\">")
                    .append(Html.percent(r.availabilityDuringFaults())).append("</td><td class=\"num\">")
                    .append(Html.number(r.okOpsPerSecond())).append("</td><td>")
                    .append(reportLink(page, r, "report")).append("</td></tr>\n");
        }
        b.append("</table>");
        HtmlReport.writeAtomically(dir.resolve("index.html"), Html.page("Campaign " + input.name(), b.toString()));
        Json.write(dir.resolve("campaign.json"), json(input, page));
    }

    /** Rows: configuration minus the pivot key; columns: pivot values; cell: data-loss count, verdict colour. */
    private static String grid(CampaignInput input, Path page) {
        String pivot = input.pivotKey();
        Set<String> columns = new LinkedHashSet<>();
        Map<Map<String, String>, Map<String, List<CampaignInput.Run>>> rows = new LinkedHashMap<>();
        for (CampaignInput.Run r : input.runs()) {
            String col = r.config().get(pivot);
            if (col == null) {
                continue;
            }
            columns.add(col);
            Map<String, String> rowKey = new LinkedHashMap<>(r.config());
            rowKey.remove(pivot);
            rows.computeIfAbsent(rowKey, k -> new LinkedHashMap<>()).computeIfAbsent(col, k -> new ArrayList<>())
                    .add(r);
        }
        if (columns.isEmpty()) {
            return "";
        }
        StringBuilder b = new StringBuilder("<h2>Data loss by configuration and ").append(Html.esc(pivot))
                .append("</h2><p class=\"note\">Each cell: lost-write + inconsistent-offsets over its runs; colour is "
                        + "the worst verdict. Links go to the runs' reports.</p><table id=\"grid\"><tr><th>configuration</th>");
        columns.forEach(c -> b.append("<th>").append(Html.esc(c)).append("</th>"));
        b.append("</tr>\n");
        rows.forEach((config, cells) -> {
            b.append("<tr><th>").append(Html.esc(config.isEmpty() ? "(default)" : describe(config))).append("</th>");
            for (String col : columns) {
                List<CampaignInput.Run> runs = cells.getOrDefault(col, List.of());
                if (runs.isEmpty()) {
                    b.append("<td></td>");
                    continue;
                }
                long loss = runs.stream().mapToLong(r -> DATA_LOSS.stream().mapToLong(r::count).sum()).sum();
                String worst = worst(runs);
                b.append("<td class=\"num\"><span class=\"verdict ").append(Html.verdictClass(worst)).append("\">")
                        .append(loss).append("</span>");
                for (CampaignInput.Run r : runs) {
                    b.append(' ').append(reportLink(page, r, "run"));
                }
                b.append("</td>");
            }
            b.append("</tr>\n");
        });
        return b.append("</table>").toString();
    }

    private static String worst(List<CampaignInput.Run> runs) {
        List<String> order = List.of("invalid", "unknown", "incomplete", "running", "valid");
        return runs.stream().map(r -> r.verdict().toLowerCase(Locale.ROOT))
                .min((a, c) -> Integer.compare(rank(order, a), rank(order, c))).orElse("unknown");
    }

    private static int rank(List<String> order, String v) {
        int i = order.indexOf(v);
        return i < 0 ? 1 : i;
    }

    private static String describe(Map<String, String> config) {
        List<String> parts = new ArrayList<>();
        config.forEach((k, v) -> parts.add(k + "=" + v));
        return String.join(" ", parts);
    }

    private static String relativeReport(Path page, CampaignInput.Run r) {
        if (r.runDir() == null) {
            return null;
        }
        Path report = r.runDir().toAbsolutePath().normalize().resolve("report.html");
        return page.relativize(report).toString().replace('\\', '/');
    }

    private static String reportLink(Path page, CampaignInput.Run r, String text) {
        String rel = relativeReport(page, r);
        return rel == null ? "" : "<a href=\"" + Html.esc(Html.href(rel)) + "\">" + Html.esc(text) + "</a>";
    }

    private static List<String> configKeys(List<CampaignInput.Run> runs) {
        Set<String> keys = new LinkedHashSet<>();
        runs.forEach(r -> keys.addAll(r.config().keySet()));
        return new ArrayList<>(keys);
    }

    private static List<String> categories(List<CampaignInput.Run> runs) {
        Set<String> out = new LinkedHashSet<>(KEY_CATEGORIES);
        runs.forEach(r -> r.anomalyCounts().forEach((c, n) -> {
            if (n != null && n > 0) {
                out.add(c);
            }
        }));
        return new ArrayList<>(out);
    }

    private static Map<String, Object> json(CampaignInput input, Path page) {
        List<Map<String, Object>> runs = new ArrayList<>();
        for (CampaignInput.Run r : input.runs()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("config", r.config());
            m.put("verdict", r.verdict());
            m.put("anomalyCounts", r.anomalyCounts());
            m.put("availability", r.availability());
            m.put("availabilityDuringFaults", r.availabilityDuringFaults());
            m.put("okOpsPerSecond", r.okOpsPerSecond());
            m.put("report", relativeReport(page, r));
            if (r.point() != null) {
                m.put("point", r.point());
            }
            runs.add(m);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", input.name());
        out.put("createdAt", input.createdAt().toString());
        out.put("pivotKey", input.pivotKey());
        out.put("runs", runs);
        input.details().forEach(out::putIfAbsent);
        return out;
    }
}
