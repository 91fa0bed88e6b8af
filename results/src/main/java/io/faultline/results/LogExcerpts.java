package io.faultline.results;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Finds node log lines near given moments: for each time window, a few lines per node from nodes/&lt;n&gt;/logs/*.log
 * and nodes/&lt;n&gt;/console.log. Kafka's log4j lines start with {@code [yyyy-MM-dd HH:mm:ss,SSS]}; lines without a
 * timestamp (stack traces) take the previous line's. Every file is read once, whatever the number of windows.
 * Unreadable files are skipped: excerpts are a help, never a reason for the report to fail.
 */
final class LogExcerpts {

    /** A time window to collect lines for, e.g. ±2 s around an anomaly's ops. */
    record Window(String id, Instant from, Instant to) {
    }

    /** One log line shown in the report. */
    record Line(String node, String file, long lineNumber, String text) {
    }

    static final int LINES_PER_NODE = 6;
    private static final int MAX_LINE_CHARS = 400;
    private static final DateTimeFormatter KAFKA_TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss,SSS");

    private final Path nodesDir;
    private final ZoneId logZone;

    /** {@code logZone}: the zone the nodes log in (containers log in UTC unless told otherwise). */
    LogExcerpts(Path nodesDir, ZoneId logZone) {
        this.nodesDir = nodesDir;
        this.logZone = logZone;
    }

    /** Window id → lines, grouped by node in node order; windows with no lines are absent. */
    Map<String, List<Line>> find(List<Window> windows) {
        Map<String, List<Line>> out = new LinkedHashMap<>();
        if (nodesDir == null || windows.isEmpty() || !Files.isDirectory(nodesDir)) {
            return out;
        }
        for (Path node : list(nodesDir)) {
            if (!Files.isDirectory(node)) {
                continue;
            }
            Map<String, List<Line>> perNode = new LinkedHashMap<>();
            for (Path file : logFiles(node)) {
                scan(node.getFileName().toString(), file, windows, perNode);
            }
            perNode.forEach((id, lines) -> out.computeIfAbsent(id, k -> new ArrayList<>()).addAll(lines));
        }
        return out;
    }

    /** A node folder's log files: logs/*.log, then console.log. */
    static List<Path> logFiles(Path node) {
        List<Path> files = new ArrayList<>();
        Path logs = node.resolve("logs");
        if (Files.isDirectory(logs)) {
            list(logs).stream().filter(p -> p.getFileName().toString().endsWith(".log") && Files.isRegularFile(p))
                    .forEach(files::add);
        }
        Path console = node.resolve("console.log");
        if (Files.isRegularFile(console)) {
            files.add(console);
        }
        return files;
    }

    private void scan(String node, Path file, List<Window> windows, Map<String, List<Line>> perNode) {
        var decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
        try (BufferedReader r = new BufferedReader(
                new java.io.InputStreamReader(Files.newInputStream(file), decoder))) {
            Instant current = null;
            long number = 0;
            String text;
            while ((text = r.readLine()) != null) {
                number++;
                Instant ts = timestampOf(text);
                if (ts != null) {
                    current = ts;
                }
                if (current == null) {
                    continue;
                }
                for (Window w : windows) {
                    if (current.isBefore(w.from()) || current.isAfter(w.to())) {
                        continue;
                    }
                    List<Line> kept = perNode.computeIfAbsent(w.id(), k -> new ArrayList<>());
                    offer(kept, new Line(node, nodesDir.relativize(file).toString(), number, clip(text)));
                }
            }
        } catch (IOException | RuntimeException e) {
            // skip the file; the rest of the report matters more
        }
    }

    /** Keeps the first few lines, but lets a WARN/ERROR line push out an ordinary one. */
    private static void offer(List<Line> kept, Line line) {
        if (kept.size() < LINES_PER_NODE) {
            kept.add(line);
            return;
        }
        if (!isSevere(line.text())) {
            return;
        }
        for (int i = 0; i < kept.size(); i++) {
            if (!isSevere(kept.get(i).text())) {
                kept.remove(i);
                kept.add(line);
                return;
            }
        }
    }

    static boolean isSevere(String text) {
        return text.contains(" WARN ") || text.contains(" ERROR ") || text.contains(" FATAL ");
    }

    /**
     * The time a log line starts with: Kafka's log4j {@code [yyyy-MM-dd HH:mm:ss,SSS]} or broker-impl's unbracketed
     * {@code yyyy-MM-dd HH:mm:ss,SSS [thread]}; null for any other line.
     */
    Instant timestampOf(String line) {
        int start;
        if (line.length() >= 25 && line.charAt(0) == '[' && line.charAt(24) == ']') {
            start = 1;
        } else if (line.length() >= 24 && Character.isDigit(line.charAt(0)) && line.charAt(10) == ' '
                && line.charAt(23) == ' ') {
            start = 0;
        } else {
            return null;
        }
        try {
            return LocalDateTime.parse(line.substring(start, start + 23), KAFKA_TS).atZone(logZone).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static String clip(String s) {
        return clip(s, MAX_LINE_CHARS);
    }

    /** A log line cut to at most {@code max} characters, marked when cut. */
    static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + " …";
    }

    /** A folder's entries, sorted; empty when it cannot be listed. */
    static List<Path> list(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
