package io.faultline.results;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;

/**
 * Runs as a JUnit XML report (the Ant/Surefire schema CI servers read): one testsuite, one testcase per run. A
 * valid run passes; an invalid one is a {@code <failure>} whose text lists the anomalies found; an unknown run or
 * a harness error is an {@code <error>} with its caveats, since nothing was proven either way.
 */
public final class JunitXml {
    /** One run: its name, the configuration shown as the class, the verdict and what backs it. */
    public record Case(String name, String classname, double seconds, String verdict, List<String> anomalies,
                       List<String> caveats, String reportPath) {
        public Case {
            anomalies = List.copyOf(anomalies);
            caveats = List.copyOf(caveats);
            if (!List.of("valid", "invalid", "unknown").contains(verdict)) {
                throw new IllegalArgumentException("verdict must be valid, invalid or unknown, got " + verdict);
            }
        }
    }

    private JunitXml() {}

    public static String render(String suite, List<Case> cases) {
        long failures = cases.stream().filter(c -> c.verdict().equals("invalid")).count();
        long errors = cases.stream().filter(c -> c.verdict().equals("unknown")).count();
        double time = cases.stream().mapToDouble(Case::seconds).sum();
        StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        b.append("<testsuite name=\"").append(attr(suite)).append("\" tests=\"").append(cases.size())
                .append("\" failures=\"").append(failures).append("\" errors=\"").append(errors)
                .append("\" skipped=\"0\" time=\"").append(seconds(time)).append("\">\n");
        for (Case c : cases) {
            b.append("  <testcase name=\"").append(attr(c.name())).append("\" classname=\"").append(attr(c.classname()))
                    .append("\" time=\"").append(seconds(c.seconds())).append("\">\n");
            String details = details(c);
            switch (c.verdict()) {
                case "invalid" -> b.append("    <failure message=\"").append(attr("invalid: " + String.join(", ", c.anomalies())))
                        .append("\" type=\"invalid\">").append(text(details)).append("</failure>\n");
                case "unknown" -> b.append("    <error message=\"").append(attr("unknown: " + String.join("; ", c.caveats())))
                        .append("\" type=\"unknown\">").append(text(details)).append("</error>\n");
                default -> { }
            }
            b.append("    <system-out>").append(text("report: " + c.reportPath())).append("</system-out>\n");
            b.append("  </testcase>\n");
        }
        return b.append("</testsuite>\n").toString();
    }

    /** Writes the report atomically (a CI server never reads half a file). */
    public static void write(Path file, String suite, List<Case> cases) throws IOException {
        Path abs = file.toAbsolutePath();
        if (abs.getParent() != null) Files.createDirectories(abs.getParent());
        Path tmp = abs.resolveSibling(abs.getFileName() + ".tmp");
        Files.writeString(tmp, render(suite, cases));
        Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static String details(Case c) {
        StringBuilder b = new StringBuilder();
        if (!c.anomalies().isEmpty()) b.append("anomalies: ").append(String.join(", ", c.anomalies())).append('\n');
        if (!c.caveats().isEmpty()) b.append("caveats: ").append(String.join("; ", c.caveats())).append('\n');
        return b.append("report: ").append(c.reportPath()).toString();
    }

    private static String seconds(double s) {
        return String.format(Locale.ROOT, "%.3f", s);
    }

    /** XML 1.0 allows only these characters; anything else (control bytes from a log) becomes '?'. */
    private static String clean(String s) {
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> {
            boolean ok = cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF)
                    || (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
            b.appendCodePoint(ok ? cp : '?');
        });
        return b.toString();
    }

    private static String text(String s) {
        return clean(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String attr(String s) {
        return text(s).replace("\"", "&quot;").replace("\n", "&#10;");
    }
}
