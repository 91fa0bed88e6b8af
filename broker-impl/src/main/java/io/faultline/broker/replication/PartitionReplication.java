package io.faultline.broker.replication;

import io.faultline.broker.common.Time;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replication side of one local replica's role changes: leading starts a {@link LeaderState} (new epoch at
 * the log end) and stops fetching; following drops the leader state, truncates to the high watermark in
 * {@link TruncationMode#HIGH_WATERMARK} mode (pre-KIP-101), and fetches from the leader. Epochs only move
 * forward; an older one is a stale decision and throws.
 */
public final class PartitionReplication {
    private static final Logger log = LoggerFactory.getLogger(PartitionReplication.class);

    private final int localId;
    private final TopicPartition tp;
    private final Uuid topicId;
    private final ReplicaLog replicaLog;
    private final Time time;
    private final ReplicaFetcherManager fetchers;
    private final IsrChangeSender isrSender;
    private final Runnable onHighWatermarkMoved;
    private volatile LeaderState leader;
    private int epoch = -1;
    private int followedLeader = -1;

    public PartitionReplication(int localId, TopicPartition tp, Uuid topicId, ReplicaLog replicaLog, Time time,
                                ReplicaFetcherManager fetchers, IsrChangeSender isrSender, Runnable onHighWatermarkMoved) {
        this.localId = localId;
        this.tp = tp;
        this.topicId = topicId;
        this.replicaLog = replicaLog;
        this.time = time;
        this.fetchers = fetchers;
        this.isrSender = isrSender;
        this.onHighWatermarkMoved = onHighWatermarkMoved;
    }

    public synchronized LeaderState becomeLeader(LeaderState.Assignment a) {
        requireNotOlder(a.leaderEpoch());
        // After a restart the in-memory epoch is gone, but the log remembers the newest epoch it holds: a leadership
        // older than that is a replayed, stale decision (see PartitionLog#assignEpochStartOffset).
        int logEpoch = replicaLog.latestEpoch().orElse(-1);
        if (a.leaderEpoch() < logEpoch) {
            throw new IllegalStateException(tp + ": leadership in epoch " + a.leaderEpoch()
                    + " is older than epoch " + logEpoch + " in our log");
        }
        fetchers.removePartition(tp);
        epoch = a.leaderEpoch();
        followedLeader = -1;
        leader = new LeaderState(localId, a, replicaLog, time, fetchers.config(), isrSender, onHighWatermarkMoved);
        log.info("{}: leader in epoch {} from offset {} (ISR {})", tp, epoch, leader.leaderEpochStartOffset(), a.isr());
        return leader;
    }

    public synchronized void becomeFollower(int leaderEpoch, int leaderId) {
        requireNotOlder(leaderEpoch);
        leader = null;
        fetchers.removePartition(tp);
        epoch = leaderEpoch;
        followedLeader = leaderId;
        if (fetchers.config().truncation() == TruncationMode.HIGH_WATERMARK
                && !fetchers.config().bugs().on(io.faultline.broker.common.SeededBug.FOLLOWER_NO_TRUNCATE)) {
            long hw = replicaLog.highWatermark();
            log.info("{}: follower of {} in epoch {}; truncating to our high watermark {} (high-watermark mode)", tp,
                    leaderId, leaderEpoch, hw);
            replicaLog.truncateTo(hw);
        } else {
            // the report's state timeline reads role changes from this line
            log.info("{}: follower of {} in epoch {}", tp, leaderId, leaderEpoch);
        }
        if (leaderId >= 0 && leaderId != localId) fetchers.addPartition(leaderId, tp, topicId, replicaLog, leaderEpoch);
    }

    /** Already following {@code leaderId} in {@code leaderEpoch} (an ISR-only change needs no restart). */
    public synchronized boolean isFollowing(int leaderEpoch, int leaderId) {
        return leader == null && epoch == leaderEpoch && followedLeader == leaderId;
    }

    /** The partition goes away or offline here: nothing leads or fetches. */
    public synchronized void stop() {
        leader = null;
        fetchers.removePartition(tp);
    }

    public Optional<LeaderState> leader() {
        return Optional.ofNullable(leader);
    }

    public ReplicaLog replicaLog() {
        return replicaLog;
    }

    private void requireNotOlder(int newEpoch) {
        if (newEpoch < epoch) throw new IllegalStateException(tp + ": epoch " + newEpoch + " is older than " + epoch);
    }
}
