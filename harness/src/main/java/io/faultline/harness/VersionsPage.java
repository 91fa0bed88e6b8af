package io.faultline.harness;

import io.faultline.docker.sut.KafkaVersion;

import java.nio.file.Path;
import java.util.List;

/** The page `versions` writes: one row per release, one cell per seed (verdict, anomalies, link to the report). */
final class VersionsPage {
    private VersionsPage() {}

    static String html(String what, List<KafkaVersion> releases, List<VersionsCommand.Cell> cells, Path pageDir) {
        var sb = new StringBuilder("<!doctype html><meta charset=\"utf-8\"><title>Faultline: ").append(esc(what))
                .append(" across Apache Kafka releases</title>\n<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;"
                        + "padding:4px 8px}.valid{background:#dfd}.invalid{background:#fdd}.unknown{background:#ffd}</style>\n");
        sb.append("<h1>").append(esc(what)).append(" across Apache Kafka releases</h1>\n");
        String fixed = VersionsCommand.firstPassing(releases, cells).map(v -> "First release where it stops failing: <b>" + esc(v) + "</b>")
                .orElse(cells.stream().anyMatch(c -> c.verdict() == io.faultline.checker.Verdict.INVALID)
                        ? "It still fails on the newest release tried." : "No run failed.");
        sb.append("<p>").append(fixed).append("</p>\n<table><tr><th>release</th><th>left to the release's own defaults</th>"
                + "<th>runs</th></tr>\n");
        for (KafkaVersion v : releases) {
            sb.append("<tr><td>").append(esc(v.text())).append("</td><td>").append(esc(ownDefaults(v, cells))).append("</td><td>");
            for (VersionsCommand.Cell c : cells) {
                if (!c.version().equals(v.text())) continue;
                String verdict = c.verdict().name().toLowerCase();
                String link = pageDir.toAbsolutePath().relativize(c.runDir().toAbsolutePath()).resolve("report.html").toString();
                sb.append("<span class=\"").append(verdict).append("\">seed ").append(c.seed()).append(": <a href=\"")
                        .append(esc(link)).append("\">").append(verdict).append("</a>")
                        .append(c.anomalies().isEmpty() ? "" : " (" + esc(String.join(", ", c.anomalies())) + ")").append("</span><br>");
            }
            sb.append("</td></tr>\n");
        }
        return sb.append("</table>\n").toString();
    }

    /**
     * The settings the release's runs did not state, with the release's own value (e.g. unclean elections on before
     * 0.11): a difference between rows that comes from the releases' defaults, not from the run's flags.
     */
    static String ownDefaults(KafkaVersion v, List<VersionsCommand.Cell> cells) {
        var seen = new java.util.TreeMap<String, String>();
        for (VersionsCommand.Cell c : cells) if (c.version().equals(v.text())) seen.putAll(c.systemDefaults());
        if (seen.isEmpty()) return "none: every setting stated";
        return seen.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(java.util.stream.Collectors.joining(", "));
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
