package io.faultline.results;

import io.faultline.checker.CheckResult;

import java.util.List;
import java.util.Map;

/** The drawings a check kept data for: dependency cycles (SVG) and timelines of non-linearizable keys. */
final class CheckDrawings {
    private CheckDrawings() {
    }

    static String html(CheckResult r) {
        StringBuilder b = new StringBuilder();
        if (r.stats().get("cycles") instanceof List<?> cycles) {
            for (Object c : cycles) {
                if (c instanceof Map<?, ?> raw) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> m = (Map<String, Object>) raw;
                    b.append("<figure class=\"cycle\">").append(CycleSvg.render(m)).append("<figcaption>")
                            .append(Html.esc(m.get("anomaly"))).append(": ").append(Html.esc(m.get("explanation")))
                            .append("</figcaption></figure>");
                }
            }
        }
        if (r.stats().get("timelines") instanceof List<?> timelines) {
            for (Object t : timelines) {
                if (t instanceof Map<?, ?> raw) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> m = (Map<String, Object>) raw;
                    b.append(LinearTimeline.render(m));
                }
            }
        }
        return b.toString();
    }
}
