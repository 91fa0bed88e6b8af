package io.faultline.broker.replication;

/**
 * What the leader knows about one follower, from its fetches (Kafka's ReplicaState). Immutable; the leader's
 * {@link LeaderState} replaces it on each fetch.
 *
 * @param brokerId                    the follower
 * @param logEndOffset                its log end offset = the offset of its last fetch (-1 = unknown since this
 *                                    leadership started)
 * @param lastCaughtUpTimeMs          last time it was known to have everything the leader had
 * @param lastFetchTimeMs             time of its last fetch (-1 = none)
 * @param lastFetchLeaderLogEndOffset the leader's log end offset at that fetch
 * @param logStartOffset              its log start offset as its last fetch said (-1 = unknown)
 */
public record ReplicaState(int brokerId, long logEndOffset, long lastCaughtUpTimeMs, long lastFetchTimeMs,
                           long lastFetchLeaderLogEndOffset, long logStartOffset) {
    public static final long UNKNOWN = -1L;
    /** lastCaughtUpTimeMs of a replica never seen caught up (far enough back that no lag limit covers it). */
    static final long NEVER = Long.MIN_VALUE / 4;

    /** State at the start of a leadership: ISR members count as caught up now, the others never were. */
    static ReplicaState initial(int brokerId, boolean inSync, long nowMs) {
        return new ReplicaState(brokerId, UNKNOWN, inSync ? nowMs : NEVER, UNKNOWN, UNKNOWN, UNKNOWN);
    }

    /**
     * After a fetch at {@code fetchOffset} answered when the leader's log ended at {@code leaderEndOffset}. The
     * follower caught up now if it asked for the leader's end; it caught up at its previous fetch if it now asks
     * for at least what the leader had then (it fetched all of that in between).
     */
    ReplicaState afterFetch(long fetchOffset, long leaderEndOffset, long nowMs, long followerLogStartOffset) {
        long caughtUp = lastCaughtUpTimeMs;
        if (fetchOffset >= leaderEndOffset) caughtUp = Math.max(caughtUp, nowMs);
        else if (lastFetchLeaderLogEndOffset >= 0 && fetchOffset >= lastFetchLeaderLogEndOffset) {
            caughtUp = Math.max(caughtUp, lastFetchTimeMs);
        }
        return new ReplicaState(brokerId, fetchOffset, caughtUp, nowMs, leaderEndOffset, followerLogStartOffset);
    }

    /** In sync for ISR purposes: has the leader's end, or caught up within the lag limit. */
    boolean isCaughtUp(long leaderEndOffset, long nowMs, long lagMaxMs) {
        return logEndOffset == leaderEndOffset || nowMs - lastCaughtUpTimeMs <= lagMaxMs;
    }
}
