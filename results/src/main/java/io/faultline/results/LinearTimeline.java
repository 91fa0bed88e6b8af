package io.faultline.results;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A non-linearizable key drawn as Porcupine draws it: one row per process, each op a bar from invocation to
 * completion; the longest linearizable prefix in green (numbered in linearization order), the op that cannot be
 * placed in red, the rest grey. Long histories are cut to the ops nearest the stuck op. Input is the plain data
 * the linearizability checker keeps in its stats ("timelines": key, ops, prefix, stuck, state).
 */
final class LinearTimeline {
    private static final int MAX_OPS = 120;
    private static final int WIDTH = 900;
    private static final int ROW = 26;
    private static final int LEFT = 80;

    private LinearTimeline() {
    }

    static String render(Map<String, Object> timeline) {
        if (!(timeline.get("ops") instanceof List<?> rawOps) || rawOps.isEmpty()) {
            return "";
        }
        long stuck = num(timeline.get("stuck"), -1);
        Map<Long, Integer> order = new HashMap<>();
        if (timeline.get("prefix") instanceof List<?> prefix) {
            for (int i = 0; i < prefix.size(); i++) {
                order.put(num(prefix.get(i), -1), i + 1);
            }
        }
        List<Map<?, ?>> ops = new ArrayList<>();
        long maxEnd = Long.MIN_VALUE;
        long stuckAt = 0;
        for (Object o : rawOps) {
            Map<?, ?> m = (Map<?, ?>) o;
            ops.add(m);
            maxEnd = Math.max(maxEnd, Math.max(num(m.get("invoke"), 0), num(m.get("complete"), Long.MIN_VALUE)));
            if (num(m.get("id"), -2) == stuck) {
                stuckAt = num(m.get("invoke"), 0);
            }
        }
        int total = ops.size();
        if (ops.size() > MAX_OPS) {
            long at = stuckAt;
            ops.sort(Comparator.comparingLong(m -> Math.abs(num(m.get("invoke"), 0) - at)));
            ops = new ArrayList<>(ops.subList(0, MAX_OPS));
        }
        long t0 = Long.MAX_VALUE;
        long t1 = Long.MIN_VALUE;
        Set<Long> processes = new HashSet<>();
        for (Map<?, ?> m : ops) {
            t0 = Math.min(t0, num(m.get("invoke"), 0));
            t1 = Math.max(t1, Math.max(num(m.get("invoke"), 0), num(m.get("complete"), Long.MIN_VALUE)));
            processes.add(num(m.get("process"), 0));
        }
        long span = Math.max(1, t1 - t0);
        long open = t1 + span / 10 + 1; // indeterminate ops run off the right edge
        List<Long> rows = new ArrayList<>(processes);
        rows.sort(null);
        int height = rows.size() * ROW + 30;
        StringBuilder b = new StringBuilder("<div class=\"lin-timeline\"><p>key ")
                .append(Html.esc(timeline.get("key"))).append(": ").append(order.size())
                .append(" op(s) linearized (green, numbered), then op ").append(stuck)
                .append(" (red) cannot be placed; state after the prefix: ").append(Html.esc(timeline.get("state")))
                .append(total > ops.size() ? " — showing the " + ops.size() + " of " + total
                        + " ops nearest to it" : "").append("</p>");
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">",
                WIDTH, height));
        double scale = (WIDTH - LEFT - 10) / (double) (open - t0);
        for (int r = 0; r < rows.size(); r++) {
            b.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%d\" font-size=\"11\">process %d</text>",
                    r * ROW + 17, rows.get(r)));
        }
        for (Map<?, ?> m : ops) {
            long id = num(m.get("id"), -1);
            int row = rows.indexOf(num(m.get("process"), 0));
            long start = num(m.get("invoke"), 0);
            boolean never = m.get("complete") == null;
            long end = never ? open : num(m.get("complete"), start);
            double x = LEFT + (start - t0) * scale;
            double w = Math.max(3, (end - start) * scale);
            Integer pos = order.get(id);
            String fill = id == stuck ? "#ef2929" : pos != null ? "#8ae234" : "#d3d7cf";
            String label = (pos != null ? pos + ". " : "") + m.get("text");
            b.append(String.format(Locale.ROOT, "<g><title>op %d, process %s: %s (%s → %s)</title><rect x=\"%.1f\" "
                    + "y=\"%d\" width=\"%.1f\" height=\"%d\" rx=\"3\" fill=\"%s\" stroke=\"#555\"%s/>", id,
                    Html.esc(m.get("process")), Html.esc(m.get("text")), start, never ? "never" : String.valueOf(end),
                    x, row * ROW + 4, w, ROW - 8, fill, never ? " stroke-dasharray=\"4 2\"" : ""));
            if (w > 30) {
                b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\">%s</text>", x + 3,
                        row * ROW + 17, Html.esc(label.length() * 6 > w ? label.substring(0, Math.max(1, (int) (w / 6)))
                                : label)));
            }
            b.append("</g>");
        }
        return b.append("</svg></div>").toString();
    }

    private static long num(Object o, long missing) {
        return o instanceof Number n ? n.longValue() : missing;
    }
}
