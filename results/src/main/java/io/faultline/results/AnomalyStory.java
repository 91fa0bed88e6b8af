package io.faultline.results;

import io.faultline.checker.Example;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One plain sentence per anomaly example saying why it happened, built from the state changes the nodes logged on
 * the example's partition: for an inconsistent offset, the truncation that cut the log back past it and the
 * election after which a second value was written there; for a lost or unseen write, its acknowledgement, the
 * truncations that removed it (the last one is the last replica that held it) and the leader that wrote over it;
 * for a duplicate, the leader change between its two offsets. Empty when the events say nothing about it (the
 * report then lists the events near the anomaly instead). Never throws on odd input: it returns empty.
 */
final class AnomalyStory {
    private AnomalyStory() {}

    /**
     * What an example is about in the log, read from the queue checker's explanation (AnomalyStoryTest holds the
     * checker's wording and these patterns together).
     *
     * @param offsets  the offsets concerned (one, or a duplicate's several)
     * @param values   the values concerned (an inconsistent offset's two, else one)
     * @param writerOp the op that sent the value (lost or unseen), else null
     * @param acked    whether that send was acknowledged (false: indeterminate, but proven written)
     */
    record Subject(String category, int key, List<Long> offsets, List<Long> values, Long writerOp, boolean acked) {}

    private static final Pattern INCONSISTENT = Pattern.compile(
            "^offset (\\d+) of key (-?\\d+): op -?\\d+ saw (-?\\d+), op -?\\d+ saw (-?\\d+)");
    private static final Pattern LOST = Pattern.compile(
            "^key (-?\\d+): value (-?\\d+) at offset (\\d+) was sent \\(op (\\d+), (\\w+)\\)");
    private static final Pattern UNSEEN = Pattern.compile(
            "^key (-?\\d+): value (-?\\d+) was acknowledged at offset (\\d+) \\(op (\\d+)\\)");
    private static final Pattern DUPLICATE = Pattern.compile(
            "^key (-?\\d+): value (-?\\d+) appears at \\d+ offsets \\[([\\d, ]+)]");

    /** The subject of a lost-write, unseen, inconsistent-offsets or duplicate example; null for anything else. */
    static Subject of(Example x) {
        String text = x.explanation() == null ? "" : x.explanation();
        Matcher m;
        switch (x.category()) {
            case "inconsistent-offsets" -> {
                if (!(m = INCONSISTENT.matcher(text)).find()) return null;
                return new Subject(x.category(), Integer.parseInt(m.group(2)), List.of(Long.parseLong(m.group(1))),
                        List.of(Long.parseLong(m.group(3)), Long.parseLong(m.group(4))), null, false);
            }
            case "lost-write" -> {
                if (!(m = LOST.matcher(text)).find()) return null;
                return new Subject(x.category(), Integer.parseInt(m.group(1)), List.of(Long.parseLong(m.group(3))),
                        List.of(Long.parseLong(m.group(2))), Long.parseLong(m.group(4)), m.group(5).equals("ok"));
            }
            case "unseen" -> {
                if (!(m = UNSEEN.matcher(text)).find()) return null;
                return new Subject(x.category(), Integer.parseInt(m.group(1)), List.of(Long.parseLong(m.group(3))),
                        List.of(Long.parseLong(m.group(2))), Long.parseLong(m.group(4)), true);
            }
            case "duplicate" -> {
                if (!(m = DUPLICATE.matcher(text)).find()) return null;
                List<Long> offsets = new ArrayList<>();
                for (String o : m.group(3).split(",")) offsets.add(Long.parseLong(o.strip()));
                return new Subject(x.category(), Integer.parseInt(m.group(1)), List.copyOf(offsets),
                        List.of(Long.parseLong(m.group(2))), null, false);
            }
            default -> {
                return null;
            }
        }
    }

    /**
     * The sentence for {@code s} from {@code events} (the example's partition only, in time order, already limited
     * to the moments before and during the anomaly); {@code ackNanos} is when the writer's send completed, in
     * history time (null when unknown); {@code link} wraps an event's words in a link to its row.
     */
    static String tell(Subject s, List<StateEvents.Event> events, Instant startedAt, Long ackNanos,
                       BiFunction<StateEvents.Event, String, String> link) {
        if (s == null || events.isEmpty()) return "";
        return switch (s.category()) {
            case "inconsistent-offsets" -> inconsistent(s, events, startedAt, link);
            case "lost-write", "unseen" -> lost(s, events, startedAt, ackNanos, link);
            case "duplicate" -> duplicate(s, events, startedAt, link);
            default -> "";
        };
    }

    /** The truncation that cut back past the offset, then the leader whose log restarted at or below it. */
    private static String inconsistent(Subject s, List<StateEvents.Event> events, Instant startedAt,
                                       BiFunction<StateEvents.Event, String, String> link) {
        long offset = s.offsets().get(0);
        StateEvents.Event cut = null;
        for (StateEvents.Event e : events) if (removes(e, offset)) cut = e;
        StateEvents.Event lead = leaderAtOrBelow(events, offset, cut == null ? null : cut.at(), null);
        StateEvents.Event unclean = first(events, StateEvents.Kind.UNCLEAN_ELECTION);
        if (cut == null && lead == null && unclean == null) return "";
        List<StateEvents.Event> told = inTimeOrder(cut, unclean, lead);
        List<String> parts = new ArrayList<>();
        for (StateEvents.Event e : told) parts.add(link.apply(e, words(e, startedAt)));
        return esc("Offset " + offset + " of key " + s.key() + " holds two values (" + s.values().get(0) + " and "
                + s.values().get(1) + "): ") + String.join(esc(", then "), parts)
                + (lead != null ? esc(", so a second value was written at offset " + offset) : "") + ".";
    }

    /** The acknowledgement, the truncations that removed the offset after it, and the leader that wrote over it. */
    private static String lost(Subject s, List<StateEvents.Event> events, Instant startedAt, Long ackNanos,
                               BiFunction<StateEvents.Event, String, String> link) {
        long offset = s.offsets().get(0);
        // node clocks may run a little apart from the harness's: a cut logged just before the ack still counts
        Instant notBefore = ackNanos == null ? null : startedAt.plusNanos(ackNanos).minusSeconds(1);
        List<StateEvents.Event> cuts = new ArrayList<>();
        for (StateEvents.Event e : events) {
            if (removes(e, offset) && (notBefore == null || !e.at().isBefore(notBefore))) cuts.add(e);
        }
        StateEvents.Event last = cuts.isEmpty() ? null : cuts.get(cuts.size() - 1);
        StateEvents.Event lead = leaderAtOrBelow(events, offset, last == null ? null : last.at(), notBefore);
        if (last == null && lead == null) return "";
        StringBuilder b = new StringBuilder(esc("Value " + s.values().get(0) + " at offset " + offset + " of key "
                + s.key() + " was " + (s.acked() ? "acknowledged" : "written (its send's outcome unknown)")
                + (ackNanos == null ? "" : " at " + seconds(ackNanos / 1e9)) + " (op " + s.writerOp() + ")"));
        for (int i = 0; i < cuts.size() - 1 && i < 3; i++) {
            b.append(esc("; ")).append(link.apply(cuts.get(i), words(cuts.get(i), startedAt)));
        }
        if (last != null) {
            b.append(esc("; the last replica that held it, " + last.node() + ", "))
                    .append(link.apply(last, words(last, startedAt).substring(last.node().length() + 1)));
        }
        if (lead != null) {
            b.append(esc("; ")).append(link.apply(lead, words(lead, startedAt)))
                    .append(esc(", at or below offset " + offset + ", and wrote over it"));
        }
        return b.append('.').toString();
    }

    /** The leader change between the first two offsets the value landed at. */
    private static String duplicate(Subject s, List<StateEvents.Event> events, Instant startedAt,
                                    BiFunction<StateEvents.Event, String, String> link) {
        if (s.offsets().size() < 2) return "";
        long a = s.offsets().get(0), b = s.offsets().get(1);
        List<String> parts = new ArrayList<>();
        for (StateEvents.Event e : events) {
            if (e.kind() == StateEvents.Kind.LEADER && e.from() != null && e.from() > a && e.from() <= b) {
                parts.add(link.apply(e, words(e, startedAt)));
            }
        }
        if (parts.isEmpty()) return "";
        return esc("Value " + s.values().get(0) + " of key " + s.key() + " is at offsets " + a + " and " + b
                + ": between them the partition changed leader (") + String.join(esc("; "), parts)
                + esc("), and the value was written again under the new leader.");
    }

    /** A truncation that took {@code offset} out of the log: it now ends at or below it, and (when known) held it. */
    private static boolean removes(StateEvents.Event e, long offset) {
        return e.kind() == StateEvents.Kind.TRUNCATE && e.to() != null && e.to() <= offset
                && (e.from() == null || e.from() > offset);
    }

    /**
     * A leader whose log restarted at or below {@code offset}, so its writes could land there: the one closest in
     * time to {@code anchor} (a truncation: the new leader may be elected just before the old one cuts its log, or
     * a follower cut first and then be elected), else the first; none before {@code notBefore}.
     */
    private static StateEvents.Event leaderAtOrBelow(List<StateEvents.Event> events, long offset, Instant anchor,
                                                     Instant notBefore) {
        StateEvents.Event best = null;
        long bestDistance = Long.MAX_VALUE;
        for (StateEvents.Event e : events) {
            if (e.kind() != StateEvents.Kind.LEADER || e.from() == null || e.from() > offset) continue;
            if (notBefore != null && e.at().isBefore(notBefore)) continue;
            if (anchor == null) return e;
            long distance = Math.abs(Duration.between(anchor, e.at()).toNanos());
            if (distance < bestDistance) {
                best = e;
                bestDistance = distance;
            }
        }
        return best;
    }

    private static StateEvents.Event first(List<StateEvents.Event> events, StateEvents.Kind kind) {
        for (StateEvents.Event e : events) if (e.kind() == kind) return e;
        return null;
    }

    private static List<StateEvents.Event> inTimeOrder(StateEvents.Event... events) {
        List<StateEvents.Event> out = new ArrayList<>();
        for (StateEvents.Event e : events) if (e != null && !out.contains(e)) out.add(e);
        out.sort(java.util.Comparator.comparing(StateEvents.Event::at));
        return out;
    }

    /** An event in words, starting with its node: "n2 truncated fl1-0-0 from 1030 to 1024 at 31.2 s (high watermark)". */
    static String words(StateEvents.Event e, Instant startedAt) {
        String when = seconds(Duration.between(startedAt, e.at()).toNanos() / 1e9);
        return switch (e.kind()) {
            case TRUNCATE -> e.node() + " truncated " + e.partition() + (e.from() == null ? "" : " from " + e.from())
                    + " to " + (e.to() == null ? "?" : e.to()) + " at " + when + (e.detail() == null ? "" : " (" + e.detail() + ")");
            case LEADER -> e.node() + " led epoch " + e.epoch() + " from " + when
                    + (e.from() == null ? "" : " starting at offset " + e.from());
            case UNCLEAN_ELECTION -> e.node() + " logged an unclean election of " + e.partition() + " at " + when;
            default -> e.node() + " " + e.kind().name().toLowerCase(Locale.ROOT) + " at " + when;
        };
    }

    private static String seconds(double s) {
        return String.format(Locale.ROOT, "%.1f s", s);
    }

    private static String esc(String s) {
        return Html.esc(s);
    }
}
