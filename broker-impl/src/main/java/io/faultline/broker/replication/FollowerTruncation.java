package io.faultline.broker.replication;

import io.faultline.broker.storage.EpochEndOffset;

/**
 * Where a follower cuts its log, given the leader's answer for the follower's last epoch (the diverging epoch of
 * a Fetch response, or an OffsetForLeaderEpoch answer). Kafka's getOffsetTruncationState: never cut below what
 * both logs share.
 */
public final class FollowerTruncation {
    private FollowerTruncation() {
    }

    /**
     * The offset to truncate to. When the leader does not know the epoch at all, the high watermark is the only
     * safe bound. When the follower's own log does not know the epoch the leader answered with, cut to the end of
     * its largest smaller epoch; the next fetch (with that epoch as lastFetchedEpoch) asks again, so the cut
     * converges on the first offset where the logs differ. Otherwise the smaller of the two epoch ends.
     */
    public static long offsetFor(EpochEndOffset leader, ReplicaLog follower) {
        long leo = follower.logEndOffset();
        if (leader.epoch() == EpochEndOffset.UNDEFINED_EPOCH || leader.endOffset() == EpochEndOffset.UNDEFINED_EPOCH_OFFSET) {
            return Math.min(follower.highWatermark(), leo);
        }
        EpochEndOffset own = follower.endOffsetForEpoch(leader.epoch());
        if (own.isUndefined()) {
            // This log kept no epochs that far back; the leader's end of that epoch bounds the shared prefix.
            return Math.min(leader.endOffset(), leo);
        }
        if (own.epoch() != leader.epoch()) return Math.min(own.endOffset(), leo);
        return Math.min(Math.min(own.endOffset(), leader.endOffset()), leo);
    }
}
