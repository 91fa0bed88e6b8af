package io.faultline.broker.storage;

import io.faultline.broker.common.Time;
import io.faultline.broker.common.FileRegionRecords;
import io.faultline.broker.storage.RecordBatchAdapter.BatchHeader;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
    private static final Logger log = LoggerFactory.getLogger(PartitionLog.class);

    /** ListOffsets special timestamps, as Kafka's ListOffsetsRequest defines them. */
    public static final long LATEST_TIMESTAMP = -1L;
    public static final long EARLIEST_TIMESTAMP = -2L;
    public static final long MAX_TIMESTAMP = -3L;

    private final TopicPartition topicPartition;
    private final Path dir;
    private final Time clock;
    private volatile LogConfig config;
    private final LeaderEpochCache epochCache;
    /** Segments by base offset; the last is the active one. Structural changes hold {@link #structure}'s write lock. */
    private final ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();
    /** Readers hold the read lock; truncation, deletion and segment swaps hold the write lock. Appends hold neither. */
    private final ReentrantReadWriteLock structure = new ReentrantReadWriteLock();
    /** Serializes writers (appends, truncation, flush, retention, compaction, close). */
    private final ReentrantLock writer = new ReentrantLock();
    private final PendingDeletes pendingDeletes = new PendingDeletes();

    private volatile LogSegment active;
    private volatile long logEndOffset;
    private volatile long logStartOffset;
    private volatile long highWatermark;
    private volatile long recoveryPoint;
    private long unflushedRecords;
    private long firstUnflushedAppendMs = -1;
    private boolean directoryDirty;
    private volatile boolean closed;

    private PartitionLog(TopicPartition tp, Path dir, LogConfig config, Time clock, LeaderEpochCache epochCache) {
        this.topicPartition = tp;
        this.dir = dir;
        this.config = config;
        this.clock = clock;
        this.epochCache = epochCache;
    }

    /**
     * Opens (creating if needed) the log in {@code dir}, recovering it: from {@code state.recoveryPoint()} every
     * batch is validated (or from the start of the tail when the shutdown was not clean), the files are cut at the
     * first bad byte, indexes and the leader epoch cache are rebuilt. Never fails on corrupt data, only on I/O
     * errors.
     */
    public static PartitionLog open(Path dir, LogConfig config, Time clock, RecoveryState state) throws IOException {
        return open(dir, config, clock, state, io.faultline.broker.common.SeededBugs.NONE);
    }

    /** As above, with the seeded bugs of this node (recovery-keeps-torn-batch). */
    public static PartitionLog open(Path dir, LogConfig config, Time clock, RecoveryState state,
                                    io.faultline.broker.common.SeededBugs bugs) throws IOException {
        Files.createDirectories(dir);
        TopicPartition tp = LogFileNames.topicPartitionOf(dir);
        LeaderEpochCache cache = new LeaderEpochCache(dir);
        // At start-up the topic's own config is not known yet (the metadata is replayed later): a log that was
        // compacted is recovered as one, with its gaps, not cut at its first gap as a damaged dense log would be.
        LogConfig recoverAs = !config.compact() && Files.exists(dir.resolve(COMPACTED_MARKER))
                ? config.with(java.util.Map.of("cleanup.policy", "compact")) : config;
        LogRecovery.Loaded loaded = LogRecovery.load(dir, recoverAs, clock, state, cache, bugs);
        PartitionLog pl = new PartitionLog(tp, dir, config, clock, cache);
        pl.segments.putAll(loaded.segments());
        pl.active = loaded.segments().lastEntry().getValue();
        pl.logEndOffset = loaded.logEndOffset();
        pl.logStartOffset = loaded.logStartOffset();
        pl.recoveryPoint = loaded.logEndOffset();
        pl.highWatermark = Math.min(Math.max(state.highWatermark(), pl.logStartOffset), pl.logEndOffset);
        log.info("Opened {}: logStart={} logEnd={} highWatermark={} segments={} (clean shutdown: {})", dir,
                pl.logStartOffset, pl.logEndOffset, pl.highWatermark, pl.segments.size(), state.cleanShutdown());
        if (config.compact()) pl.markCompaction(true);
        return pl;
    }

    /**
     * Marks the directory of a log whose topic is compacted (cleanup.policy contains compact), so a recovery that
     * runs before the topic's config is known treats it as compacted. Set when the config says compact, removed only
     * when a known config says otherwise ({@link #updateConfig}).
     */
    static final String COMPACTED_MARKER = "cleanup-policy-compact";

    private void markCompaction(boolean compacted) {
        Path marker = dir.resolve(COMPACTED_MARKER);
        try {
            if (compacted) {
                if (!Files.exists(marker)) Files.write(marker, new byte[0]);
            } else {
                Files.deleteIfExists(marker);
            }
        } catch (IOException e) {
            log.warn("Could not {} {}: {}", compacted ? "write" : "remove", marker, e.getMessage());
        }
    }

    /**
     * Leader append: assigns offsets from the log end offset, stamps {@code leaderEpoch} as partitionLeaderEpoch
     * (and the broker time when message.timestamp.type=LogAppendTime), records the epoch in the cache, appends.
     * The buffer of {@code records} is modified in place. Only magic v2 batches are accepted.
     */
    public LogAppendInfo appendAsLeader(MemoryRecords records, int leaderEpoch) {
        return appendAsLeader(records, leaderEpoch, false);
    }

    /**
     * As {@link #appendAsLeader(MemoryRecords, int)}; {@code fromCoordinator} marks batches the broker wrote itself
     * (transaction markers, transactional offset commits): control batches and producer batches without a sequence
     * are allowed there, never from a client.
     */
    public LogAppendInfo appendAsLeader(MemoryRecords records, int leaderEpoch, boolean fromCoordinator) {
        if (leaderEpoch < 0) throw new IllegalArgumentException("leader epoch must be >= 0: " + leaderEpoch);
        writer.lock();
        try {
            ensureOpen();
            LogConfig cfg = config;
            long now = clock.milliseconds();
            String stale = epochCache.staleLeadership(topicPartition, leaderEpoch, "append as leader");
            if (stale != null) throw new org.apache.kafka.common.errors.NotLeaderOrFollowerException(stale);
            var validated = AppendValidator.validateForLeader(records, logEndOffset, leaderEpoch, cfg, now, topicPartition,
                    fromCoordinator);
            List<BatchHeader> headers = validated.headers();
            if (!headers.isEmpty()) epochCache.assign(leaderEpoch, headers.get(0).baseOffset());
            long appendTime = cfg.timestampType() == org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME ? now : -1;
            return appendHeaders(records.buffer(), headers, validated.recordCount(), appendTime, now);
        } finally {
            writer.unlock();
        }
    }

    /**
     * Follower append: batches are appended exactly as received (offsets, epochs and timestamps kept). The first
     * batch must start at the log end offset and offsets must be contiguous (with cleanup.policy=compact gaps
     * between batches are allowed, as compaction leaves them). Epochs found in the batches enter the cache.
     */
    public LogAppendInfo appendAsFollower(MemoryRecords records) {
        writer.lock();
        try {
            ensureOpen();
            var validated = AppendValidator.validateForFollower(records, logEndOffset, config, topicPartition);
            for (BatchHeader h : validated.headers()) epochCache.assign(h.partitionLeaderEpoch(), h.baseOffset());
            return appendHeaders(records.buffer(), validated.headers(), validated.recordCount(), -1, clock.milliseconds());
        } finally {
            writer.unlock();
        }
    }

    private LogAppendInfo appendHeaders(ByteBuffer buf, List<BatchHeader> headers, int count, long appendTime, long now) {
        if (headers.isEmpty()) {
            return new LogAppendInfo(logEndOffset, logEndOffset - 1, RecordBatchAdapter.NO_TIMESTAMP, -1, appendTime,
                    logStartOffset, 0, 0);
        }
        long first = headers.get(0).baseOffset();
        long last = headers.get(headers.size() - 1).lastOffset();
        long maxTs = RecordBatchAdapter.NO_TIMESTAMP;
        long offsetOfMax = first;
        for (BatchHeader h : headers) {
            if (h.maxTimestamp() > maxTs) {
                maxTs = h.maxTimestamp();
                offsetOfMax = h.lastOffset();
            }
        }
        int size = buf.remaining();
        LogSegment seg = active;
        if (seg.shouldRoll(config, size, maxTs, last, now)) seg = rollAt(Math.max(logEndOffset, first), now);
        else if (last - seg.baseOffset() > Integer.MAX_VALUE || first < seg.baseOffset()) seg = rollAt(first, now);
        seg.append(buf, headers);
        logEndOffset = last + 1;
        if (firstUnflushedAppendMs < 0) firstUnflushedAppendMs = now;
        unflushedRecords += count;
        LogConfig cfg = config;
        if (cfg.fsyncEveryAppend() || unflushedRecords >= cfg.flushMessages()
                || (cfg.flushMs() != Long.MAX_VALUE && now - firstUnflushedAppendMs >= cfg.flushMs())) {
            flushLocked();
        }
        return new LogAppendInfo(first, last, maxTs, offsetOfMax, appendTime, logStartOffset, count, size);
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
        SliceRead r = read(fromOffset, maxBytes, maxOffsetExclusive, false);
        return new LogReadResult((MemoryRecords) r.records(), r.nextOffset(), r.reachedEnd(), r.logStartOffset(),
                r.logEndOffset(), r.highWatermark());
    }

    /**
     * As {@link #read(long, int, long)}, but the batches stay in the segment file ({@link FileRegionRecords}, sent
     * with transferTo) when they all lie below the high watermark: those bytes are never truncated, so they are
     * still the same when the network thread sends them. A read that may go past the high watermark (followers)
     * is copied as before.
     */
    public SliceRead readForSend(long fromOffset, int maxBytes, long maxOffsetExclusive) {
        return read(fromOffset, maxBytes, maxOffsetExclusive, maxOffsetExclusive <= highWatermark);
    }

    /** What {@link #readForSend} returns; records are {@link MemoryRecords} or {@link FileRegionRecords}. */
    public record SliceRead(BaseRecords records, long nextOffset, boolean reachedEnd, long logStartOffset,
                            long logEndOffset, long highWatermark) {
    }

    private SliceRead read(long fromOffset, int maxBytes, long maxOffsetExclusive, boolean inFile) {
        structure.readLock().lock();
        try {
            ensureOpen();
            long end = logEndOffset;
            long start = logStartOffset;
            long hw = highWatermark;
            if (fromOffset < start || fromOffset > end) {
                throw new OffsetOutOfRangeException("offset " + fromOffset + " outside [" + start + ", " + end
                        + "] of " + topicPartition);
            }
            long limit = Math.min(end, maxOffsetExclusive);
            if (fromOffset >= limit) {
                return new SliceRead(MemoryRecords.EMPTY, fromOffset, true, start, end, hw);
            }
            Long key = segments.floorKey(fromOffset);
            if (key == null) key = segments.firstKey();
            for (LogSegment seg : segments.tailMap(key, true).values()) {
                LogSegment.SegmentRead r = inFile
                        ? seg.region(fromOffset, Math.max(0, maxBytes), maxOffsetExclusive)
                        : seg.read(fromOffset, Math.max(0, maxBytes), maxOffsetExclusive);
                if (r == null) continue;
                boolean reachedEnd = r.hitUpperBound() || r.records().sizeInBytes() == 0 || r.nextOffset() >= limit;
                return new SliceRead(r.records(), r.nextOffset(), reachedEnd, start, end, hw);
            }
            return new SliceRead(MemoryRecords.EMPTY, fromOffset, true, start, end, hw);
        } finally {
            structure.readLock().unlock();
        }
    }

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    public Path dir() {
        return dir;
    }

    public LogConfig config() {
        return config;
    }

    /** Replaces the config (e.g. after an AlterConfigs); takes effect on the next append / maintenance round. */
    public void updateConfig(LogConfig newConfig) {
        config = newConfig;
        markCompaction(newConfig.compact());
    }

    /** Offset the next appended record will get. */
    public long logEndOffset() {
        return logEndOffset;
    }

    /** First offset that may be read. */
    public long logStartOffset() {
        return logStartOffset;
    }

    /** Offsets below this are durable on disk (advanced only by flushes). */
    public long recoveryPoint() {
        return recoveryPoint;
    }

    public long highWatermark() {
        return highWatermark;
    }

    /**
     * Moves the high watermark forward.
     *
     * @throws IllegalArgumentException if it would move backward or past the log end offset
     */
    public void updateHighWatermark(long newHighWatermark) {
        writer.lock();
        try {
            if (newHighWatermark < highWatermark) {
                throw new IllegalArgumentException("high watermark of " + topicPartition + " cannot move back from "
                        + highWatermark + " to " + newHighWatermark);
            }
            if (newHighWatermark > logEndOffset) {
                throw new IllegalArgumentException("high watermark " + newHighWatermark + " beyond log end offset "
                        + logEndOffset + " of " + topicPartition);
            }
            highWatermark = newHighWatermark;
        } finally {
            writer.unlock();
        }
    }

    /**
     * Sets the high watermark without the monotonic check, clamped to [logStartOffset, logEndOffset]: for a
     * follower learning the leader's value after truncation, or restoring a checkpoint.
     */
    public void resetHighWatermark(long newHighWatermark) {
        writer.lock();
        try {
            highWatermark = Math.min(Math.max(newHighWatermark, logStartOffset), logEndOffset);
        } finally {
            writer.unlock();
        }
    }

    /**
     * ListOffsets: the first record with timestamp &gt;= {@code timestamp}, found through the time index, or one
     * of the special values {@link #LATEST_TIMESTAMP}, {@link #EARLIEST_TIMESTAMP}, {@link #MAX_TIMESTAMP}.
     * Empty when no record is that new.
     */
    public Optional<TimestampAndOffset> offsetForTimestamp(long timestamp) {
        structure.readLock().lock();
        try {
            ensureOpen();
            return TimestampLookup.find(List.copyOf(segments.values()), timestamp, logStartOffset, logEndOffset,
                    epochCache);
        } finally {
            structure.readLock().unlock();
        }
    }

    /** OffsetForLeaderEpoch with Kafka's semantics (KIP-101/KIP-279); see {@link LeaderEpochCache#endOffsetFor}. */
    public EpochEndOffset endOffsetForEpoch(int leaderEpoch) {
        return epochCache.endOffsetFor(leaderEpoch, logEndOffset);
    }

    /**
     * A new leader's epoch starts at the current log end (Kafka's maybeAssignEpochStartOffset, KAFKA-7415): written
     * before any append in that epoch, so back-to-back elections leave distinct entries and followers can find where
     * each epoch ended even if the leader appended nothing in it.
     */
    public void assignEpochStartOffset(int leaderEpoch) {
        if (leaderEpoch < 0) throw new IllegalArgumentException("leader epoch must be >= 0: " + leaderEpoch);
        writer.lock();
        try {
            ensureOpen();
            // a stale role change, not a client's request: the metadata thread logs it and goes on
            String stale = epochCache.staleLeadership(topicPartition, leaderEpoch, "start leading");
            if (stale != null) throw new IllegalStateException(stale);
            epochCache.assign(leaderEpoch, logEndOffset);
        } finally {
            writer.unlock();
        }
    }

    /** Latest leader epoch in the cache, if any. */
    public Optional<Integer> latestEpoch() {
        return epochCache.latestEpoch();
    }

    /** The leader epoch cache (read-only use intended; mutations go through this log). */
    public List<LeaderEpochCache.EpochEntry> epochEntries() {
        return epochCache.entries();
    }

    /**
     * Removes every record at or after {@code offset} (a follower's truncation on divergence). No-op if offset &gt;=
     * log end offset. Truncation cuts whole batches: if {@code offset} falls inside a batch, that batch is removed
     * too and the log end offset becomes its base offset (so the log never has holes). Truncates the epoch cache,
     * and clamps recovery point and high watermark.
     */
    public void truncateTo(long offset) {
        if (offset < 0) throw new IllegalArgumentException("cannot truncate to negative offset " + offset);
        writer.lock();
        try {
            ensureOpen();
            if (offset >= logEndOffset) {
                // No record goes, but an epoch entry at the end with no batch behind it does (as in Kafka): a node
                // that became leader, assigned its epoch's start offset and lost leadership before appending would
                // otherwise keep sending that epoch as lastFetchedEpoch, get the same diverging answer for ever and
                // never rejoin the ISR (seen in FailoverComparison: min ISR 2 unwritable after the next kill).
                epochCache.truncateFromEnd(logEndOffset);
                return;
            }
            if (offset <= segments.firstKey()) {
                truncateFullyAndStartAt(offset);
                return;
            }
            log.info("Truncating {} from {} to {}", topicPartition, logEndOffset, offset);
            structure.writeLock().lock();
            try {
                for (Long base : List.copyOf(segments.tailMap(offset, false).keySet())) {
                    LogSegment s = segments.remove(base);
                    s.deleteFiles();
                }
                LogSegment last = segments.lastEntry().getValue();
                last.truncateTo(offset);
                active = last;
                // The batch holding `offset` goes whole, so the end may land below `offset`; unlike Kafka (which
                // sets the end to `offset` and leaves a gap) we keep the log free of holes.
                long newEnd = Math.min(offset, Math.max(last.baseOffset(), last.nextOffset()));
                logEndOffset = newEnd;
                epochCache.truncateFromEnd(newEnd);
                recoveryPoint = Math.min(recoveryPoint, newEnd);
                highWatermark = Math.min(highWatermark, newEnd);
                logStartOffset = Math.min(logStartOffset, newEnd);
                directoryDirty = true;
            } finally {
                structure.writeLock().unlock();
            }
        } catch (IOException e) {
            throw storageError("truncate", e);
        } finally {
            writer.unlock();
        }
    }

    /** Deletes everything and restarts the log empty at {@code offset} (log start = end = offset). */
    public void truncateFullyAndStartAt(long offset) {
        if (offset < 0) throw new IllegalArgumentException("negative offset " + offset);
        writer.lock();
        try {
            ensureOpen();
            log.info("Truncating {} fully and starting at {}", topicPartition, offset);
            structure.writeLock().lock();
            try {
                for (LogSegment s : segments.values()) s.deleteFiles();
                segments.clear();
                LogSegment seg = LogSegment.create(dir, offset, config, clock.milliseconds());
                segments.put(offset, seg);
                active = seg;
                epochCache.clear();
                logEndOffset = offset;
                logStartOffset = offset;
                recoveryPoint = offset;
                highWatermark = offset;
                unflushedRecords = 0;
                firstUnflushedAppendMs = -1;
                seg.flush();
                CheckpointFile.fsyncDirectory(dir);
            } finally {
                structure.writeLock().unlock();
            }
        } catch (IOException e) {
            throw storageError("truncateFullyAndStartAt", e);
        } finally {
            writer.unlock();
        }
    }

    /**
     * DeleteRecords: raises the log start offset (never beyond the high watermark); whole segments below it are
     * deleted by the next {@link #deleteOldSegments()}.
     */
    public void maybeIncrementLogStartOffset(long newLogStartOffset) {
        writer.lock();
        try {
            ensureOpen();
            if (newLogStartOffset > highWatermark) {
                throw new OffsetOutOfRangeException("log start offset " + newLogStartOffset
                        + " beyond high watermark " + highWatermark + " of " + topicPartition);
            }
            if (newLogStartOffset <= logStartOffset) return;
            epochCache.truncateFromStart(newLogStartOffset);
            logStartOffset = newLogStartOffset;
        } finally {
            writer.unlock();
        }
    }

    /** Forces a new active segment now (no-op when the active segment is empty). */
    public void roll() {
        writer.lock();
        try {
            ensureOpen();
            if (!active.isEmpty()) rollAt(logEndOffset, clock.milliseconds());
        } finally {
            writer.unlock();
        }
    }

    private LogSegment rollAt(long newBase, long now) {
        try {
            LogSegment old = active;
            if (old.isEmpty()) {
                if (old.baseOffset() == newBase) return old;
                structure.writeLock().lock();
                try {
                    segments.remove(old.baseOffset());
                    old.deleteFiles();
                } finally {
                    structure.writeLock().unlock();
                }
            } else {
                old.onBecomeInactive();
            }
            LogSegment seg = LogSegment.create(dir, newBase, config, now);
            segments.put(newBase, seg);
            active = seg;
            directoryDirty = true;
            log.debug("Rolled {} to new segment at {}", topicPartition, newBase);
            return seg;
        } catch (IOException e) {
            throw storageError("roll", e);
        }
    }

    /** fsyncs everything up to the log end offset and advances the recovery point to it. */
    public void flush() {
        writer.lock();
        try {
            ensureOpen();
            flushLocked();
        } finally {
            writer.unlock();
        }
    }

    private void flushLocked() {
        long end = logEndOffset;
        Long from = segments.floorKey(recoveryPoint);
        for (LogSegment s : (from == null ? segments : segments.tailMap(from, true)).values()) s.flush();
        if (directoryDirty) {
            CheckpointFile.fsyncDirectory(dir);
            directoryDirty = false;
        }
        recoveryPoint = end;
        unflushedRecords = 0;
        firstUnflushedAppendMs = -1;
    }

    /** Applies flush.ms: flushes when the oldest unflushed append is older than flush.ms. */
    public void flushIfDue() {
        writer.lock();
        try {
            ensureOpen();
            long now = clock.milliseconds();
            if (firstUnflushedAppendMs >= 0 && config.flushMs() != Long.MAX_VALUE
                    && now - firstUnflushedAppendMs >= config.flushMs()) {
                flushLocked();
            }
        } finally {
            writer.unlock();
        }
    }

    /**
     * Retention (only for cleanup.policy containing delete, plus log-start-offset deletions for any policy):
     * deletes whole segments below the high watermark by time, size and log start offset, renaming them to
     * {@code .deleted}; returns the number of segments deleted.
     */
    public int deleteOldSegments() {
        writer.lock();
        try {
            ensureOpen();
            long now = clock.milliseconds();
            List<LogSegment> doomed = RetentionPolicy.deletable(List.copyOf(segments.values()), logEndOffset,
                    highWatermark, logStartOffset, config, now);
            if (doomed.isEmpty()) return 0;
            if (doomed.contains(active)) rollAt(logEndOffset, now); // never leave the log without a segment
            structure.writeLock().lock();
            try {
                for (LogSegment s : doomed) {
                    segments.remove(s.baseOffset());
                    s.renameWithSuffix(LogFileNames.DELETED);
                    pendingDeletes.add(s, now + config.fileDeleteDelayMs());
                    log.info("Retention deleted {} of {} (largest timestamp {}, now {})", s, topicPartition,
                            s.largestTimestamp(), now);
                }
                long newStart = Math.max(logStartOffset, segments.firstKey());
                if (newStart > logStartOffset) {
                    logStartOffset = newStart;
                    epochCache.truncateFromStart(newStart);
                }
                highWatermark = Math.max(highWatermark, logStartOffset);
                directoryDirty = true;
            } finally {
                structure.writeLock().unlock();
            }
            return doomed.size();
        } catch (IOException e) {
            throw storageError("retention", e);
        } finally {
            writer.unlock();
        }
    }

    /** Physically removes {@code .deleted} files older than file.delete.delay.ms. */
    public void removeDeletedFiles() {
        writer.lock();
        try {
            pendingDeletes.removeDue(closed ? Long.MAX_VALUE : clock.milliseconds());
        } catch (IOException e) {
            throw storageError("delete", e);
        } finally {
            writer.unlock();
        }
    }

    /**
     * Compaction (cleanup.policy containing compact): keeps the latest record per key in closed segments below the
     * high watermark, drops tombstones after delete.retention.ms; offsets are preserved. Returns bytes removed.
     */
    public long compact() {
        writer.lock();
        try {
            ensureOpen();
            LogConfig cfg = config;
            if (!cfg.compact()) return 0;
            long now = clock.milliseconds();
            long removed = LogCompactor.compact(List.copyOf(segments.values()), highWatermark, cfg, now,
                    (seg, swap) -> {
                        structure.writeLock().lock();
                        try {
                            LogSegment replacement = LogCompactor.swapIn(seg, swap, dir, cfg, now);
                            segments.put(seg.baseOffset(), replacement);
                            return replacement;
                        } finally {
                            structure.writeLock().unlock();
                        }
                    });
            if (removed > 0) log.info("Compacted {}: removed {} bytes", topicPartition, removed);
            return removed;
        } catch (IOException e) {
            throw storageError("compaction", e);
        } finally {
            writer.unlock();
        }
    }

    public int numberOfSegments() {
        return segments.size();
    }

    /** Base offsets of the segments, oldest first. */
    public List<Long> segmentBaseOffsets() {
        return List.copyOf(segments.keySet());
    }

    /** Bytes of all segments' .log files. */
    public long size() {
        long total = 0;
        for (LogSegment s : segments.values()) total += s.size();
        return total;
    }

    /** Flushes and closes files; the log must not be used afterwards. Idempotent. */
    @Override
    public void close() {
        writer.lock();
        try {
            if (closed) return;
            flushLocked();
            structure.writeLock().lock();
            try {
                closed = true;
                for (LogSegment s : segments.values()) s.close();
                pendingDeletes.closeHandlers();
            } finally {
                structure.writeLock().unlock();
            }
        } finally {
            writer.unlock();
        }
    }

    /** Closes without flushing, as a crash would leave things (test helper for the fault harness). */
    void closeWithoutFlush() {
        writer.lock();
        try {
            closed = true;
            for (LogSegment s : segments.values()) s.closeHandlers();
        } finally {
            writer.unlock();
        }
    }

    /** Closes and deletes the whole directory. */
    public void delete() {
        writer.lock();
        try {
            closed = true;
            for (LogSegment s : segments.values()) s.closeHandlers();
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw storageError("delete", e);
        } finally {
            writer.unlock();
        }
    }

    /** Segments, oldest first (tests check indexes against full scans). */
    List<LogSegment> segmentsView() {
        return List.copyOf(segments.values());
    }

    boolean isClosed() {
        return closed;
    }

    private void ensureOpen() {
        if (closed) throw new KafkaStorageException("log " + topicPartition + " is closed");
    }

    private UncheckedIOException storageError(String what, IOException e) {
        return new UncheckedIOException(what + " of " + topicPartition + " failed", e);
    }

    @Override
    public String toString() {
        return "PartitionLog(" + topicPartition + ", logStart=" + logStartOffset + ", logEnd=" + logEndOffset
                + ", hw=" + highWatermark + ")";
    }
}
