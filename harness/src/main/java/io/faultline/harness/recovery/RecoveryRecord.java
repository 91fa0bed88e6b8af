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
 * @param quiescedSeconds     how long the healed cluster had taken no write (the last one's end to the stop; the final
 *                            drain and the audit only read) before it was stopped (0: not measured): long enough,
 *                            every replica has checkpointed its final high watermark
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RecoveryRecord(Liveness.Bounds bounds, String healStartedAt, long healedAtHistoryNanos,
                             String clusterStartedAt, String clusterStoppedAt, RecoveryTracker.Findings findings,
                             String unknownReason, double quiescedSeconds) {
    public static final String FILE = "recovery.json";
    /**
     * The idle time after which replicas' checkpointed high watermarks must agree: both systems checkpoint every 5 s
     * (Kafka's replica.high.watermark.checkpoint.interval.ms, broker-impl's maintenance interval), and a follower
     * learns the final high watermark within a fetch or two.
     */
    public static final double CONVERGED_AFTER_SECONDS = 6;

    public RecoveryRecord(Liveness.Bounds bounds, String healStartedAt, long healedAtHistoryNanos, String clusterStartedAt,
                          String clusterStoppedAt, RecoveryTracker.Findings findings, String unknownReason) {
        this(bounds, healStartedAt, healedAtHistoryNanos, clusterStartedAt, clusterStoppedAt, findings, unknownReason, 0);
    }

    public RecoveryRecord withClusterStoppedAt(String at) {
        return new RecoveryRecord(bounds, healStartedAt, healedAtHistoryNanos, clusterStartedAt, at, findings, unknownReason,
                quiescedSeconds);
    }

    public RecoveryRecord withQuiesced(double seconds) {
        return new RecoveryRecord(bounds, healStartedAt, healedAtHistoryNanos, clusterStartedAt, clusterStoppedAt, findings,
                unknownReason, seconds);
    }
}
