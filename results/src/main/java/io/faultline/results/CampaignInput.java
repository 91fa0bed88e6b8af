package io.faultline.results;

import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A campaign: many runs of one test over a grid of configurations.
 *
 * @param name      the campaign's name
 * @param createdAt when it started
 * @param runs      one entry per run, in the order to show them
 * @param pivotKey  the varied parameter to spread over columns in the summary grid (usually "nemesis"); runs
 *                  without it are left out of the grid but stay in the full table
 * @param details   further top-level entries of campaign.json (a sharded campaign's identity and shard), written
 *                  as given; empty for none
 */
public record CampaignInput(String name, Instant createdAt, List<Run> runs, String pivotKey, Map<String, Object> details) {
    /** The verdict of a point of the matrix that no shard reported: shown as such, never dropped. */
    public static final String MISSING = "missing";

    /**
     * One run of the campaign.
     *
     * @param config                   the varied parameters, e.g. acks=1, min-isr=2, unclean=true, nemesis=partition
     * @param runDir                   the run's folder (the page links to its report.html relative to the page)
     * @param verdict                  "valid" / "invalid" / "unknown" / "incomplete"
     * @param anomalyCounts            category → count (e.g. {@link HtmlReport.Summary#anomalyCounts()})
     * @param availability             share of ok ops overall (NaN if unknown)
     * @param availabilityDuringFaults share of ok ops while faults were active (NaN if none)
     * @param okOpsPerSecond           mean ok throughput
     * @param point                    the run's index in the campaign's matrix (0-based), or null when not known
     */
    public record Run(Map<String, String> config, Path runDir, String verdict, Map<String, Long> anomalyCounts,
                      double availability, double availabilityDuringFaults, double okOpsPerSecond, Integer point) {
        public Run {
            config = config == null ? Map.of() : new LinkedHashMap<>(config);
            anomalyCounts = anomalyCounts == null ? Map.of() : new LinkedHashMap<>(anomalyCounts);
            verdict = verdict == null ? "unknown" : verdict;
        }

        public Run(Map<String, String> config, Path runDir, String verdict, Map<String, Long> anomalyCounts,
                   double availability, double availabilityDuringFaults, double okOpsPerSecond) {
            this(config, runDir, verdict, anomalyCounts, availability, availabilityDuringFaults, okOpsPerSecond, null);
        }

        /** A point of the matrix that no shard reported: its configuration, no report, no figures. */
        public static Run missing(Map<String, String> config, int point) {
            return new Run(config, null, MISSING, Map.of(), Double.NaN, Double.NaN, Double.NaN, point);
        }

        public boolean isMissing() {
            return MISSING.equals(verdict);
        }

        /** The same run at matrix index {@code index}. */
        public Run atPoint(int index) {
            return new Run(config, runDir, verdict, anomalyCounts, availability, availabilityDuringFaults, okOpsPerSecond, index);
        }

        /** A run as summarised by its report. */
        public static Run of(Map<String, String> config, Path runDir, HtmlReport.Summary s) {
            return new Run(config, runDir, s.verdict(), s.anomalyCounts(), s.availability(),
                    s.availabilityDuringFaults(), s.okOpsPerSecond());
        }

        public long count(String category) {
            return anomalyCounts.getOrDefault(category, 0L);
        }
    }

    public CampaignInput {
        Objects.requireNonNull(name, "name");
        createdAt = createdAt == null ? Instant.now() : createdAt;
        runs = runs == null ? List.of() : List.copyOf(runs);
        pivotKey = pivotKey == null ? "nemesis" : pivotKey;
        details = details == null ? Map.of() : new LinkedHashMap<>(details);
    }

    public CampaignInput(String name, Instant createdAt, List<Run> runs, String pivotKey) {
        this(name, createdAt, runs, pivotKey, Map.of());
    }

    public CampaignInput(String name, Instant createdAt, List<Run> runs) {
        this(name, createdAt, runs, "nemesis");
    }

    /** The same campaign with these further campaign.json entries. */
    public CampaignInput withDetails(Map<String, Object> more) {
        var all = new LinkedHashMap<>(details);
        all.putAll(more);
        return new CampaignInput(name, createdAt, runs, pivotKey, all);
    }

    /** Points of the matrix that no shard reported. */
    public long missing() {
        return runs.stream().filter(Run::isMissing).count();
    }
}
