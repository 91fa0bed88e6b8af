package io.faultline.results;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Notes added to a finished run's report.html after the fact, such as the result of shrinking it. Each note lives
 * between markers of its own, so adding it again replaces it instead of stacking copies.
 */
public final class ReportLinks {
    private static final String BEGIN = "<!-- faultline:shrink -->", END = "<!-- /faultline:shrink -->";

    private ReportLinks() {}

    /** Links the report to the minimal schedule found by shrinking this run. A missing report is left alone. */
    public static void addShrinkResult(Path runDir, Path scheduleFile, int fromFaults, int toFaults, boolean complete)
            throws IOException {
        Path report = runDir.resolve("report.html");
        if (!Files.isRegularFile(report)) return;
        Path abs = scheduleFile.toAbsolutePath().normalize();
        String href = runDir.toAbsolutePath().normalize().relativize(abs).toString().replace('\\', '/');
        String note = BEGIN + "<p class=\"note\" id=\"shrink\">Shrunk: " + fromFaults + " faults &rarr; " + toFaults
                + (complete ? " (1-minimal)" : " (budget spent before the search ended)") + ". Minimal schedule: <a href=\""
                + Html.esc(href) + "\">" + Html.esc(abs.getFileName().toString()) + "</a>; run it with <code>bin/faultline replay "
                + "--schedule " + Html.esc(abs.toString()) + "</code>.</p>" + END;
        String html = Files.readString(report);
        int b = html.indexOf(BEGIN), e = html.indexOf(END);
        if (b >= 0 && e > b) {
            html = html.substring(0, b) + note + html.substring(e + END.length());
        } else {
            int body = html.indexOf("<body>");
            int at = body < 0 ? 0 : body + "<body>".length();
            html = html.substring(0, at) + "\n" + note + html.substring(at);
        }
        Path tmp = report.resolveSibling("report.html.tmp");
        Files.writeString(tmp, html);
        Files.move(tmp, report, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
