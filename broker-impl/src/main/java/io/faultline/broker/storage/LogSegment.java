package io.faultline.broker.storage;

import io.faultline.broker.common.FileRegionRecords;
import io.faultline.broker.storage.RecordBatchAdapter.BatchHeader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One segment: {@code <base>.log} with its {@link OffsetIndex} and {@link TimeIndex}. Batches are appended as
 * whole v2 batches; the segment tracks its size, next offset and largest timestamp.
 *
 * <p>Thread-safety: one writer (the owning {@link PartitionLog}'s writer), many readers. Readers only look at bytes
 * below the volatile {@link #size()}, which is published after the bytes are written.
 */
final class LogSegment {
    private static final Logger log = LoggerFactory.getLogger(LogSegment.class);

    /** Position and header of a batch found by offset. */
    record Located(BatchHeader header, int position) {
    }

    /**
     * Whole batches from the segment, and the offset after the last one: copied ({@link MemoryRecords}, by
     * {@link #read}) or left in the file ({@link FileRegionRecords}, by {@link #region}).
     */
    record SegmentRead(BaseRecords records, long nextOffset, boolean hitUpperBound) {
        SegmentRead(ByteBuffer data, long nextOffset, boolean hitUpperBound) {
            this(MemoryRecords.readableRecords(data), nextOffset, hitUpperBound);
        }

        ByteBuffer data() {
            return ((MemoryRecords) records).buffer();
        }
    }

    private final long baseOffset;
    private final int indexIntervalBytes;
    private Path logFile;
    private final FileChannel channel;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;
    private volatile int size;
    private volatile long nextOffset;
    private volatile long maxTimestampSoFar = RecordBatchAdapter.NO_TIMESTAMP;
    private volatile long offsetOfMaxTimestampSoFar;
    private long firstBatchTimestamp = RecordBatchAdapter.NO_TIMESTAMP;
    private final long createdMs;
    private int bytesSinceLastIndexEntry;

    private LogSegment(Path dir, long baseOffset, LogConfig config, long now, boolean create) throws IOException {
        this.baseOffset = baseOffset;
        this.indexIntervalBytes = config.indexIntervalBytes();
        this.logFile = LogFileNames.logFile(dir, baseOffset);
        this.channel = create
                ? FileChannel.open(logFile, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)
                : FileChannel.open(logFile, StandardOpenOption.READ, StandardOpenOption.WRITE);
        this.offsetIndex = new OffsetIndex(LogFileNames.indexFile(dir, baseOffset), baseOffset, config.segmentIndexBytes());
        this.timeIndex = new TimeIndex(LogFileNames.timeIndexFile(dir, baseOffset), baseOffset, config.segmentIndexBytes());
        this.size = (int) Math.min(Integer.MAX_VALUE, channel.size());
        this.nextOffset = baseOffset;
        this.offsetOfMaxTimestampSoFar = baseOffset;
        this.createdMs = now;
        if (create) {
            offsetIndex.reset();
            timeIndex.reset();
        }
    }

    /** A new empty segment (any leftover files with that base are truncated). */
    static LogSegment create(Path dir, long baseOffset, LogConfig config, long now) throws IOException {
        return new LogSegment(dir, baseOffset, config, now, true);
    }

    /** An existing segment; call {@link #recover} or {@link #loadIndexes} next. */
    static LogSegment openExisting(Path dir, long baseOffset, LogConfig config, long now) throws IOException {
        return new LogSegment(dir, baseOffset, config, now, false);
    }

    long baseOffset() {
        return baseOffset;
    }

    int size() {
        return size;
    }

    long nextOffset() {
        return nextOffset;
    }

    boolean isEmpty() {
        return size == 0;
    }

    Path logFile() {
        return logFile;
    }

    OffsetIndex offsetIndex() {
        return offsetIndex;
    }

    TimeIndex timeIndex() {
        return timeIndex;
    }

    long maxTimestampSoFar() {
        return maxTimestampSoFar;
    }

    long offsetOfMaxTimestampSoFar() {
        return offsetOfMaxTimestampSoFar;
    }

    /** Timestamp retention compares with: newest batch timestamp, or the file's mtime if it has none. */
    long largestTimestamp() {
        if (maxTimestampSoFar >= 0) return maxTimestampSoFar;
        try {
            return Files.getLastModifiedTime(logFile).toMillis();
        } catch (IOException e) {
            return createdMs;
        }
    }

    /** Kafka's roll rule: size, age (by first batch timestamp, else creation time), full indexes, offset overflow. */
    boolean shouldRoll(LogConfig config, int bytesToAppend, long maxTimestampInAppend, long lastOffsetInAppend, long now) {
        if (size == 0) return false;
        long reference = firstBatchTimestamp >= 0 ? firstBatchTimestamp : createdMs;
        long compareTo = firstBatchTimestamp >= 0 && maxTimestampInAppend >= 0 ? maxTimestampInAppend : now;
        boolean tooOld = compareTo - reference > config.segmentMs();
        return size > config.segmentBytes() - bytesToAppend
                || tooOld
                || offsetIndex.isFull()
                || timeIndex.isFull()
                || lastOffsetInAppend - baseOffset > Integer.MAX_VALUE;
    }

    /**
     * Appends whole batches (already validated, offsets assigned) whose headers are given in order, adding sparse
     * index entries every index.interval.bytes.
     */
    /** Largest single write to the log file (see {@link #append}). */
    private static final int MAX_WRITE_BYTES = 256 * 1024;

    void append(ByteBuffer records, List<BatchHeader> headers) {
        int physicalPosition = size;
        try {
            ByteBuffer buf = records.duplicate();
            long pos = physicalPosition;
            while (buf.hasRemaining()) {
                // The JDK copies a heap buffer through a temporary direct buffer of the write's size and keeps it
                // cached per thread: bounded slices keep that off-heap copy small whatever the append's size.
                ByteBuffer slice = buf.slice();
                slice.limit(Math.min(slice.remaining(), MAX_WRITE_BYTES));
                int n = channel.write(slice, pos);
                pos += n;
                buf.position(buf.position() + n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("append to " + logFile + " failed", e);
        }
        for (BatchHeader h : headers) {
            observeBatch(h, physicalPosition);
            physicalPosition += h.sizeInBytes();
        }
        size = physicalPosition;
    }

    /** Updates max timestamp, next offset and indexes for a batch at position (append and recovery). */
    private void observeBatch(BatchHeader h, int position) {
        if (h.lastOffset() < nextOffset && position > 0) {
            throw new IllegalStateException("non-monotonic offsets in " + logFile + ": batch " + h.baseOffset()
                    + ".." + h.lastOffset() + " after next offset " + nextOffset);
        }
        if (firstBatchTimestamp < 0 && position == 0) firstBatchTimestamp = h.maxTimestamp();
        if (h.maxTimestamp() > maxTimestampSoFar) {
            maxTimestampSoFar = h.maxTimestamp();
            offsetOfMaxTimestampSoFar = h.lastOffset();
        }
        // One append may hold more batches than the indexes have room left (a follower's fetch of a leader segment
        // that grew under another index size, e.g. one loaded before its topic's config was known): the roll check
        // ran once before the append, so a full index takes no more entries and the segment rolls at the next
        // append. Its last batches are then found by a scan from the last entry, as between any two entries.
        if (bytesSinceLastIndexEntry > indexIntervalBytes && !offsetIndex.isFull() && !timeIndex.isFull()) {
            offsetIndex.append(h.lastOffset(), position);
            timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar, false);
            bytesSinceLastIndexEntry = 0;
        }
        bytesSinceLastIndexEntry += h.sizeInBytes();
        nextOffset = h.lastOffset() + 1;
    }

    /** Reads the header of the batch at pos, or null past the end. */
    BatchHeader headerAt(int pos, int limit) {
        if (pos >= limit) return null;
        ByteBuffer buf = ByteBuffer.allocate(RecordBatchAdapter.HEADER_SIZE);
        readFully(buf, pos);
        return RecordBatchAdapter.readHeader(buf, 0, limit - pos, pos);
    }

    /** First batch whose last offset is &gt;= target, scanning from the index entry below it; null if none. */
    Located translateOffset(long target, int limit) {
        int pos = offsetIndex.lookup(target).position();
        if (pos >= limit) pos = 0; // an entry beyond the visible size (concurrent truncation): scan from the start
        while (pos < limit) {
            BatchHeader h = headerAt(pos, limit);
            if (h.lastOffset() >= target) return new Located(h, pos);
            pos += h.sizeInBytes();
        }
        return null;
    }

    /**
     * Where a read from {@code fromOffset} starts and may end: {@code end} is the position of the batch holding
     * {@code maxOffsetExclusive} when this segment has it ({@code bounded}), else the segment's size; {@code empty}
     * when the first batch already reaches the bound.
     */
    private record ReadSpan(Located start, int end, boolean bounded, boolean empty) {
    }

    /** The span of a read, or null when the segment holds nothing at or after fromOffset. */
    private ReadSpan span(long fromOffset, long maxOffsetExclusive) {
        int limit = size;
        Located start = translateOffset(fromOffset, limit);
        if (start == null) return null;
        if (start.header().lastOffset() >= maxOffsetExclusive) return new ReadSpan(start, start.position(), true, true);
        if (maxOffsetExclusive < nextOffset) {
            Located bound = translateOffset(maxOffsetExclusive, limit);
            if (bound != null) return new ReadSpan(start, bound.position(), true, false);
        }
        return new ReadSpan(start, limit, false, false);
    }

    /**
     * Reads whole batches from the one containing {@code fromOffset}: at most maxBytes unless the first batch is
     * larger, only batches with lastOffset &lt; maxOffsetExclusive. Null when the segment holds nothing at or after
     * fromOffset.
     */
    SegmentRead read(long fromOffset, int maxBytes, long maxOffsetExclusive) {
        ReadSpan span = span(fromOffset, maxOffsetExclusive);
        if (span == null) return null;
        if (span.empty()) return new SegmentRead(ByteBuffer.allocate(0), fromOffset, true);
        Located start = span.start();
        int end = span.end();
        boolean bounded = span.bounded();
        int first = start.header().sizeInBytes();
        int length = Math.max(first, (int) Math.min(maxBytes, (long) end - start.position()));
        length = Math.min(length, end - start.position());
        ByteBuffer buf = ByteBuffer.allocate(length);
        readFully(buf, start.position());
        buf.flip();
        // keep whole batches only
        int pos = 0;
        long next = fromOffset;
        while (pos + RecordBatchAdapter.LOG_OVERHEAD <= length) {
            int batchSize = RecordBatchAdapter.batchSize(buf, pos);
            if (batchSize < RecordBatchAdapter.HEADER_SIZE || pos + batchSize > length) break;
            next = RecordBatchAdapter.readHeader(buf, pos, length - pos, start.position() + pos).nextOffset();
            pos += batchSize;
        }
        buf.limit(pos);
        return new SegmentRead(buf, next, bounded && start.position() + pos == end);
    }

    /**
     * As {@link #read} but without reading the records: the same whole batches as a region of this segment's file,
     * for sending with transferTo. Only batch headers are read (one small read per batch) to find the boundaries.
     */
    SegmentRead region(long fromOffset, int maxBytes, long maxOffsetExclusive) {
        ReadSpan span = span(fromOffset, maxOffsetExclusive);
        if (span == null) return null;
        Located start = span.start();
        if (span.empty()) {
            return new SegmentRead(new FileRegionRecords(channel, start.position(), 0, logFile.toString()), fromOffset,
                    true);
        }
        int end = span.end();
        boolean bounded = span.bounded();
        int pos = start.position();
        long next = fromOffset;
        BatchHeader h = start.header();
        while (h != null) {
            long batchEnd = (long) pos + h.sizeInBytes();
            if (batchEnd > end) break;
            if (pos > start.position() && batchEnd - start.position() > maxBytes) break; // the first is always whole
            next = h.nextOffset();
            pos = (int) batchEnd;
            h = headerAt(pos, end);
        }
        return new SegmentRead(new FileRegionRecords(channel, start.position(), pos - start.position(),
                logFile.toString()), next, bounded && pos == end);
    }

    /** Reads the whole batch at position into a new buffer (for compaction and timestamp lookups). */
    ByteBuffer readBatch(BatchHeader h) {
        ByteBuffer buf = ByteBuffer.allocate(h.sizeInBytes());
        readFully(buf, h.position());
        buf.flip();
        return buf;
    }

    /** Reads all bytes [0, size) (for compaction of a closed segment). */
    ByteBuffer readAll() {
        ByteBuffer buf = ByteBuffer.allocate(size);
        readFully(buf, 0);
        buf.flip();
        return buf;
    }

    /**
     * First record with timestamp &gt;= target at or after startingOffset, via the time index then a scan.
     */
    TimestampAndOffset findOffsetByTimestamp(long target, long startingOffset) {
        TimeIndex.Entry te = timeIndex.lookup(target);
        int limit = size;
        int pos = offsetIndex.lookup(Math.max(te.offset(), startingOffset)).position();
        while (pos < limit) {
            BatchHeader h = headerAt(pos, limit);
            if (h.maxTimestamp() >= target && h.lastOffset() >= startingOffset) {
                var batch = RecordBatchAdapter.asBatch(readBatch(h));
                for (var record : batch) {
                    if (record.timestamp() >= target && record.offset() >= startingOffset) {
                        int epoch = batch.partitionLeaderEpoch();
                        return new TimestampAndOffset(record.timestamp(), record.offset(),
                                epoch >= 0 ? java.util.Optional.of(epoch) : java.util.Optional.empty());
                    }
                }
            }
            pos += h.sizeInBytes();
        }
        return null;
    }

    /**
     * Recovery: validates every batch from the start (header sanity, CRC, offsets increasing and inside this
     * segment, not below {@code minOffset}, and without gaps starting at the base offset when {@code contiguous}:
     * logs that are never compacted), rebuilds both indexes, reports each batch to {@code onBatch}, and cuts
     * the file at the first bad byte. Returns the number of bytes cut.
     */
    int recover(long minOffset, boolean contiguous, Consumer<BatchHeader> onBatch) {
        return recover(minOffset, contiguous, true, onBatch);
    }

    /** As above; {@code verifyContent} false (seeded bug recovery-keeps-torn-batch) keeps a batch whose CRC fails. */
    int recover(long minOffset, boolean contiguous, boolean verifyContent, Consumer<BatchHeader> onBatch) {
        offsetIndex.reset();
        timeIndex.reset();
        nextOffset = baseOffset;
        maxTimestampSoFar = RecordBatchAdapter.NO_TIMESTAMP;
        offsetOfMaxTimestampSoFar = baseOffset;
        firstBatchTimestamp = RecordBatchAdapter.NO_TIMESTAMP;
        bytesSinceLastIndexEntry = 0;
        long fileSize;
        try {
            fileSize = channel.size();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int limit = (int) Math.min(Integer.MAX_VALUE, fileSize);
        int pos = 0;
        String reason = null;
        ByteBuffer header = ByteBuffer.allocate(RecordBatchAdapter.HEADER_SIZE);
        while (pos < limit) {
            try {
                header.clear();
                if (limit - pos < RecordBatchAdapter.HEADER_SIZE) {
                    throw new CorruptRecordException("truncated batch header");
                }
                readFully(header, pos);
                BatchHeader h = RecordBatchAdapter.readHeader(header, 0, limit - pos, pos);
                long expectedMin = Math.max(pos == 0 ? baseOffset : nextOffset, minOffset);
                if (h.baseOffset() < expectedMin) {
                    throw new CorruptRecordException("batch base offset " + h.baseOffset() + " below " + expectedMin);
                }
                // baseOffset is outside the CRC: without compaction a log has no gaps, which catches a damaged one
                long expected = pos == 0 ? baseOffset : nextOffset;
                if (contiguous && h.baseOffset() != expected) {
                    throw new CorruptRecordException("batch base offset " + h.baseOffset() + ", expected " + expected);
                }
                if (h.lastOffset() - baseOffset > Integer.MAX_VALUE) {
                    throw new CorruptRecordException("offset " + h.lastOffset() + " too far from segment base");
                }
                ByteBuffer batch = ByteBuffer.allocate(h.sizeInBytes());
                readFully(batch, pos);
                batch.flip();
                if (verifyContent) RecordBatchAdapter.ensureValid(batch);
                observeBatch(h, pos);
                onBatch.accept(h);
                pos += h.sizeInBytes();
            } catch (CorruptRecordException | IllegalStateException e) {
                reason = e.getMessage();
                break;
            } catch (RuntimeException e) { // any other parse failure of garbage bytes is corruption too
                reason = e.toString();
                break;
            }
        }
        int cut = limit - pos;
        if (cut > 0 || fileSize > limit) {
            log.warn("Recovery of {}: cutting {} bytes at position {} ({})", logFile, fileSize - pos, pos, reason);
            truncateFile(pos);
        }
        size = pos;
        return (int) (fileSize - pos);
    }

    /**
     * Loads the index files of a segment that need no recovery; returns false (caller must {@link #recover}) if
     * they are missing or fail the sanity check. Recomputes next offset and max timestamp from the tail.
     */
    boolean loadIndexes() {
        int limit = size;
        boolean ok = offsetIndex.load(limit, Long.MAX_VALUE) && timeIndex.load(Long.MAX_VALUE);
        if (!ok) return false;
        try {
            // next offset: scan batch headers from the last index entry (cheap, headers only)
            int pos = offsetIndex.lastEntry().position();
            long next = baseOffset;
            while (pos < limit) {
                BatchHeader h = headerAt(pos, limit);
                if (h.lastOffset() < next && pos > 0) return false;
                next = h.nextOffset();
                pos += h.sizeInBytes();
            }
            if (pos != limit) return false;
            if (offsetIndex.entries() > 0 && offsetIndex.lastEntry().offset() >= next) return false;
            TimeIndex.Entry te = timeIndex.lastEntry();
            if (timeIndex.entries() > 0 && te.offset() >= next) return false;
            nextOffset = next;
            // appends continue the index spacing from the last indexed batch, as if never closed
            bytesSinceLastIndexEntry = limit - offsetIndex.lastEntry().position();
            // max timestamp: the time index keeps the max at index points; scan the tail for anything newer.
            maxTimestampSoFar = te.timestamp();
            offsetOfMaxTimestampSoFar = te.offset();
            BatchHeader firstHeader = headerAt(0, limit);
            firstBatchTimestamp = firstHeader == null ? RecordBatchAdapter.NO_TIMESTAMP : firstHeader.maxTimestamp();
            pos = offsetIndex.lookup(te.offset()).position();
            while (pos < limit) {
                BatchHeader h = headerAt(pos, limit);
                if (h.maxTimestamp() > maxTimestampSoFar) {
                    maxTimestampSoFar = h.maxTimestamp();
                    offsetOfMaxTimestampSoFar = h.lastOffset();
                }
                pos += h.sizeInBytes();
            }
            return true;
        } catch (RuntimeException e) {
            log.warn("Index check of {} failed: {}", logFile, e.toString());
            return false;
        }
    }

    /**
     * Removes every batch whose last offset is &gt;= offset (cutting at a batch boundary, as Kafka does) and the
     * index entries pointing there. Returns bytes removed.
     */
    int truncateTo(long offset) {
        int limit = size;
        Located at = translateOffset(offset, limit);
        if (at == null) return 0;
        int newSize = at.position();
        offsetIndex.truncateTo(offset);
        timeIndex.truncateTo(offset);
        truncateFile(newSize);
        size = newSize;
        // recompute next offset, max timestamp and index spacing from what remains
        long next = baseOffset;
        long maxTs = RecordBatchAdapter.NO_TIMESTAMP;
        long offOfMax = baseOffset;
        int pos = 0;
        int lastIndexed = offsetIndex.entries() == 0 ? 0 : offsetIndex.lastEntry().position();
        while (pos < newSize) {
            BatchHeader h = headerAt(pos, newSize);
            if (h.maxTimestamp() > maxTs) {
                maxTs = h.maxTimestamp();
                offOfMax = h.lastOffset();
            }
            next = h.nextOffset();
            pos += h.sizeInBytes();
        }
        if (newSize == 0) firstBatchTimestamp = RecordBatchAdapter.NO_TIMESTAMP;
        maxTimestampSoFar = maxTs;
        offsetOfMaxTimestampSoFar = offOfMax;
        nextOffset = next;
        bytesSinceLastIndexEntry = newSize - lastIndexed;
        return limit - newSize;
    }

    /** Called when a newer segment becomes active: record the final time index entry and write the indexes. */
    void onBecomeInactive() {
        timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar, true);
        offsetIndex.flush(false);
        timeIndex.flush(false);
    }

    /** fsyncs the log and writes + fsyncs the indexes. */
    void flush() {
        try {
            channel.force(true);
        } catch (IOException e) {
            throw new UncheckedIOException("fsync of " + logFile + " failed", e);
        }
        offsetIndex.flush(true);
        timeIndex.flush(true);
    }

    /** Renames all files with an extra suffix (e.g. ".deleted"); the channel stays usable. */
    void renameWithSuffix(String suffix) throws IOException {
        Path target = logFile.resolveSibling(logFile.getFileName() + suffix);
        Files.move(logFile, target, StandardCopyOption.REPLACE_EXISTING);
        logFile = target;
        offsetIndex.renameTo(offsetIndex.file().resolveSibling(offsetIndex.file().getFileName() + suffix));
        timeIndex.renameTo(timeIndex.file().resolveSibling(timeIndex.file().getFileName() + suffix));
    }

    void close() {
        try {
            if (channel.isOpen()) {
                offsetIndex.flush(false);
                timeIndex.flush(false);
            }
            channel.close();
        } catch (IOException | UncheckedIOException e) {
            log.warn("closing {} failed: {}", logFile, e.toString());
        }
    }

    /** Closes without touching the files (after they were renamed away or when deleting). */
    void closeHandlers() {
        try {
            channel.close();
        } catch (IOException e) {
            log.warn("closing {} failed: {}", logFile, e.toString());
        }
    }

    void deleteFiles() throws IOException {
        closeHandlers();
        Files.deleteIfExists(logFile);
        offsetIndex.deleteFile();
        timeIndex.deleteFile();
    }

    private void readFully(ByteBuffer buf, long position) {
        try {
            long pos = position;
            while (buf.hasRemaining()) {
                ByteBuffer slice = buf.slice(); // bounded, as in append: the JDK's temporary direct buffer
                slice.limit(Math.min(slice.remaining(), MAX_WRITE_BYTES));
                int n = channel.read(slice, pos);
                if (n < 0) throw new CorruptRecordException("unexpected end of " + logFile + " at " + pos);
                pos += n;
                buf.position(buf.position() + n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("read of " + logFile + " failed", e);
        }
    }

    private void truncateFile(long newSize) {
        try {
            channel.truncate(newSize);
        } catch (IOException e) {
            throw new UncheckedIOException("truncate of " + logFile + " failed", e);
        }
    }

    @Override
    public String toString() {
        return "LogSegment(" + logFile.getFileName() + ", size=" + size + ", next=" + nextOffset + ")";
    }
}
