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
 */
public record CampaignInput(String name, Instant createdAt, List<Run> runs, String pivotKey) {

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
     */
    public record Run(Map<String, String> config, Path runDir, String verdict, Map<String, Long> anomalyCounts,
                      double availability, double availabilityDuringFaults, double okOpsPerSecond) {
        public Run {
            config = config == null ? Map.of() : new LinkedHashMap<>(config);
            anomalyCounts = anomalyCounts == null ? Map.of() : new LinkedHashMap<>(anomalyCounts);
            verdict = verdict == null ? "unknown" : verdict;
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
    }

    public CampaignInput(String name, Instant createdAt, List<Run> runs) {
        this(name, createdAt, runs, "nemesis");
    }
}
