package io.faultline.results;

import java.util.Locale;
import java.util.Map;

/** The report's "Liveness" section: the recovery check's bounds, timings, log growth and each anomaly's timeline. */
final class LivenessSection {
    private LivenessSection() {
    }

    private static final Map<String, String> MEANING = Map.ofEntries(
            Map.entry(Liveness.UNRESPONSIVE_BROKER, "a broker did not answer ApiVersions and Metadata sent to it directly"),
            Map.entry(Liveness.FENCED_BROKER, "a broker answered but the cluster did not list it as registered and unfenced"),
            Map.entry(Liveness.NO_LEADER, "a partition had no leader"),
            Map.entry(Liveness.UNRECOVERED_ISR, "a partition's ISR did not get its full replica set back"),
            Map.entry(Liveness.DIVERGED_METADATA, "the brokers described a partition differently (leader, leader epoch,"
                    + " replicas or ISR) and did not come to agree"),
            Map.entry(Liveness.UNWRITABLE_KEY, "no write to a key succeeded after the final heal"),
            Map.entry(Liveness.UNREADABLE_KEY, "no read after the final heal returned a key's records"),
            Map.entry(Liveness.HANGING_TRANSACTION, "a transaction stayed open after the final heal: read_committed readers stop below it"),
            Map.entry(Liveness.UNCONVERGED_REPLICAS, "with every replica back in the ISR and no write for a while, the"
                    + " replicas' checkpointed high watermarks or their log ends still differed when the cluster stopped"),
            Map.entry(Liveness.UNREADABLE_GROUP, "a consumer that joined a new group after the final heal never got a record"),
            Map.entry(Liveness.LOG_FLOOD, "a node's logs grew faster than the limit"),
            Map.entry(Liveness.NEVER_READY, "the cluster, started with no fault, did not come up within the readiness bound or failed the workload's set-up"));

    static String meaning(String name) {
        return MEANING.getOrDefault(name, "");
    }

    static String html(Liveness l) {
        StringBuilder b = new StringBuilder("<h2 id=\"liveness\">Liveness</h2>");
        if (l == null) {
            return b.append("<p class=\"note\">The recovery check did not run (the run did not reach the end of its"
                    + " final phase).</p>").toString();
        }
        String verdict = l.verdict() == null ? "UNKNOWN" : l.verdict().name();
        b.append("<p>After the final heal: every broker registered, unfenced and answering, every partition led with"
                + " its full replica set in the ISR, every key writable and readable, no node flooding its log. Verdict: "
                + "<span class=\"verdict ").append(Html.verdictClass(verdict)).append("\">").append(verdict)
                .append("</span>");
        if (l.reason() != null) b.append(" (").append(Html.esc(l.reason())).append(")");
        b.append("</p><table>");
        if (l.bounds() != null) {
            row(b, "recovery bound", seconds(l.bounds().recoverySeconds()) + " after the final heal");
            row(b, "log growth limit", bytes(l.bounds().logBytesPerSecond()) + "/s per node");
        }
        Liveness.Timings t = l.timings();
        if (t != null) {
            row(b, "final heal took", seconds(t.healSeconds()));
            row(b, "brokers all serving after", t.brokersServing() == null ? "not seen" : seconds(t.brokersServing()));
            row(b, "partitions all recovered after", t.partitionsRecovered() == null ? "not seen"
                    : seconds(t.partitionsRecovered()));
            row(b, "everything recovered after", t.allRecovered() == null ? "not seen" : seconds(t.allRecovered()));
            row(b, "observed", seconds(t.observedSeconds()) + " in " + t.polls() + " polls");
        }
        b.append("</table>");
        if (!l.logGrowth().isEmpty()) {
            b.append("<table><tr><th>node</th><th>log bytes</th><th>over</th><th>rate</th></tr>");
            l.logGrowth().forEach((node, g) -> b.append("<tr><td>").append(Html.esc(node)).append("</td><td class=\"num\">")
                    .append(bytes(g.bytes())).append("</td><td class=\"num\">").append(seconds(g.seconds()))
                    .append("</td><td class=\"num\">").append(bytes((long) g.bytesPerSecond())).append("/s</td></tr>"));
            b.append("</table>");
        }
        for (String note : l.notes()) b.append("<p class=\"note\">").append(Html.esc(note)).append("</p>");
        if (l.anomalies().isEmpty()) return b.toString();
        b.append("<table><tr><th>anomaly</th><th>count</th><th>meaning</th></tr>");
        l.counts().forEach((name, n) -> b.append("<tr").append(n == 0 ? " class=\"zero\"" : "").append("><td>")
                .append(Html.esc(name)).append("</td><td class=\"num\">").append(n).append("</td><td>")
                .append(Html.esc(meaning(name))).append("</td></tr>"));
        b.append("</table>");
        int i = 0;
        for (Liveness.Anomaly a : l.anomalies()) {
            b.append("<h4 id=\"liveness-").append(i++).append("\">").append(Html.esc(a.name())).append(": ")
                    .append(Html.esc(a.subject())).append("</h4><p>").append(Html.esc(a.explanation())).append("</p>");
            if (a.timeline().isEmpty()) continue;
            b.append("<table><tr><th>at</th><th>after heal</th><th>ok</th><th>state</th></tr>");
            for (Liveness.Sample s : a.timeline()) {
                b.append("<tr><td>").append(Html.esc(s.at())).append("</td><td class=\"num\">")
                        .append(seconds(s.secondsAfterHeal())).append("</td><td>").append(s.ok() ? "yes" : "no")
                        .append("</td><td>").append(Html.esc(s.state())).append("</td></tr>");
            }
            b.append("</table>");
        }
        return b.toString();
    }

    private static void row(StringBuilder b, String k, String v) {
        b.append("<tr><th>").append(Html.esc(k)).append("</th><td>").append(Html.esc(v)).append("</td></tr>");
    }

    private static String seconds(double s) {
        return String.format(Locale.ROOT, "%.1f s", s);
    }

    static String bytes(long n) {
        if (n < 10 * 1024) return n + " B";
        if (n < 10L * 1024 * 1024) return (n / 1024) + " KiB";
        return (n / (1024 * 1024)) + " MiB";
    }
}
