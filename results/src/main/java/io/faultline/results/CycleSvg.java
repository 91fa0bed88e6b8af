package io.faultline.results;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Draws one dependency cycle of the transactional checker as a small SVG: transactions on a circle, each edge an
 * arrow coloured and labelled by its kind (ww, wr, rw, process, realtime). Input is the plain data the checker
 * keeps in its stats ("cycles": anomaly, explanation, steps of from/to/from-op/kind).
 */
final class CycleSvg {
    private static final Map<String, String> COLOURS = Map.of("ww", "#3465a4", "wr", "#4e9a06", "rw", "#cc0000",
            "process", "#75507b", "realtime", "#ce5c00");
    private static final int MAX_DRAWN = 12; // longer cycles are only described in words

    private CycleSvg() {
    }

    static String render(Map<String, Object> cycle) {
        if (!(cycle.get("steps") instanceof List<?> steps) || steps.isEmpty() || steps.size() > MAX_DRAWN) {
            return "";
        }
        int n = steps.size();
        double r = n == 2 ? 55 : 45 + 12 * n;
        double size = 2 * r + 90;
        double c = size / 2;
        double[] x = new double[n];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            double a = -Math.PI / 2 + 2 * Math.PI * i / n;
            x[i] = c + r * Math.cos(a);
            y[i] = c + r * Math.sin(a);
        }
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg class=\"cycle\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                + "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"%s\">", size, size, size, size,
                Html.esc(cycle.getOrDefault("anomaly", "cycle"))));
        b.append("<defs>");
        COLOURS.forEach((kind, colour) -> b.append("<marker id=\"arrow-").append(kind).append("\" viewBox=\"0 0 10 10\" "
                + "refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"")
                .append(colour).append("\"/></marker>"));
        b.append("</defs>");
        double nodeR = 17;
        for (int i = 0; i < n; i++) {
            Map<?, ?> step = (Map<?, ?>) steps.get(i);
            String kind = String.valueOf(step.get("kind"));
            String colour = COLOURS.getOrDefault(kind, "#555");
            int j = (i + 1) % n;
            // A curve bent to the right of its direction, so the two edges of a 2-cycle do not overlap.
            double dx = x[j] - x[i];
            double dy = y[j] - y[i];
            double len = Math.max(1, Math.hypot(dx, dy));
            double bend = n == 2 ? 35 : 18;
            double mx = (x[i] + x[j]) / 2 - dy / len * bend;
            double my = (y[i] + y[j]) / 2 + dx / len * bend;
            double[] s = towards(x[i], y[i], mx, my, nodeR);
            double[] e = towards(x[j], y[j], mx, my, nodeR + 2);
            b.append(String.format(Locale.ROOT, "<path d=\"M %.1f %.1f Q %.1f %.1f %.1f %.1f\" fill=\"none\" stroke=\"%s\" "
                    + "stroke-width=\"2\" marker-end=\"url(#arrow-%s)\"><title>%s</title></path>", s[0], s[1], mx, my,
                    e[0], e[1], colour, Html.esc(kind), Html.esc(step.get("text"))));
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" "
                    + "fill=\"%s\">%s</text>", mx, my + 4, colour, Html.esc(kind)));
        }
        for (int i = 0; i < n; i++) {
            Map<?, ?> step = (Map<?, ?>) steps.get(i);
            b.append(String.format(Locale.ROOT, "<g><title>%s = op %s</title><circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.0f\" "
                    + "fill=\"#fff\" stroke=\"#333\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">%s"
                    + "</text></g>", Html.esc(step.get("from")), Html.esc(step.get("from-op")), x[i], y[i], nodeR, x[i],
                    y[i] + 4, Html.esc(step.get("from"))));
        }
        return b.append("</svg>").toString();
    }

    /** The point at distance d from (x, y) in the direction of (tx, ty). */
    private static double[] towards(double x, double y, double tx, double ty, double d) {
        double dx = tx - x;
        double dy = ty - y;
        double len = Math.max(1, Math.hypot(dx, dy));
        return new double[] {x + dx / len * d, y + dy / len * d};
    }
}
