package io.faultline.results;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;

import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything {@link HtmlReport} needs about one run. Build it with {@link #builder(String)}; every field but the
 * test name has a harmless default, so a report can always be written, even for a run that died early.
 *
 * @param testName       the test's name (as in the store path)
 * @param parameters     every parameter of the run, as written to test.json (nested maps are flattened for display)
 * @param history        the full history
 * @param checks         check name → result, e.g. "queue" and "total-queue"
 * @param verdict        overall verdict of the run
 * @param clockOffsets   node → offset samples; empty when no clock data was collected
 * @param packageColours fault package → CSS hex colour ("#rrggbb"); merged over the vocabulary's colours
 * @param nodesDir       the run's nodes/ folder, for log excerpts; may be null or missing
 * @param startedAt      wall-clock time of history time 0, to match node log lines to ops
 * @param complete       false when the run was interrupted: the report says it is partial
 * @param faults         the run's fault vocabulary (names, colours, the ops that open and close bands), as the run
 *                       wrote it; {@link FaultVocabulary#FALLBACK} when unset
 * @param durability     when power faults ran: whether the flush settings promised that acknowledged writes survive
 *                       them (null otherwise); shown next to any loss found
 * @param liveness       the recovery check after the final heal (null: not run, e.g. an interrupted run)
 */
public record ReportInput(String testName, Map<String, Object> parameters, List<Op> history,
                          Map<String, CheckResult> checks, Verdict verdict, Map<String, List<ClockPoint>> clockOffsets,
                          Map<String, String> packageColours, Path nodesDir, Instant startedAt, boolean complete,
                          FaultVocabulary faults, Durability durability, Liveness liveness) {


    /**
     * Whether the system's durability settings promised that acknowledged writes survive the power faults this run
     * injected: a loss is then a bug ({@code promised}) or allowed by the settings.
     */
    public record Durability(boolean promised, String explanation) {
        public Durability {
            java.util.Objects.requireNonNull(explanation, "explanation");
        }
    }

    /** One clock sample of a node: its offset from true time at history time {@code timeNanos}. */
    public record ClockPoint(long timeNanos, double offsetMillis) {
    }

    /** The fallback vocabulary's colours (runs that did not record their vocabulary). */
    public static final Map<String, String> DEFAULT_COLOURS = FaultVocabulary.FALLBACK.colours();

    public ReportInput {
        Objects.requireNonNull(testName, "testName");
        parameters = parameters == null ? Map.of() : new LinkedHashMap<>(parameters);
        history = history == null ? List.of() : List.copyOf(history);
        checks = checks == null ? Map.of() : new LinkedHashMap<>(checks);
        verdict = verdict == null ? Verdict.UNKNOWN : verdict;
        clockOffsets = clockOffsets == null ? Map.of() : new LinkedHashMap<>(clockOffsets);
        faults = faults == null ? FaultVocabulary.FALLBACK : faults;
        Map<String, String> colours = new LinkedHashMap<>(faults.colours());
        if (packageColours != null) {
            colours.putAll(packageColours);
        }
        packageColours = colours;
        startedAt = startedAt == null ? Instant.EPOCH : startedAt;
    }

    /** The colour for a fault package: configured, the vocabulary's, or a stable pick from a small palette. */
    public String colourOf(String pkg) {
        String c = packageColours.get(pkg);
        return c != null ? c : faults.colourOf(pkg);
    }

    public static Builder builder(String testName) {
        return new Builder(testName);
    }

    /** Mutable builder; unset fields take the record's defaults (complete defaults to true). */
    public static final class Builder {
        private final String testName;
        private Map<String, Object> parameters;
        private List<Op> history;
        private Map<String, CheckResult> checks;
        private Verdict verdict;
        private Map<String, List<ClockPoint>> clockOffsets;
        private Map<String, String> packageColours;
        private Path nodesDir;
        private Instant startedAt;
        private boolean complete = true;
        private FaultVocabulary faults;
        private Durability durability;
        private Liveness liveness;

        private Builder(String testName) {
            this.testName = testName;
        }

        public Builder parameters(Map<String, Object> v) { parameters = v; return this; }

        public Builder history(List<Op> v) { history = v; return this; }

        public Builder checks(Map<String, CheckResult> v) { checks = v; return this; }

        public Builder verdict(Verdict v) { verdict = v; return this; }

        public Builder clockOffsets(Map<String, List<ClockPoint>> v) { clockOffsets = v; return this; }

        public Builder packageColours(Map<String, String> v) { packageColours = v; return this; }

        public Builder nodesDir(Path v) { nodesDir = v; return this; }

        public Builder startedAt(Instant v) { startedAt = v; return this; }

        public Builder complete(boolean v) { complete = v; return this; }

        public Builder faults(FaultVocabulary v) { faults = v; return this; }

        public Builder durability(Durability v) { durability = v; return this; }

        public Builder liveness(Liveness v) { liveness = v; return this; }

        public ReportInput build() {
            return new ReportInput(testName, parameters, history, checks, verdict, clockOffsets, packageColours,
                    nodesDir, startedAt, complete, faults, durability, liveness);
        }
    }
}
