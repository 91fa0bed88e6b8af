package io.faultline.broker.storage;

import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.SeededBugs;
import io.faultline.broker.common.Time;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads a partition directory after any kind of stop, in the spirit of Kafka's LogLoader:
 * <ol>
 *   <li>finishes or discards interrupted operations: {@code .deleted}, {@code .cleaned} and {@code .tmp} files are
 *       removed, a {@code .swap} (a complete compacted segment) replaces its segment;</li>
 *   <li>segments below the recovery point (or all, after a clean shutdown) keep their indexes if they pass the
 *       sanity check; the others are re-validated batch by batch (CRC, sizes, increasing offsets), cut at the first
 *       bad byte, and every later segment is deleted;</li>
 *   <li>the leader epoch cache is rebuilt from the recovered batches and clamped to [logStart, logEnd].</li>
 * </ol>
 * Corrupt data never fails the load: it is cut and logged. Only I/O errors propagate.
 *
 * <p>Thread-safety: runs before the log is published, on one thread.
 */
final class LogRecovery {
    private static final Logger log = LoggerFactory.getLogger(LogRecovery.class);

    /** Result of loading: ordered segments and the recovered offsets. */
    record Loaded(TreeMap<Long, LogSegment> segments, long logEndOffset, long logStartOffset) {
    }

    private LogRecovery() {
    }

    static Loaded load(Path dir, LogConfig config, Time clock, RecoveryState state, LeaderEpochCache epochCache)
            throws IOException {
        return load(dir, config, clock, state, epochCache, SeededBugs.NONE);
    }

    static Loaded load(Path dir, LogConfig config, Time clock, RecoveryState state, LeaderEpochCache epochCache,
                       SeededBugs bugs) throws IOException {
        boolean verifyContent = !bugs.on(SeededBug.RECOVERY_KEEPS_TORN_BATCH);
        long now = clock.milliseconds();
        TreeSet<Long> bases = cleanUpAndListSegments(dir);
        TreeMap<Long, LogSegment> segments = new TreeMap<>();
        for (long base : bases) segments.put(base, LogSegment.openExisting(dir, base, config, now));

        long recoverFrom = state.cleanShutdown() ? Long.MAX_VALUE : state.recoveryPoint();
        long prevNext = -1;
        boolean epochCacheTruncated = false;
        List<Long> order = new ArrayList<>(segments.keySet());
        for (int i = 0; i < order.size(); i++) {
            long base = order.get(i);
            LogSegment seg = segments.get(base);
            long upper = i + 1 < order.size() ? order.get(i + 1) : Long.MAX_VALUE;
            // Once one segment is recovered, all later ones are too: the epoch cache is rebuilt from that point on,
            // so every later batch must be seen again (a bad index in an old segment costs a rescan of the rest).
            boolean needsRecovery = epochCacheTruncated || upper > recoverFrom || !seg.loadIndexes()
                    || seg.nextOffset() > upper
                    || (prevNext >= 0 && !seg.isEmpty() && firstOffsetBelow(seg, prevNext));
            int cut = 0;
            if (needsRecovery && !config.compact() && prevNext >= 0 && base != prevNext) {
                // Without compaction, segments are contiguous: a hole means an unflushed segment lost its tail
                // while a later one survived (no ordering between files without fsync). Keep the prefix only.
                log.warn("Recovery of {}: segment {} starts at {} but the log before it ends at {}", dir, seg,
                        base, prevNext);
                for (int j = i; j < order.size(); j++) {
                    LogSegment later = segments.remove(order.get(j));
                    later.deleteFiles();
                }
                break;
            }
            if (needsRecovery) {
                if (!epochCacheTruncated) {
                    // the tail is rebuilt from the data itself: forget what the checkpoint said about it
                    epochCache.truncateFromEnd(base);
                    epochCacheTruncated = true;
                }
                long min = Math.max(prevNext, 0);
                cut = seg.recover(min, !config.compact(), verifyContent,
                        h -> epochCache.assign(h.partitionLeaderEpoch(), h.baseOffset()));
                if (seg.nextOffset() > upper) {
                    // batches running into the next segment's range: keep this one, drop the later ones
                    cut = Math.max(cut, 1);
                }
            }
            prevNext = Math.max(seg.nextOffset(), prevNext);
            if (cut > 0 && i + 1 < order.size()) {
                for (int j = i + 1; j < order.size(); j++) {
                    LogSegment later = segments.remove(order.get(j));
                    log.warn("Recovery of {}: deleting segment {} after corruption in {}", dir, later, seg);
                    later.deleteFiles();
                }
                break;
            }
        }

        if (segments.isEmpty()) {
            long start = state.logStartOffset();
            segments.put(start, LogSegment.create(dir, start, config, now));
        }
        LogSegment last = segments.lastEntry().getValue();
        long logEnd = Math.max(last.nextOffset(), last.baseOffset());
        long logStart = Math.max(state.logStartOffset(), segments.firstKey());
        if (logStart > logEnd) {
            log.warn("Recovery of {}: log start offset {} is beyond the recovered end {}; starting empty at {}",
                    dir, logStart, logEnd, logStart);
            for (LogSegment s : segments.values()) s.deleteFiles();
            segments.clear();
            segments.put(logStart, LogSegment.create(dir, logStart, config, now));
            epochCache.clear();
            logEnd = logStart;
        }
        epochCache.truncateFromEnd(logEnd);
        epochCache.truncateFromStart(logStart);
        // Make what was recovered durable so the recovery point can be the end.
        for (LogSegment s : segments.values()) {
            if (s.nextOffset() > state.recoveryPoint() || s == segments.lastEntry().getValue()) s.flush();
        }
        CheckpointFile.fsyncDirectory(dir);
        return new Loaded(segments, logEnd, logStart);
    }

    /** True when the segment's first batch overlaps the previous segment, or its header is unreadable. */
    private static boolean firstOffsetBelow(LogSegment seg, long prevNext) {
        try {
            var h = seg.headerAt(0, seg.size());
            return h == null || h.baseOffset() < prevNext;
        } catch (RuntimeException e) {
            return true;
        }
    }

    /** Completes swaps, removes leftovers, returns the base offsets of the .log files. */
    private static TreeSet<Long> cleanUpAndListSegments(Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.toList();
        }
        // swaps first: a .swap file is a complete, fsynced compacted segment
        for (Path f : files) {
            String name = f.getFileName().toString();
            if (name.endsWith(LogFileNames.LOG + LogFileNames.SWAP)) {
                long base = LogFileNames.baseOffsetOf(f);
                Path target = LogFileNames.logFile(dir, base);
                log.info("Completing interrupted compaction swap {}", f);
                Files.deleteIfExists(LogFileNames.indexFile(dir, base));
                Files.deleteIfExists(LogFileNames.timeIndexFile(dir, base));
                Files.move(f, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        TreeSet<Long> logBases = new TreeSet<>();
        Map<Long, List<Path>> indexFiles = new TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            files = s.toList();
        }
        for (Path f : files) {
            String name = f.getFileName().toString();
            if (name.endsWith(LogFileNames.DELETED) || name.endsWith(LogFileNames.CLEANED) || name.endsWith(".tmp")
                    || name.endsWith(LogFileNames.SWAP)) {
                Files.deleteIfExists(f);
                continue;
            }
            long base = LogFileNames.baseOffsetOf(f);
            if (base < 0) continue;
            if (name.endsWith(LogFileNames.LOG)) logBases.add(base);
            else if (name.endsWith(LogFileNames.INDEX) || name.endsWith(LogFileNames.TIME_INDEX)) {
                indexFiles.computeIfAbsent(base, b -> new ArrayList<>()).add(f);
            }
        }
        for (var e : indexFiles.entrySet()) {
            if (!logBases.contains(e.getKey())) {
                for (Path f : e.getValue()) {
                    log.info("Deleting orphan index {}", f);
                    Files.deleteIfExists(f);
                }
            }
        }
        return logBases;
    }
}
