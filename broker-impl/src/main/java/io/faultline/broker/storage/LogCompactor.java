package io.faultline.broker.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecords.RecordFilter;
import org.apache.kafka.common.record.internal.MemoryRecords.RecordFilter.BatchRetention;
import org.apache.kafka.common.record.internal.MemoryRecords.RecordFilter.BatchRetentionResult;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;

/**
 * Compaction for cleanup.policy=compact, following Kafka's LogCleaner: over the cleanable segments (closed, below
 * the high watermark) build key → latest offset, then rewrite each segment keeping only the latest record of each
 * key, with offsets and batch headers preserved (kafka-clients' {@code MemoryRecords.filterTo}, as the cleaner
 * uses). Tombstones follow KIP-534: the first clean stamps a delete horizon (now + delete.retention.ms) into the
 * batch, a later clean after that horizon drops them. Simplification: the whole cleanable range is re-cleaned each
 * time (no cleaner-offset checkpoint), and segments are not merged.
 *
 * <p>Crash safety: the cleaned copy is written as {@code <base>.log.cleaned}, fsynced, renamed to
 * {@code .log.swap}; then the old indexes are deleted and the swap is renamed over the {@code .log}.
 * {@link LogRecovery} completes a leftover swap and discards a leftover .cleaned.
 *
 * <p>Thread-safety: called by the partition's single writer.
 */
final class LogCompactor {
    private LogCompactor() {
    }

    /** Installs a cleaned segment under the log's lock; returns the replacement. */
    @FunctionalInterface
    interface SegmentSwapper {
        LogSegment swap(LogSegment old, Path swapFile) throws IOException;
    }

    /**
     * Cleans the closed segments whose whole range is below the high watermark ({@code all} oldest first, the last
     * one active). Returns the bytes removed.
     */
    static long compact(List<LogSegment> all, long highWatermark, LogConfig cfg, long now, SegmentSwapper swapper)
            throws IOException {
        List<LogSegment> cleanable = new java.util.ArrayList<>();
        for (int i = 0; i + 1 < all.size(); i++) {
            if (all.get(i + 1).baseOffset() > highWatermark) break;
            cleanable.add(all.get(i));
        }
        if (cleanable.isEmpty()) return 0;
        Map<ByteBuffer, Long> latest = buildOffsetMap(cleanable);
        long removed = 0;
        for (LogSegment seg : cleanable) {
            Path swap = writeCleanedSwap(seg, latest, now, cfg.deleteRetentionMs(), cfg.maxMessageBytes());
            if (swap == null) continue;
            int before = seg.size();
            removed += before - swapper.swap(seg, swap).size();
        }
        return removed;
    }

    /**
     * Key → offset of its latest record in the given segments. Records of a transaction count only once its COMMIT
     * marker is among them: an aborted (or still open) transaction's record must not make an older committed value
     * of its key look superseded. Such records themselves are kept; readers skip the aborted ones.
     */
    static Map<ByteBuffer, Long> buildOffsetMap(List<LogSegment> segments) {
        Map<ByteBuffer, Long> latest = new HashMap<>();
        Map<Long, List<Map.Entry<ByteBuffer, Long>>> undecided = new HashMap<>();
        for (LogSegment seg : segments) {
            MemoryRecords records = MemoryRecords.readableRecords(seg.readAll());
            for (MutableRecordBatch batch : records.batches()) {
                if (batch.isControlBatch()) {
                    List<Map.Entry<ByteBuffer, Long>> txn = undecided.remove(batch.producerId());
                    if (txn != null && isCommit(batch)) txn.forEach(e -> latest.merge(e.getKey(), e.getValue(), Math::max));
                    continue;
                }
                for (Record r : batch) {
                    if (!r.hasKey()) continue;
                    if (batch.isTransactional()) {
                        undecided.computeIfAbsent(batch.producerId(), x -> new java.util.ArrayList<>())
                                .add(Map.entry(copy(r.key()), r.offset()));
                    } else {
                        latest.merge(copy(r.key()), r.offset(), Math::max);
                    }
                }
            }
        }
        return latest;
    }

    private static boolean isCommit(RecordBatch batch) {
        for (Record r : batch) {
            return r.hasKey() && org.apache.kafka.common.record.internal.ControlRecordType.parse(r.key())
                    == org.apache.kafka.common.record.internal.ControlRecordType.COMMIT;
        }
        return false;
    }

    /**
     * Writes the compacted copy of {@code seg} as a {@code .swap} file and returns its path, or null if nothing
     * would be removed.
     */
    static Path writeCleanedSwap(LogSegment seg, Map<ByteBuffer, Long> latest, long now, long deleteRetentionMs,
                                 int maxBatchSize) throws IOException {
        MemoryRecords records = MemoryRecords.readableRecords(seg.readAll());
        RecordFilter filter = new RecordFilter(now, deleteRetentionMs) {
            @Override
            protected BatchRetentionResult checkBatchRetention(RecordBatch batch) {
                return new BatchRetentionResult(BatchRetention.DELETE_EMPTY, false);
            }

            @Override
            protected boolean shouldRetainRecord(RecordBatch batch, Record record) {
                if (!record.hasKey()) return true;
                Long newest = latest.get(record.key());
                if (newest != null && record.offset() < newest) return false;
                if (!record.hasValue()) {
                    var horizon = batch.deleteHorizonMs();
                    return horizon.isEmpty() || now < horizon.getAsLong();
                }
                return true;
            }
        };
        ByteBuffer out = ByteBuffer.allocate(Math.max(64, records.sizeInBytes()));
        MemoryRecords.FilterResult result = records.filterTo(filter, out, BufferSupplier.NO_CACHING, maxBatchSize);
        ByteBuffer cleaned = result.outputBuffer();
        cleaned.flip();
        if (cleaned.remaining() == records.sizeInBytes() && cleaned.equals(records.buffer())) return null;
        Path cleanedFile = seg.logFile().resolveSibling(seg.logFile().getFileName() + LogFileNames.CLEANED);
        try (FileChannel ch = FileChannel.open(cleanedFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (cleaned.hasRemaining()) ch.write(cleaned);
            ch.force(true);
        }
        Path swap = seg.logFile().resolveSibling(seg.logFile().getFileName() + LogFileNames.SWAP);
        Files.move(cleanedFile, swap, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        CheckpointFile.fsyncDirectory(seg.logFile().getParent());
        return swap;
    }

    /**
     * Replaces {@code seg}'s .log by the swap file (old indexes deleted first, so a crash in between leaves a swap
     * that recovery completes) and returns the reopened segment with rebuilt, written indexes. Caller holds the
     * log's structure write lock.
     */
    static LogSegment swapIn(LogSegment seg, Path swap, Path dir, LogConfig cfg, long now) throws IOException {
        seg.closeHandlers();
        Files.deleteIfExists(seg.offsetIndex().file());
        Files.deleteIfExists(seg.timeIndex().file());
        Files.move(swap, seg.logFile(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        LogSegment replacement = LogSegment.openExisting(dir, seg.baseOffset(), cfg, now);
        replacement.recover(0, false, h -> { });
        replacement.onBecomeInactive();
        replacement.flush();
        CheckpointFile.fsyncDirectory(dir);
        return replacement;
    }

    private static ByteBuffer copy(ByteBuffer b) {
        ByteBuffer c = ByteBuffer.allocate(b.remaining());
        c.put(b.duplicate());
        c.flip();
        return c;
    }
}
