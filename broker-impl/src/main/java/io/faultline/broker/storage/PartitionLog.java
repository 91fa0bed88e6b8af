package io.faultline.broker.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * One partition's log in directory {@code <topic>-<partition>}: Kafka-format segments
 * ({@code 00000000000000000000.log/.index/.timeindex}), a leader epoch cache (leader-epoch-checkpoint), a high
 * watermark, and the flush / retention / compaction policies of its {@link LogConfig}.
 *
 * <p>Thread-safety: one writer, many readers. All mutating methods (appends, truncation, flush, retention,
 * compaction, close) are serialized internally, so calling them from several threads is safe but they run one at
 * a time; {@link #read} and the getters never wait for an append in progress and see only whole appended batches.
 *
 * <p>Errors: {@link org.apache.kafka.common.errors.OffsetOutOfRangeException} for reads outside
 * [logStartOffset, logEndOffset]; {@link org.apache.kafka.common.errors.CorruptRecordException} for batches that
 * fail CRC or size checks; {@link org.apache.kafka.common.errors.RecordTooLargeException} above max.message.bytes;
 * {@link org.apache.kafka.common.InvalidRecordException} for malformed batches (wrong magic, inconsistent offsets,
 * null keys on a compacted topic); {@link NonContiguousAppendException} when a follower append does not start at
 * the log end offset; {@link IllegalArgumentException} / {@link IllegalStateException} when a caller breaks an
 * invariant (high watermark moving backward or past the end); {@link java.io.UncheckedIOException} for disk errors.
 */
public final class PartitionLog implements Closeable {

    /** ListOffsets special timestamps, as Kafka's ListOffsetsRequest defines them. */
    public static final long LATEST_TIMESTAMP = -1L;
    public static final long EARLIEST_TIMESTAMP = -2L;
    public static final long MAX_TIMESTAMP = -3L;

    private PartitionLog() {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Opens (creating if needed) the log in {@code dir}, recovering it: from {@code state.recoveryPoint()} every
     * batch is validated (or from the start of the tail when the shutdown was not clean), the files are cut at the
     * first bad byte, indexes and the leader epoch cache are rebuilt. Never fails on corrupt data, only on I/O
     * errors.
     */
    public static PartitionLog open(Path dir, LogConfig config, LogClock clock, RecoveryState state) throws IOException {
        throw new UnsupportedOperationException("not yet");
    }

    /** Parses {@code <topic>-<partition>} from a partition directory name. */
    public static TopicPartition parseTopicPartition(Path dir) {
        throw new UnsupportedOperationException("not yet");
    }

    /** Directory name for a partition: {@code <topic>-<partition>}. */
    public static String dirName(TopicPartition tp) {
        return tp.topic() + "-" + tp.partition();
    }

    /**
     * Leader append: assigns offsets from the log end offset, stamps {@code leaderEpoch} as partitionLeaderEpoch
     * (and the broker time when message.timestamp.type=LogAppendTime), records the epoch in the cache, appends.
     * The buffer of {@code records} is modified in place. Only magic v2 batches are accepted.
     */
    public LogAppendInfo appendAsLeader(MemoryRecords records, int leaderEpoch) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Follower append: batches are appended exactly as received (offsets, epochs and timestamps kept). The first
     * batch must start at the log end offset and offsets must be contiguous (with cleanup.policy=compact gaps
     * between batches are allowed, as compaction leaves them). Epochs found in the batches enter the cache.
     */
    public LogAppendInfo appendAsFollower(MemoryRecords records) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Reads whole batches starting with the one that contains {@code fromOffset}, from a single segment, at most
     * {@code maxBytes} bytes except that the first batch is always returned whole; only batches whose last offset
     * is below {@code maxOffsetExclusive} are returned (pass the high watermark for consumers, Long.MAX_VALUE for
     * followers).
     *
     * @throws org.apache.kafka.common.errors.OffsetOutOfRangeException outside [logStartOffset, logEndOffset]
     */
    public LogReadResult read(long fromOffset, int maxBytes, long maxOffsetExclusive) {
        throw new UnsupportedOperationException("not yet");
    }

    public TopicPartition topicPartition() {
        throw new UnsupportedOperationException("not yet");
    }

    public Path dir() {
        throw new UnsupportedOperationException("not yet");
    }

    public LogConfig config() {
        throw new UnsupportedOperationException("not yet");
    }

    /** Offset the next appended record will get. */
    public long logEndOffset() {
        throw new UnsupportedOperationException("not yet");
    }

    /** First offset that may be read. */
    public long logStartOffset() {
        throw new UnsupportedOperationException("not yet");
    }

    /** Offsets below this are durable on disk (advanced only by flushes). */
    public long recoveryPoint() {
        throw new UnsupportedOperationException("not yet");
    }

    public long highWatermark() {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Moves the high watermark forward.
     *
     * @throws IllegalArgumentException if it would move backward or past the log end offset
     */
    public void updateHighWatermark(long newHighWatermark) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Sets the high watermark without the monotonic check, clamped to [logStartOffset, logEndOffset]: for a
     * follower learning the leader's value after truncation, or restoring a checkpoint.
     */
    public void resetHighWatermark(long highWatermark) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * ListOffsets: the first record with timestamp &gt;= {@code timestamp}, found through the time index, or one
     * of the special values {@link #LATEST_TIMESTAMP}, {@link #EARLIEST_TIMESTAMP}, {@link #MAX_TIMESTAMP}.
     * Empty when no record is that new.
     */
    public Optional<TimestampAndOffset> offsetForTimestamp(long timestamp) {
        throw new UnsupportedOperationException("not yet");
    }

    /** OffsetForLeaderEpoch with Kafka's semantics (KIP-101/KIP-279); see {@link LeaderEpochCache#endOffsetFor}. */
    public EpochEndOffset endOffsetForEpoch(int leaderEpoch) {
        throw new UnsupportedOperationException("not yet");
    }

    /** Latest leader epoch in the cache, if any. */
    public Optional<Integer> latestEpoch() {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Removes every record at or after {@code offset} (a follower's truncation on divergence). No-op if offset &gt;=
     * log end offset. Truncates the epoch cache, and clamps recovery point and high watermark.
     */
    public void truncateTo(long offset) {
        throw new UnsupportedOperationException("not yet");
    }

    /** Deletes everything and restarts the log empty at {@code offset} (log start = end = offset). */
    public void truncateFullyAndStartAt(long offset) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * DeleteRecords: raises the log start offset (never beyond the high watermark); whole segments below it are
     * deleted by the next {@link #deleteOldSegments()}.
     */
    public void maybeIncrementLogStartOffset(long newLogStartOffset) {
        throw new UnsupportedOperationException("not yet");
    }

    /** Forces a new active segment now. */
    public void roll() {
        throw new UnsupportedOperationException("not yet");
    }

    /** fsyncs everything up to the log end offset and advances the recovery point to it. */
    public void flush() {
        throw new UnsupportedOperationException("not yet");
    }

    /** Applies flush.ms: flushes when the oldest unflushed append is older than flush.ms. */
    public void flushIfDue() {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Retention (only for cleanup.policy containing delete, plus log-start-offset deletions for any policy):
     * deletes whole segments below the high watermark by time, size and log start offset, renaming them to
     * {@code .deleted}; returns the number of segments deleted.
     */
    public int deleteOldSegments() {
        throw new UnsupportedOperationException("not yet");
    }

    /** Physically removes {@code .deleted} files older than file.delete.delay.ms. */
    public void removeDeletedFiles() {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Compaction (cleanup.policy containing compact): keeps the latest record per key in closed segments below the
     * high watermark, drops tombstones after delete.retention.ms; offsets are preserved. Returns bytes removed.
     */
    public long compact() {
        throw new UnsupportedOperationException("not yet");
    }

    public int numberOfSegments() {
        throw new UnsupportedOperationException("not yet");
    }

    /** Bytes of all segments' .log files. */
    public long size() {
        throw new UnsupportedOperationException("not yet");
    }

    /** Flushes and closes files; the log must not be used afterwards. */
    @Override
    public void close() {
        throw new UnsupportedOperationException("not yet");
    }

    /** Closes and deletes the whole directory. */
    public void delete() {
        throw new UnsupportedOperationException("not yet");
    }
}
