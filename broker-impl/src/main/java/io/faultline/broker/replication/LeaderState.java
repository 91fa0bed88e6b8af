package io.faultline.broker.replication;

import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.Time;
import io.faultline.broker.storage.EpochEndOffset;
import io.faultline.broker.storage.LogReadResult;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.UnknownLeaderEpochException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One leadership of one partition (a leader epoch): the followers' fetch state, the ISR with its pending change,
 * and the high watermark. The single owner of high-watermark moves and ISR decisions on the leader; every method
 * is synchronized on this object.
 *
 * <p>High watermark: the smallest log end offset over the leader and every follower that is in the maximal ISR or
 * caught up; it only moves forward ({@link ReplicaLog#updateHighWatermark} throws on a backward move).
 * ISR: shrink and expand are proposed through {@link IsrChangeSender} and applied once committed.
 */
public final class LeaderState {
    private static final Logger log = LoggerFactory.getLogger(LeaderState.class);

    /** What committed metadata says about this leadership. */
    public record Assignment(TopicPartition tp, Uuid topicId, int leaderEpoch, List<Integer> replicas,
                             Set<Integer> isr, int partitionEpoch, int minInsyncReplicas) {
        public Assignment {
            replicas = List.copyOf(replicas);
            isr = Set.copyOf(isr);
            if (!replicas.containsAll(isr)) throw new IllegalArgumentException("ISR " + isr + " not within " + replicas);
        }
    }

    /** The leader's answer to a follower's fetch of one partition. */
    public record FollowerRead(Optional<LogReadResult> read, Optional<EpochEndOffset> divergingEpoch,
                               long highWatermark, long logStartOffset, long logEndOffset) {
    }

    private final int localId;
    private final TopicPartition tp;
    private final Uuid topicId;
    private final int leaderEpoch;
    private final long leaderEpochStartOffset;
    private final List<Integer> replicas;
    private int minInsyncReplicas; // guarded by this; follows the topic config
    private final ReplicaLog replicaLog;
    private final Time time;
    private final ReplicationConfig config;
    private final IsrChangeSender isrSender;
    /**
     * Called (outside no lock in particular) when the high watermark or the low watermark moved, to wake acks=all
     * produces and record deletions.
     */
    private final Runnable onHighWatermarkMoved;
    private final Map<Integer, ReplicaState> remotes = new HashMap<>();
    /** Whether a broker may join the ISR now (registered, unfenced, not shutting down: KIP-841). */
    private volatile java.util.function.IntPredicate eligibleForIsr = id -> true;
    private IsrState isrState;

    /**
     * Starts a leadership: records the new epoch at the log end in the epoch cache (before any append), and
     * treats ISR members as caught up now with an unknown log end, so the high watermark waits for their fetches.
     */
    public LeaderState(int localId, Assignment a, ReplicaLog replicaLog, Time time, ReplicationConfig config,
                       IsrChangeSender isrSender, Runnable onHighWatermarkMoved) {
        if (!a.replicas().contains(localId) || !a.isr().contains(localId)) {
            throw new IllegalArgumentException("leader " + localId + " must be a replica and in the ISR: " + a);
        }
        this.localId = localId;
        this.tp = a.tp();
        this.topicId = a.topicId();
        this.leaderEpoch = a.leaderEpoch();
        this.replicas = a.replicas();
        this.minInsyncReplicas = a.minInsyncReplicas();
        this.replicaLog = replicaLog;
        this.time = time;
        this.config = config;
        this.isrSender = isrSender;
        this.onHighWatermarkMoved = onHighWatermarkMoved;
        replicaLog.assignEpochStartOffset(leaderEpoch);
        this.leaderEpochStartOffset = replicaLog.logEndOffset();
        this.isrState = new IsrState.Committed(a.isr(), a.partitionEpoch());
        long now = time.milliseconds();
        for (int r : replicas) if (r != localId) remotes.put(r, ReplicaState.initial(r, a.isr().contains(r), now));
        maybeIncrementHighWatermark();
    }

    public int leaderEpoch() {
        return leaderEpoch;
    }

    /** Limits ISR expansion to brokers the metadata says are eligible (the controller would refuse the others). */
    public void setEligibleForIsr(java.util.function.IntPredicate eligible) {
        this.eligibleForIsr = eligible;
    }

    public long leaderEpochStartOffset() {
        return leaderEpochStartOffset;
    }

    public List<Integer> replicas() {
        return replicas;
    }

    public synchronized IsrState isrState() {
        return isrState;
    }

    public synchronized Optional<ReplicaState> replicaState(int brokerId) {
        return Optional.ofNullable(remotes.get(brokerId));
    }

    public long highWatermark() {
        return replicaLog.highWatermark();
    }

    public long logEndOffset() {
        return replicaLog.logEndOffset();
    }

    public long logStartOffset() {
        return replicaLog.logStartOffset();
    }

    public EpochEndOffset endOffsetForEpoch(int epoch) {
        return replicaLog.endOffsetForEpoch(epoch);
    }

    /** KIP-320 fencing: -1 means the requester does not know; older is fenced, newer is not known here yet. */
    public void validateLeaderEpoch(int requestEpoch) {
        if (requestEpoch < 0) return;
        if (requestEpoch < leaderEpoch) {
            throw new FencedLeaderEpochException(tp + ": epoch " + requestEpoch + " is older than " + leaderEpoch);
        }
        if (requestEpoch > leaderEpoch) {
            throw new UnknownLeaderEpochException(tp + ": epoch " + requestEpoch + " is newer than " + leaderEpoch);
        }
    }

    // ---- produce ----

    /** The topic's min.insync.replicas changed: appends and pending acks=all answers are judged by the new value. */
    public synchronized void setMinInsyncReplicas(int minIsr) {
        if (minIsr < 1) throw new IllegalArgumentException(tp + ": min.insync.replicas must be >= 1, got " + minIsr);
        this.minInsyncReplicas = minIsr;
    }

    /** acks=all is refused before the append when the committed ISR is smaller than min.insync.replicas. */
    public synchronized void checkEnoughReplicasForAppend(short acks) {
        if (acks == -1 && isrState.isr().size() < minInsyncReplicas && !minIsrIgnored()) {
            throw new NotEnoughReplicasException(tp + ": ISR " + isrState.isr() + " is smaller than min.insync.replicas "
                    + minInsyncReplicas);
        }
    }

    /**
     * Whether an acks=all append ending before {@code requiredOffset} is done: empty while the high watermark is
     * below it; then NONE, or NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR shrank under min.insync.replicas
     * meanwhile (the records stay in the log).
     */
    public synchronized Optional<Errors> ackStatus(long requiredOffset) {
        if (config.bugs().on(SeededBug.ACKS_ALL_LEADER_ONLY)) return Optional.of(Errors.NONE); // seeded: no wait
        if (replicaLog.highWatermark() < requiredOffset) return Optional.empty();
        return Optional.of(isrState.maximalIsr().size() >= minInsyncReplicas || minIsrIgnored() ? Errors.NONE
                : Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
    }

    /** Seeded bug min-isr-ignored: acks=all is answered as if the ISR were always big enough. */
    private boolean minIsrIgnored() {
        return config.bugs().on(SeededBug.MIN_ISR_IGNORED);
    }

    /** After a leader append: with no other in-sync replica the high watermark follows the log end at once. */
    public void onLeaderAppend() {
        if (maybeIncrementHighWatermark()) onHighWatermarkMoved.run();
    }

    // ---- followers ----

    /**
     * A follower's fetch: checks its epochs, finds divergence (KIP-320: its last fetched epoch ended earlier here,
     * or is unknown here), else reads up to the log end and records its progress. A diverging answer carries no
     * records and does not update the follower's state (KAFKA-13141).
     *
     * @throws org.apache.kafka.common.errors.OffsetOutOfRangeException outside the leader's log
     */
    public FollowerRead readForFollower(int replicaId, long fetchOffset, int lastFetchedEpoch, int currentLeaderEpoch,
                                        int maxBytes) {
        return readForFollower(replicaId, fetchOffset, lastFetchedEpoch, currentLeaderEpoch, maxBytes, ReplicaState.UNKNOWN);
    }

    /** As above, with the log start offset the follower's fetch reports (for the {@linkplain #lowWatermark low watermark}). */
    public FollowerRead readForFollower(int replicaId, long fetchOffset, int lastFetchedEpoch, int currentLeaderEpoch,
                                        int maxBytes, long followerLogStartOffset) {
        validateLeaderEpoch(currentLeaderEpoch);
        if (!remotes.containsKey(replicaId)) {
            throw new NotLeaderOrFollowerException("broker " + replicaId + " is not a replica of " + tp);
        }
        if (lastFetchedEpoch >= 0) {
            EpochEndOffset end = replicaLog.endOffsetForEpoch(lastFetchedEpoch);
            if (end.epoch() < lastFetchedEpoch || end.endOffset() < fetchOffset) {
                return new FollowerRead(Optional.empty(), Optional.of(end), replicaLog.highWatermark(),
                        replicaLog.logStartOffset(), replicaLog.logEndOffset());
            }
        }
        long leaderEnd = replicaLog.logEndOffset();
        LogReadResult read = replicaLog.read(fetchOffset, maxBytes, Long.MAX_VALUE);
        if (onFollowerFetch(replicaId, fetchOffset, leaderEnd, followerLogStartOffset)) onHighWatermarkMoved.run();
        return new FollowerRead(Optional.of(read), Optional.empty(), replicaLog.highWatermark(),
                replicaLog.logStartOffset(), leaderEnd);
    }

    /**
     * Records a follower's fetch; may propose an ISR expansion; returns whether the high watermark or the low
     * watermark moved (either may complete a waiting request).
     */
    synchronized boolean onFollowerFetch(int replicaId, long fetchOffset, long leaderEndOffset, long followerLogStartOffset) {
        ReplicaState before = remotes.get(replicaId);
        long lowBefore = lowWatermark();
        remotes.put(replicaId, before.afterFetch(fetchOffset, leaderEndOffset, time.milliseconds(), followerLogStartOffset));
        maybeExpandIsr(replicaId);
        boolean hwMoved = maybeIncrementHighWatermark();
        return hwMoved || lowWatermark() != lowBefore;
    }

    /**
     * The partition's low watermark (KIP-107, Kafka's lowWatermarkIfLeader): the lowest log start offset of this
     * leader and of every follower that is live (eligible for the ISR) and has the high watermark. A DeleteRecords is
     * answered once it reaches the asked offset, so no replica that may lead next still serves what was deleted.
     */
    public synchronized long lowWatermark() {
        long low = replicaLog.logStartOffset();
        long hw = replicaLog.highWatermark();
        for (ReplicaState s : remotes.values()) {
            if (!eligibleForIsr.test(s.brokerId()) || s.logEndOffset() < hw) continue; // an unknown end (-1) too
            low = Math.min(low, Math.max(0, s.logStartOffset()));
        }
        return low;
    }

    private void maybeExpandIsr(int replicaId) {
        if (isrState.isPending() || isrState.isr().contains(replicaId) || !eligibleForIsr.test(replicaId)) return;
        ReplicaState s = remotes.get(replicaId);
        // KAFKA-7128: caught up to the HW *and* into this epoch, else it may lack data the HW does not cover yet.
        if (s.logEndOffset() < replicaLog.highWatermark() || s.logEndOffset() < leaderEpochStartOffset) return;
        IsrState.PendingExpand pending = new IsrState.PendingExpand(isrState.lastCommitted(), replicaId);
        log.info("{}: proposing to add {} to ISR {} (its end {})", tp, replicaId, isrState.isr(), s.logEndOffset());
        propose(pending, pending.proposedIsr());
    }

    /**
     * Periodic check (every replica.lag.time.max.ms / 2), and at once when brokers are fenced or unfenced: followers
     * in the ISR that have not caught up for replica.lag.time.max.ms, or that the metadata says are no longer eligible
     * (fenced, shutting down), are proposed for removal. Returns whether a shrink was proposed.
     */
    public boolean maybeShrinkIsr() {
        boolean shrunk;
        boolean hwMoved;
        synchronized (this) {
            shrunk = shrinkIsrLocked();
            // Also the moment a follower outside the ISR stops counting as caught up (its lag window ended): without
            // this the high watermark waited for the next append or fetch, and acks=all produces blocked on it
            // (no appends come while they block) stayed stuck until the producers' delivery timeout.
            hwMoved = maybeIncrementHighWatermark();
        }
        if (hwMoved) onHighWatermarkMoved.run(); // outside the lock, as every other HW move
        return shrunk;
    }

    private boolean shrinkIsrLocked() {
        if (isrState.isPending()) return false;
        long now = time.milliseconds();
        long leaderEnd = replicaLog.logEndOffset();
        Set<Integer> outOfSync = new HashSet<>();
        for (int r : isrState.isr()) {
            if (r == localId) continue;
            // A fenced or shutting-down member goes at once: waiting out its lag time would stall acks=all.
            if (!remotes.get(r).isCaughtUp(leaderEnd, now, config.replicaLagTimeMaxMs()) || !eligibleForIsr.test(r)) {
                outOfSync.add(r);
            }
        }
        if (outOfSync.isEmpty()) return false;
        if (config.bugs().on(SeededBug.ISR_SHRINK_LOCAL)) {
            // Seeded bug: the controller never hears of it, so it may later elect a replica this leader left behind.
            Set<Integer> smaller = new HashSet<>(isrState.isr());
            smaller.removeAll(outOfSync);
            log.info("{}: removing {} from ISR {} locally only (seeded bug)", tp, outOfSync, isrState.isr());
            isrState = new IsrState.Committed(smaller, isrState.lastCommitted().partitionEpoch());
            return true;
        }
        IsrState.PendingShrink pending = new IsrState.PendingShrink(isrState.lastCommitted(), outOfSync);
        log.info("{}: proposing to remove {} from ISR {} (leader end {})", tp, outOfSync, isrState.isr(), leaderEnd);
        propose(pending, pending.proposedIsr());
        return true;
    }

    private void propose(IsrState pending, Set<Integer> newIsr) {
        isrState = pending;
        IsrChangeSender.Proposal p = new IsrChangeSender.Proposal(tp, topicId, localId, leaderEpoch, newIsr,
                pending.partitionEpoch());
        isrSender.submit(p, result -> onIsrChangeResult(pending, result));
    }

    /** The controller's answer to a proposal; ignored if another change or leadership replaced it meanwhile. */
    void onIsrChangeResult(IsrState proposed, IsrChangeSender.Result result) {
        boolean moved;
        synchronized (this) {
            if (isrState != proposed) return;
            if (result instanceof IsrChangeSender.Result.Committed c) {
                if (c.leaderEpoch() != leaderEpoch) return; // a newer leadership is coming through metadata
                isrState = new IsrState.Committed(c.isr(), c.partitionEpoch());
                log.info("{}: ISR is now {} (partition epoch {})", tp, c.isr(), c.partitionEpoch());
            } else if (result instanceof IsrChangeSender.Result.Rejected r) {
                // FENCED_LEADER_EPOCH / INVALID_UPDATE_VERSION: new metadata is on its way and replaces this
                // leadership; anything else: drop the proposal, the next check proposes again.
                log.info("{}: ISR change {} rejected: {}", tp, proposed, r.error());
                if (r.error() == Errors.FENCED_LEADER_EPOCH || r.error() == Errors.INVALID_UPDATE_VERSION) return;
                isrState = proposed.lastCommitted();
            }
            moved = maybeIncrementHighWatermark();
        }
        if (moved) onHighWatermarkMoved.run();
    }

    /** Committed metadata carried an ISR change for this same leadership (newer partition epoch wins). */
    public void onCommittedIsr(Set<Integer> isr, int partitionEpoch) {
        boolean moved;
        synchronized (this) {
            if (partitionEpoch <= isrState.lastCommitted().partitionEpoch()) return;
            isrState = new IsrState.Committed(isr, partitionEpoch);
            moved = maybeIncrementHighWatermark();
        }
        if (moved) onHighWatermarkMoved.run();
    }

    /**
     * HW = min(leader end, end of every follower in the maximal ISR, or caught up and eligible to join it). Followers
     * whose end is unknown since this leadership started hold it where it is. A caught-up follower outside the ISR
     * that the metadata says is fenced or shutting down is not waited for (Kafka's shouldWaitForReplicaToJoinIsr,
     * KIP-841): it cannot join, and waiting out its lag time stalled every acks=all write after a follower died.
     * Members of the ISR always count until the controller commits their removal, so that no replica that could
     * still be elected lacks what the HW covers.
     */
    private synchronized boolean maybeIncrementHighWatermark() {
        long leaderEnd = replicaLog.logEndOffset();
        long now = time.milliseconds();
        long newHw = leaderEnd;
        Set<Integer> maximal = isrState.maximalIsr();
        // Seeded bug hw-from-leader-leo: the followers' progress is ignored.
        if (!config.bugs().on(SeededBug.HW_FROM_LEADER_LEO)) for (ReplicaState s : remotes.values()) {
            if (maximal.contains(s.brokerId()) || (s.isCaughtUp(leaderEnd, now, config.replicaLagTimeMaxMs())
                    && eligibleForIsr.test(s.brokerId()))) {
                newHw = Math.min(newHw, s.logEndOffset());
            }
        }
        long old = replicaLog.highWatermark();
        if (newHw <= old) return false;
        replicaLog.updateHighWatermark(newHw);
        return true;
    }

    @Override
    public synchronized String toString() {
        return "LeaderState(" + tp + " epoch " + leaderEpoch + ", " + isrState + ", hw " + replicaLog.highWatermark()
                + ", " + remotes.values() + ")";
    }
}
