package io.faultline.harness.recovery;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.faultline.results.Liveness;

/**
 * recovery.json in a run folder: what the recovery check observed during the run, so that `analyze` judges it again
 * exactly as the run did. Times are ISO instants.
 *
 * @param bounds              the limits in force
 * @param healStartedAt       when the final heal began
 * @param healedAtHistoryNanos the end of the final heal on the history's clock (nanoseconds since the run began)
 * @param clusterStartedAt    when the cluster's nodes were started (the start of the log growth span)
 * @param clusterStoppedAt    when the nodes were stopped and their logs closed (its end); null if unknown
 * @param findings            the polls' timelines; null when none was made
 * @param unknownReason       why the check could not observe, else null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RecoveryRecord(Liveness.Bounds bounds, String healStartedAt, long healedAtHistoryNanos,
                             String clusterStartedAt, String clusterStoppedAt, RecoveryTracker.Findings findings,
                             String unknownReason) {
    public static final String FILE = "recovery.json";

    public RecoveryRecord withClusterStoppedAt(String at) {
        return new RecoveryRecord(bounds, healStartedAt, healedAtHistoryNanos, clusterStartedAt, at, findings, unknownReason);
    }
}
