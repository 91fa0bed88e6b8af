package io.faultline.broker.replication;

import io.faultline.broker.partition.Partition;
import io.faultline.broker.storage.EpochEndOffset;
import io.faultline.broker.storage.LogAppendInfo;
import io.faultline.broker.storage.LogReadResult;
import io.faultline.broker.storage.PartitionLog;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * The log operations replication needs from one local replica. {@link #of(Partition)} goes through the partition
 * so follower appends and truncations also keep its idempotent-producer state; {@link #of(PartitionLog)} is the bare
 * log (tests of the replication protocol alone).
 */
public interface ReplicaLog {
    TopicPartition topicPartition();

    long logStartOffset();

    long logEndOffset();

    long highWatermark();

    /** Moves the high watermark forward; throws on a backward move or a move past the log end. */
    void updateHighWatermark(long newHighWatermark);

    LogReadResult read(long fromOffset, int maxBytes, long maxOffsetExclusive);

    EpochEndOffset endOffsetForEpoch(int leaderEpoch);

    Optional<Integer> latestEpoch();

    /** A new leader records that its epoch starts at its log end (KAFKA-7415), before any append. */
    void assignEpochStartOffset(int leaderEpoch);

    /** Appends the leader's batches keeping their offsets and epochs. */
    LogAppendInfo appendAsFollower(MemoryRecords records);

    void truncateTo(long offset);

    void truncateFullyAndStartAt(long offset);

    /** Moves the log start offset forward (a follower taking the leader's, after DeleteRecords); never back. */
    void maybeIncrementLogStartOffset(long offset);

    static ReplicaLog of(PartitionLog log) {
        return new ReplicaLog() {
            @Override
            public TopicPartition topicPartition() {
                return log.topicPartition();
            }

            @Override
            public long logStartOffset() {
                return log.logStartOffset();
            }

            @Override
            public long logEndOffset() {
                return log.logEndOffset();
            }

            @Override
            public long highWatermark() {
                return log.highWatermark();
            }

            @Override
            public void updateHighWatermark(long hw) {
                log.updateHighWatermark(hw);
            }

            @Override
            public LogReadResult read(long fromOffset, int maxBytes, long maxOffsetExclusive) {
                return log.read(fromOffset, maxBytes, maxOffsetExclusive);
            }

            @Override
            public EpochEndOffset endOffsetForEpoch(int leaderEpoch) {
                return log.endOffsetForEpoch(leaderEpoch);
            }

            @Override
            public Optional<Integer> latestEpoch() {
                return log.latestEpoch();
            }

            @Override
            public void assignEpochStartOffset(int leaderEpoch) {
                log.assignEpochStartOffset(leaderEpoch);
            }

            @Override
            public LogAppendInfo appendAsFollower(MemoryRecords records) {
                return log.appendAsFollower(records);
            }

            @Override
            public void truncateTo(long offset) {
                log.truncateTo(offset);
            }

            @Override
            public void truncateFullyAndStartAt(long offset) {
                log.truncateFullyAndStartAt(offset);
            }

            @Override
            public void maybeIncrementLogStartOffset(long offset) {
                log.maybeIncrementLogStartOffset(offset);
            }

            @Override
            public String toString() {
                return log.toString();
            }
        };
    }

    /** Through the partition: follower appends and truncations keep its producer state. */
    static ReplicaLog of(Partition partition) {
        ReplicaLog bare = of(partition.log());
        return new ReplicaLog() {
            @Override
            public TopicPartition topicPartition() {
                return partition.topicPartition();
            }

            @Override
            public long logStartOffset() {
                return bare.logStartOffset();
            }

            @Override
            public long logEndOffset() {
                return bare.logEndOffset();
            }

            @Override
            public long highWatermark() {
                return bare.highWatermark();
            }

            @Override
            public void updateHighWatermark(long hw) {
                bare.updateHighWatermark(hw);
                // a consumer's fetch waiting on a follower (KIP-392) reads up to this; the leader wakes its own
                if (!partition.isLeader()) partition.wakeWaiters();
            }

            @Override
            public LogReadResult read(long fromOffset, int maxBytes, long maxOffsetExclusive) {
                return bare.read(fromOffset, maxBytes, maxOffsetExclusive);
            }

            @Override
            public EpochEndOffset endOffsetForEpoch(int leaderEpoch) {
                return bare.endOffsetForEpoch(leaderEpoch);
            }

            @Override
            public Optional<Integer> latestEpoch() {
                return bare.latestEpoch();
            }

            @Override
            public void assignEpochStartOffset(int leaderEpoch) {
                bare.assignEpochStartOffset(leaderEpoch);
            }

            @Override
            public LogAppendInfo appendAsFollower(MemoryRecords records) {
                return partition.appendAsFollower(records);
            }

            @Override
            public void truncateTo(long offset) {
                partition.truncateTo(offset);
            }

            @Override
            public void truncateFullyAndStartAt(long offset) {
                partition.truncateFullyAndStartAt(offset);
            }

            @Override
            public void maybeIncrementLogStartOffset(long offset) {
                bare.maybeIncrementLogStartOffset(offset);
            }

            @Override
            public String toString() {
                return partition.toString();
            }
        };
    }
}
