package io.faultline.broker.storage;

/**
 * Answer of OffsetForLeaderEpoch: the largest epoch &lt;= the requested one that this log knows and the offset
 * where it ended (start offset of the next epoch, or the log end offset for the latest epoch).
 * {@link #UNDEFINED} (-1, -1) when the requested epoch is unknown and newer than every known epoch.
 */
public record EpochEndOffset(int epoch, long endOffset) {
    public static final int UNDEFINED_EPOCH = -1;
    public static final long UNDEFINED_EPOCH_OFFSET = -1L;
    public static final EpochEndOffset UNDEFINED = new EpochEndOffset(UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET);

    public boolean isUndefined() {
        return epoch == UNDEFINED_EPOCH && endOffset == UNDEFINED_EPOCH_OFFSET;
    }
}
