package io.faultline.results;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The replication state changes each node reported in its own log: who led a partition in which epoch, who
 * followed, ISR changes, truncations (and why: high watermark or a diverging epoch), fencing and unclean
 * elections. Read from the node logs a run collects (nodes/&lt;n&gt;/console.log and logs/*.log), for broker-impl's
 * and Apache Kafka's wording alike; lines that match nothing are ignored, so a log of another version loses only
 * the events it words differently. Never throws: an unreadable file gives no events.
 */
public final class StateEvents {
    /** What changed; DOWN and UP come from the nemesis's own record of kills, power losses and pauses. */
    public enum Kind { LEADER, FOLLOWER, ISR, TRUNCATE, FENCED, UNFENCED, UNCLEAN_ELECTION, DOWN, UP }

    /**
     * One state change.
     *
     * @param at        when the node logged it
     * @param node      the node it is about (the logging node, or the broker a controller line names)
     * @param kind      what changed
     * @param partition the topic-partition, null for node-wide events
     * @param epoch     the leader epoch, when the line says
     * @param from      a truncation's old log end, or a new leader's epoch start offset; null when unknown
     * @param to        a truncation's new log end; null otherwise
     * @param detail    the rest in a few words (the ISR, the leader followed, the cause of a truncation)
     */
    public record Event(Instant at, String node, Kind kind, String partition, Integer epoch, Long from, Long to,
                        String detail) {}

    /**
     * A line pattern and the event it makes. {@code anchor} is a piece of text every match contains (in any case when
     * {@code anyCase}): most lines contain no rule's anchor, and a substring test costs a fraction of a regex search
     * that tries every start position (it was two thirds of a report's CPU on a 50,000-line run).
     */
    private record Rule(String anchor, boolean anyCase, Pattern pattern, Function<Matcher, Event> make) {
        boolean mayMatch(String line, String lowerLine) {
            return anyCase ? lowerLine.contains(anchor) : line.contains(anchor);
        }
    }

    private static final int MAX_EVENTS = 20_000;

    private final List<Rule> rules = new ArrayList<>();
    private String node;
    private Instant at;

    private StateEvents() {
        // --- broker-impl's wording ---
        rule("leader in epoch", "(\\S+): leader in epoch (\\d+) from offset (\\d+) \\(ISR \\[?([\\d, ]*)\\]?\\)",
                m -> ev(Kind.LEADER, m.group(1), i(m.group(2)), l(m.group(3)), null, "ISR [" + m.group(4) + "]"));
        rule("follower of ", "(\\S+): follower of (-?\\d+) in epoch (\\d+)",
                m -> ev(Kind.FOLLOWER, m.group(1), i(m.group(3)), null, null, "leader " + m.group(2)));
        rule("truncating to our high watermark", "(\\S+): follower of \\S+ in epoch (\\d+); truncating to our high watermark (\\d+)",
                m -> ev(Kind.TRUNCATE, m.group(1), i(m.group(2)), null, l(m.group(3)), "high watermark"));
        rule("diverging epoch", "(\\S+): diverging epoch (\\d+) ending at (\\d+) from leader (\\d+); truncating from (\\d+) to (\\d+)",
                m -> ev(Kind.TRUNCATE, m.group(1), i(m.group(2)), l(m.group(5)), l(m.group(6)),
                        "diverging epoch " + m.group(2) + " (leader " + m.group(4) + " ends it at " + m.group(3) + ")"));
        rule("Truncating ", "Truncating (\\S+) from (\\d+) to (\\d+)",
                m -> ev(Kind.TRUNCATE, m.group(1), null, l(m.group(2)), l(m.group(3)), null));
        rule("fully and starting at", "Truncating (\\S+) fully and starting at (\\d+)",
                m -> ev(Kind.TRUNCATE, m.group(1), null, null, l(m.group(2)), "whole log"));
        rule("ISR is now", "(\\S+): ISR is now \\[?([\\d, ]*)\\]? \\(partition epoch",
                m -> ev(Kind.ISR, m.group(1), null, null, null, "ISR [" + m.group(2) + "]"));
        rule(" is now ", "Broker (\\d+) is now (fenced|unfenced)", m -> new Event(at, "n" + m.group(1),
                m.group(2).equals("fenced") ? Kind.FENCED : Kind.UNFENCED, null, null, null, null, "by the controller"));
        // --- Apache Kafka's wording (state-change and partition loggers) ---
        rule("starts at leader epoch", "Leader (\\S+) with topic id \\S+ starts at leader epoch (\\d+) from offset (\\d+).*?ISR \\[([\\d,]*)\\]",
                m -> ev(Kind.LEADER, m.group(1), i(m.group(2)), l(m.group(3)), null, "ISR [" + m.group(4) + "]"));
        rule("starts at leader epoch", "Follower (\\S+) starts at leader epoch (\\d+) from offset (\\d+).*?Current leader is (-?\\d+)",
                m -> ev(Kind.FOLLOWER, m.group(1), i(m.group(2)), null, null, "leader " + m.group(4)));
        rule("ISR updated to", "\\[Partition (\\S+) broker=\\d+\\] ISR updated to ([\\d,]*)",
                m -> ev(Kind.ISR, m.group(1), null, null, null, "ISR [" + m.group(2) + "]"));
        rule("with TruncationState", "Truncating partition (\\S+) with TruncationState\\(offset=(\\d+), completed=\\w+\\) due to (.*)",
                m -> ev(Kind.TRUNCATE, m.group(1), null, null, l(m.group(2)),
                        m.group(3).contains("high watermark") ? "high watermark" : "diverging epoch"));
        rule("to local high watermark", "Truncating partition (\\S+) to local high watermark (\\d+)",
                m -> ev(Kind.TRUNCATE, m.group(1), null, null, l(m.group(2)), "high watermark"));
        rule("Truncating to", "\\[(?:UnifiedLog|Log) partition=(\\S+), dir=[^\\]]*\\] Truncating to (?:offset )?(\\d++)(?! has no effect)",
                m -> ev(Kind.TRUNCATE, m.group(1), null, null, l(m.group(2)), null));
        rule("unclean", "(?i)partition (\\S+?)[,:]? .*unclean (?:leader )?election",
                m -> ev(Kind.UNCLEAN_ELECTION, m.group(1), null, null, null, "unclean election"));
        rule("unclean", "(?i)unclean (?:leader )?election .*?(?:partition|for) (\\S+?-\\d+)\\b",
                m -> ev(Kind.UNCLEAN_ELECTION, m.group(1), null, null, null, "unclean election"));
        // KRaft: an ISR-only change reaches the leader as a skipped become-leader with the new registration
        rule("Skipped the become-leader", "Skipped the become-leader state change for (\\S+) with .*?isr=\\[([\\d, ]*)\\]",
                m -> ev(Kind.ISR, m.group(1), null, null, null, "ISR [" + m.group(2) + "]"));
        rule("BrokerRegistrationChangeRecord", "Replayed BrokerRegistrationChangeRecord .*?brokerId=(\\d+), .*?fenced=(-?1)\\b",
                m -> new Event(at, "n" + m.group(1), m.group(2).equals("1") ? Kind.FENCED : Kind.UNFENCED, null, null,
                        null, null, "by the controller"));
        rule("Fencing broker", "Fencing broker (\\d+)", m -> new Event(at, "n" + m.group(1), Kind.FENCED, null, null, null, null,
                "by the controller"));
    }

    /** A rule whose matches all contain {@code anchor} (in any case when the regex starts with (?i)). */
    private void rule(String anchor, String regex, Function<Matcher, Event> make) {
        boolean anyCase = regex.startsWith("(?i)");
        rules.add(new Rule(anyCase ? anchor.toLowerCase(java.util.Locale.ROOT) : anchor, anyCase, Pattern.compile(regex), make));
    }

    private Event ev(Kind kind, String partition, Integer epoch, Long from, Long to, String detail) {
        return new Event(at, node, kind, partition, epoch, from, to, detail);
    }

    private static Integer i(String s) {
        try {
            return Integer.valueOf(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Long l(String s) {
        try {
            return Long.valueOf(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The events one log line states (most lines: none). */
    static List<Event> parse(String node, Instant at, String line) {
        return new StateEvents().match(node, at, line);
    }

    private List<Event> match(String node, Instant at, String line) {
        this.node = node;
        this.at = at;
        List<Event> out = new ArrayList<>(2);
        String lower = line.toLowerCase(java.util.Locale.ROOT);
        for (Rule r : rules) {
            if (!r.mayMatch(line, lower)) continue;
            Matcher m = r.pattern().matcher(line);
            if (m.find()) {
                Event e = r.make().apply(m);
                if (e != null) out.add(e);
            }
        }
        return out;
    }

    /**
     * Every event in the run's node logs, in time order; a truncation logged twice (the cause, then the log's own
     * line) is one event that keeps the cause. Only partitions for which {@code partitionFilter} holds are kept
     * (node-wide events always are).
     */
    public static List<Event> read(Path nodesDir, ZoneId logZone, java.util.function.Predicate<String> partitionFilter) {
        List<Event> out = new ArrayList<>();
        if (nodesDir == null || !Files.isDirectory(nodesDir)) return out;
        LogExcerpts timestamps = new LogExcerpts(nodesDir, logZone);
        StateEvents parser = new StateEvents();
        for (Path nodeDir : LogExcerpts.list(nodesDir)) {
            if (!Files.isDirectory(nodeDir)) continue;
            String node = nodeDir.getFileName().toString();
            for (Path file : LogExcerpts.logFiles(nodeDir)) {
                scan(parser, timestamps, node, file, partitionFilter, out);
                if (out.size() >= MAX_EVENTS) break;
            }
        }
        out.sort(Comparator.comparing(Event::at));
        return merged(out);
    }

    private static void scan(StateEvents parser, LogExcerpts timestamps, String node, Path file,
                             java.util.function.Predicate<String> keep, List<Event> out) {
        var decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
        try (BufferedReader r = new BufferedReader(new java.io.InputStreamReader(Files.newInputStream(file), decoder))) {
            String text;
            while ((text = r.readLine()) != null && out.size() < MAX_EVENTS) {
                Instant ts = timestamps.timestampOf(text);
                if (ts == null || text.length() > 4000) continue;
                for (Event e : parser.match(node, ts, text)) {
                    if (e.partition() == null || keep.test(e.partition())) out.add(e);
                }
            }
        } catch (IOException | RuntimeException e) {
            // no events from this file; the report is still drawn
        }
    }

    /**
     * What the nemesis did to whole nodes, as its completed ops in the history word it ("killed [n3]", "stopped [n3]", "started
     * [n3]", "power lost on [n1, n2] ...", "powered on [n1]", "paused [n2]", "resumed [n2]"): one DOWN or UP event
     * per node named, at {@code origin} plus the op's history time.
     */
    public static List<Event> nodeFaults(List<io.faultline.checker.history.Op> history, Instant origin) {
        List<Event> out = new ArrayList<>();
        for (io.faultline.checker.history.Op op : history) {
            if (op.process() != io.faultline.checker.history.Op.NEMESIS
                    || op.type() == io.faultline.checker.history.OpType.INVOKE
                    || !(op.value() instanceof io.faultline.checker.history.OpValue.Text t)) continue;
            Matcher m = NODE_FAULT.matcher(t.text());
            if (!m.find()) continue;
            String what = m.group(1);
            boolean down = what.equals("killed") || what.equals("stopped") || what.equals("power lost on") || what.equals("paused");
            String detail = switch (what) {
                case "killed" -> "killed";
                case "stopped" -> "stopped cleanly";
                case "power lost on" -> "power lost";
                case "paused" -> "paused";
                case "started" -> "restarted";
                case "powered on" -> "powered on";
                default -> "resumed";
            };
            for (String node : m.group(2).split(",")) {
                if (node.isBlank()) continue;
                out.add(new Event(origin.plusNanos(op.time()), node.strip(), down ? Kind.DOWN : Kind.UP, null, null,
                        null, null, detail));
            }
        }
        return out;
    }

    private static final Pattern NODE_FAULT =
            Pattern.compile("^(killed|stopped|started|power lost on|powered on|paused|resumed) \\[([^\\]]*)]");

    /** The node logs' events and the nemesis's node faults in one time-ordered list (report and compare page alike). */
    public static List<Event> withNodeFaults(List<Event> fromLogs, List<io.faultline.checker.history.Op> history,
                                             Instant origin) {
        List<Event> out = new ArrayList<>(fromLogs);
        out.addAll(nodeFaults(history, origin));
        out.sort(Comparator.comparing(Event::at));
        return out;
    }

    /** Folds a bare truncation line into the explained one the same node logged for the same cut just before. */
    static List<Event> merged(List<Event> sorted) {
        List<Event> out = new ArrayList<>(sorted.size());
        java.util.Set<Event> seen = new java.util.HashSet<>();
        for (Event e : sorted) {
            if (!seen.add(e)) continue; // the same line in two files (console and a log file)
            Event prev = out.isEmpty() ? null : findRecentTruncation(out, e);
            if (prev != null) {
                int at = out.lastIndexOf(prev);
                out.set(at, new Event(prev.at(), prev.node(), prev.kind(), prev.partition(),
                        prev.epoch() != null ? prev.epoch() : e.epoch(), prev.from() != null ? prev.from() : e.from(),
                        prev.to(), prev.detail() != null ? prev.detail() : e.detail()));
                continue;
            }
            out.add(e);
        }
        return out;
    }

    private static Event findRecentTruncation(List<Event> out, Event e) {
        if (e.kind() != Kind.TRUNCATE) return null;
        for (int i = out.size() - 1; i >= 0 && i >= out.size() - 8; i--) {
            Event p = out.get(i);
            if (Duration.between(p.at(), e.at()).toMillis() > 1000) return null;
            if (p.kind() == Kind.TRUNCATE && p.node().equals(e.node()) && p.partition().equals(e.partition())
                    && java.util.Objects.equals(p.to(), e.to())) return p;
        }
        return null;
    }


}
