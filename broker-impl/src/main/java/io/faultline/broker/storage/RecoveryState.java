package io.faultline.broker.storage;

/**
 * What the data directory's checkpoint files said about a partition when it is opened.
 *
 * @param recoveryPoint  first offset that may not be on disk (recovery-point-offset-checkpoint); data from here on
 *                       is re-validated when the shutdown was not clean
 * @param logStartOffset log-start-offset-checkpoint value (0 when unknown)
 * @param highWatermark  replication-offset-checkpoint value (0 when unknown); clamped to the recovered end
 * @param cleanShutdown  whether the clean-shutdown marker was present
 */
public record RecoveryState(long recoveryPoint, long logStartOffset, long highWatermark, boolean cleanShutdown) {
    /** Nothing known: validate the whole log. */
    public static final RecoveryState UNKNOWN = new RecoveryState(0, 0, 0, false);

    public RecoveryState {
        if (recoveryPoint < 0 || logStartOffset < 0 || highWatermark < 0) {
            throw new IllegalArgumentException("negative offsets in " + recoveryPointString(recoveryPoint, logStartOffset, highWatermark));
        }
    }

    private static String recoveryPointString(long rp, long lso, long hw) {
        return "recoveryPoint=" + rp + " logStartOffset=" + lso + " highWatermark=" + hw;
    }
}
