package io.faultline.results;

import io.faultline.checker.Example;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The report's per-node state timeline: one lane per node with its role over time (leading a workload partition,
 * following, fenced), leader epoch changes, ISR changes, truncations, unclean elections, and the fault bands on
 * the same time axis; below it, every event in a table the anomalies link to. Built from {@link StateEvents}, so
 * it shows what the nodes themselves reported, for broker-impl and Apache Kafka alike. For each anomaly example it
 * also says, in plain words, which of these events touched the example's partition shortly before it.
 */
final class StateTimeline {
    /** How far before an anomaly's first op an event may explain it. */
    static final Duration LOOK_BACK = Duration.ofSeconds(30);
    private static final int MAX_TABLE_ROWS = 400;
    private static final int WIDTH = 1000, LANE = 26, LEFT = 60, TOP = 18;

    private final List<StateEvents.Event> events;
    private final Instant startedAt;
    private final long durationNanos;
    private final FaultBands faults;
    private final Function<String, String> colourOf;
    private final Map<StateEvents.Event, Integer> ids = new HashMap<>();

    StateTimeline(List<StateEvents.Event> events, Instant startedAt, long durationNanos, FaultBands faults,
                  Function<String, String> colourOf) {
        this.events = events;
        this.startedAt = startedAt;
        this.durationNanos = Math.max(durationNanos, 1);
        this.faults = faults;
        this.colourOf = colourOf;
        for (int i = 0; i < events.size(); i++) ids.putIfAbsent(events.get(i), i);
    }

    /** The timeline of a run whose node logs are in {@code nodesDir}; workload partitions only (no internal topics). */
    static StateTimeline of(ReportInput in, FaultBands faults, long durationNanos) {
        List<StateEvents.Event> events = StateEvents.withNodeFaults(in.nodesDir() == null ? List.of()
                : StateEvents.read(in.nodesDir(), ZoneOffset.UTC, p -> !p.startsWith("__")), in.history(), in.startedAt());
        return new StateTimeline(events, in.startedAt(), durationNanos, faults, in::colourOf);
    }

    List<StateEvents.Event> events() {
        return events;
    }

    /** Seconds into the run of an event's moment. */
    double secondsOf(Instant at) {
        return Duration.between(startedAt, at).toNanos() / 1e9;
    }

    String html() {
        StringBuilder b = new StringBuilder("<h2 id=\"state\">State timeline</h2>");
        if (events.isEmpty()) {
            return b.append("<p class=\"note\">No replication state changes were found in the node logs (none were"
                    + " collected, or the system words them differently).</p>").toString();
        }
        b.append("<p class=\"note\">What each node reported in its log: green = leads a workload partition, blue ="
                + " follows, orange = follows but out of sync (not in the partition's latest ISR), grey = fenced, black ="
                + " down (killed, powered off or paused, from the nemesis's record); ▲ truncation, ● new leader epoch,"
                + " | ISR change, ★ unclean election, ✕ down, ↑ up again. Fault bands behind. Hover a mark for details;"
                + " the table below lists every event.</p>");
        b.append(svg());
        b.append("<table id=\"state-events\"><tr><th>time (s)</th><th>node</th><th>partition</th><th>event</th>"
                + "<th>epoch</th><th>offsets</th><th>detail</th></tr>");
        int shown = 0;
        for (StateEvents.Event e : events) {
            if (shown++ >= MAX_TABLE_ROWS) break;
            b.append("<tr id=\"state-ev-").append(ids.get(e)).append("\"><td class=\"num\">")
                    .append(String.format(Locale.ROOT, "%.3f", secondsOf(e.at()))).append("</td><td>")
                    .append(Html.esc(e.node())).append("</td><td>").append(Html.esc(e.partition() == null ? "" : e.partition()))
                    .append("</td><td>").append(Html.esc(kindWord(e.kind()))).append("</td><td class=\"num\">")
                    .append(e.epoch() == null ? "" : e.epoch()).append("</td><td>").append(Html.esc(offsets(e)))
                    .append("</td><td>").append(Html.esc(e.detail() == null ? "" : e.detail())).append("</td></tr>");
        }
        b.append("</table>");
        if (events.size() > MAX_TABLE_ROWS) {
            b.append("<p class=\"note\">").append(events.size() - MAX_TABLE_ROWS).append(" more events not listed.</p>");
        }
        return b.toString();
    }

    private static String kindWord(StateEvents.Kind k) {
        return switch (k) {
            case LEADER -> "became leader";
            case FOLLOWER -> "became follower";
            case ISR -> "ISR changed";
            case TRUNCATE -> "truncated";
            case FENCED -> "fenced";
            case UNFENCED -> "unfenced";
            case UNCLEAN_ELECTION -> "unclean election";
            case DOWN -> "down";
            case UP -> "up again";
        };
    }

    private static String offsets(StateEvents.Event e) {
        if (e.kind() == StateEvents.Kind.TRUNCATE) {
            return (e.from() == null ? "" : e.from() + " → ") + (e.to() == null ? "?" : e.to());
        }
        return e.from() == null ? "" : "from " + e.from();
    }

    /** Only the lanes, marks linking to {@code linkPrefix + "state-ev-N"} (e.g. another page's report.html#). */
    String lanes(String linkPrefix) {
        if (events.isEmpty()) return "<p class=\"note\">No replication state changes found in this run's node logs.</p>";
        return svg().replace("href=\"#state-ev-", "href=\"" + Html.esc(linkPrefix) + "state-ev-");
    }

    private String svg() {
        TreeSet<String> nodes = new TreeSet<>();
        events.forEach(e -> nodes.add(e.node()));
        List<String> lanes = new ArrayList<>(nodes);
        int height = TOP + lanes.size() * LANE + 20;
        StringBuilder s = new StringBuilder("<svg id=\"state-timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"")
                .append(WIDTH).append("\" height=\"").append(height).append("\" font-family=\"sans-serif\" font-size=\"11\">");
        for (FaultBands.Band band : faults.bands()) {
            double x1 = x(band.startNanos()), x2 = x(band.endNanos());
            s.append("<rect x=\"").append(fmt(x1)).append("\" y=\"").append(TOP).append("\" width=\"")
                    .append(fmt(Math.max(1, x2 - x1))).append("\" height=\"").append(lanes.size() * LANE)
                    .append("\" fill=\"").append(Html.esc(colourOf.apply(band.pkg()))).append("\" opacity=\"0.18\"><title>")
                    .append(Html.esc(band.pkg())).append("</title></rect>");
        }
        for (int i = 0; i < lanes.size(); i++) {
            String node = lanes.get(i);
            int y = TOP + i * LANE;
            s.append("<text x=\"4\" y=\"").append(y + 16).append("\">").append(Html.esc(node)).append("</text>");
            roleSegments(node, y, s);
            for (StateEvents.Event e : events) {
                if (e.node().equals(node)) mark(e, y, s);
            }
        }
        for (int t = 0; t <= durationNanos / 1e9; t += tickStep()) {
            double x = x(t * 1_000_000_000L);
            s.append("<text x=\"").append(fmt(x)).append("\" y=\"").append(height - 4).append("\" text-anchor=\"middle\">")
                    .append(t).append("</text>");
        }
        return s.append("</svg>").toString();
    }

    private int tickStep() {
        double secs = durationNanos / 1e9;
        return secs <= 30 ? 5 : secs <= 120 ? 10 : secs <= 600 ? 60 : 300;
    }

    /**
     * The node's role over time: down (the nemesis killed, powered off or paused it), fenced, leading any workload
     * partition, following one it is out of sync on (its id missing from that partition's latest ISR), following.
     */
    private void roleSegments(String node, int y, StringBuilder s) {
        Map<String, Boolean> leads = new LinkedHashMap<>();
        Map<String, List<String>> isr = new HashMap<>();
        String id = node.startsWith("n") ? node.substring(1) : node;
        boolean fenced = false, down = false;
        long from = 0;
        String colour = null;
        for (StateEvents.Event e : events) {
            boolean mine = e.node().equals(node);
            switch (e.kind()) {
                case LEADER -> {
                    if (mine) leads.put(e.partition(), true);
                    else leads.remove(e.partition()); // another node leads it now
                    List<String> ids = isrOf(e.detail());
                    if (ids != null) isr.put(e.partition(), ids);
                }
                case FOLLOWER -> {
                    if (mine) leads.put(e.partition(), false);
                }
                case ISR -> {
                    List<String> ids = isrOf(e.detail());
                    if (ids != null) isr.put(e.partition(), ids);
                }
                case FENCED -> fenced = mine || fenced;
                case UNFENCED -> fenced = !mine && fenced;
                case DOWN -> down = mine || down;
                case UP -> down = !mine && down;
                default -> { }
            }
            boolean outOfSync = leads.entrySet().stream().anyMatch(p -> !p.getValue()
                    && isr.containsKey(p.getKey()) && !isr.get(p.getKey()).contains(id));
            String now = down ? "#212529" : fenced ? "#adb5bd" : leads.containsValue(true) ? "#2f9e44"
                    : outOfSync ? "#f08c00" : leads.isEmpty() ? null : "#4dabf7";
            if (!java.util.Objects.equals(now, colour)) {
                long at = nanosOf(e.at());
                segment(colour, from, at, y, s);
                colour = now;
                from = at;
            }
        }
        segment(colour, from, durationNanos, y, s);
    }

    /** The broker ids of an "ISR [3, 2, 1]" detail; null for any other detail. */
    private static List<String> isrOf(String detail) {
        if (detail == null || !detail.startsWith("ISR [") || !detail.endsWith("]")) return null;
        String inside = detail.substring(5, detail.length() - 1);
        List<String> ids = new ArrayList<>();
        for (String i : inside.split(",")) if (!i.isBlank()) ids.add(i.strip());
        return ids;
    }

    private void segment(String colour, long from, long to, int y, StringBuilder s) {
        if (colour == null || to <= from) return;
        s.append("<rect x=\"").append(fmt(x(from))).append("\" y=\"").append(y + 9).append("\" width=\"")
                .append(fmt(Math.max(0.5, x(to) - x(from)))).append("\" height=\"8\" fill=\"").append(colour).append("\"/>");
    }

    private void mark(StateEvents.Event e, int y, StringBuilder s) {
        double x = x(nanosOf(e.at()));
        String title = Html.esc(String.format(Locale.ROOT, "%.3f s %s %s %s", secondsOf(e.at()), e.node(), kindWord(e.kind()),
                (e.partition() == null ? "" : e.partition() + " ") + (e.epoch() == null ? "" : "epoch " + e.epoch() + " ")
                        + offsets(e) + (e.detail() == null ? "" : " (" + e.detail() + ")")));
        String shape = switch (e.kind()) {
            case TRUNCATE -> "<path d=\"M" + fmt(x) + " " + (y + 4) + " l-5 9 h10 z\" fill=\"#c92a2a\">";
            case LEADER -> "<circle cx=\"" + fmt(x) + "\" cy=\"" + (y + 13) + "\" r=\"4\" fill=\"#2b8a3e\" stroke=\"white\">";
            case ISR -> "<rect x=\"" + fmt(x - 0.75) + "\" y=\"" + (y + 5) + "\" width=\"1.5\" height=\"16\" fill=\"#5f3dc4\">";
            case UNCLEAN_ELECTION -> "<text x=\"" + fmt(x) + "\" y=\"" + (y + 18) + "\" text-anchor=\"middle\" font-size=\"16\" fill=\"#e67700\">★";
            case DOWN -> "<text x=\"" + fmt(x) + "\" y=\"" + (y + 8) + "\" text-anchor=\"middle\" font-size=\"11\" fill=\"#c92a2a\">✕";
            case UP -> "<text x=\"" + fmt(x) + "\" y=\"" + (y + 8) + "\" text-anchor=\"middle\" font-size=\"11\" fill=\"#2b8a3e\">↑";
            default -> null;
        };
        if (shape == null) return;
        String close = shape.startsWith("<path") ? "</path>" : shape.startsWith("<circle") ? "</circle>"
                : shape.startsWith("<rect") ? "</rect>" : "</text>";
        s.append("<a href=\"#state-ev-").append(ids.get(e)).append("\">").append(shape).append("<title>").append(title)
                .append("</title>").append(close).append("</a>");
    }

    private long nanosOf(Instant at) {
        return Math.max(0, Math.min(durationNanos, Duration.between(startedAt, at).toNanos()));
    }

    private double x(long nanos) {
        return LEFT + (WIDTH - LEFT - 10) * (double) Math.max(0, Math.min(nanos, durationNanos)) / durationNanos;
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /**
     * One sentence naming the truncations, elections and leader changes on the example's partition from
     * {@link #LOOK_BACK} before its first op to its last, each linked to its row; empty when none is known.
     * {@code firstNanos}/{@code lastNanos}: the example's ops' times in history time.
     */
    String why(Example x, long firstNanos, long lastNanos) {
        return why(x, firstNanos, lastNanos, null);
    }

    /**
     * The example's story in one sentence ({@link AnomalyStory}) when the events on its partition tell one, else the
     * list of those events. {@code ackNanos}: when the send of a lost or unseen value completed (null if unknown).
     */
    String why(Example x, long firstNanos, long lastNanos, Long ackNanos) {
        if (x.key() == null || events.isEmpty()) return "";
        String suffix = "-" + x.key() + "-0";
        long earliest = ackNanos == null ? firstNanos : Math.min(firstNanos, ackNanos);
        Instant from = startedAt.plusNanos(earliest).minus(LOOK_BACK), to = startedAt.plusNanos(lastNanos);
        List<StateEvents.Event> near = events.stream().filter(e -> e.partition() != null && e.partition().endsWith(suffix)
                && !e.at().isBefore(from) && !e.at().isAfter(to)).toList();
        String story = AnomalyStory.tell(AnomalyStory.of(x), near, startedAt, ackNanos,
                (e, words) -> "<a href=\"#state-ev-" + ids.get(e) + "\">" + Html.esc(words) + "</a>");
        if (!story.isEmpty()) return "Why, from the node logs: " + story;
        List<String> parts = new ArrayList<>();
        for (StateEvents.Event e : events) {
            if (e.partition() == null || !e.partition().endsWith(suffix)) continue;
            if (e.at().isBefore(from) || e.at().isAfter(to)) continue;
            if (e.kind() != StateEvents.Kind.TRUNCATE && e.kind() != StateEvents.Kind.LEADER
                    && e.kind() != StateEvents.Kind.UNCLEAN_ELECTION) continue;
            String when = String.format(Locale.ROOT, "%.1f s", secondsOf(e.at()));
            String text = switch (e.kind()) {
                case TRUNCATE -> e.node() + " truncated " + e.partition() + (e.from() == null ? "" : " from " + e.from())
                        + " to " + (e.to() == null ? "?" : e.to()) + " at " + when
                        + (e.detail() == null ? "" : " (" + e.detail() + ")");
                case LEADER -> e.node() + " led epoch " + e.epoch() + " from " + when
                        + (e.from() == null ? "" : " starting at offset " + e.from());
                default -> "an unclean election of " + e.partition() + " at " + when;
            };
            parts.add("<a href=\"#state-ev-" + ids.get(e) + "\">" + Html.esc(text) + "</a>");
            if (parts.size() >= 6) {
                parts.add("…");
                break;
            }
        }
        if (parts.isEmpty()) return "";
        return "Why, from the node logs: " + String.join("; ", parts) + ".";
    }
}
