package io.faultline.broker.storage;

import java.util.List;
import java.util.Optional;

/**
 * ListOffsets by timestamp, as Kafka's UnifiedLog.fetchOffsetByTimestamp: the special timestamps LATEST (-1),
 * EARLIEST (-2) and MAX_TIMESTAMP (-3), or the first record whose timestamp is &gt;= the target, searching the first
 * segment whose largest timestamp reaches it via its time index.
 *
 * <p>Thread-safety: stateless; the caller holds the log's read lock.
 */
final class TimestampLookup {
    private TimestampLookup() {
    }

    static Optional<TimestampAndOffset> find(List<LogSegment> segments, long timestamp, long logStart, long logEnd,
                                             LeaderEpochCache epochs) {
        if (timestamp == PartitionLog.LATEST_TIMESTAMP) {
            return Optional.of(new TimestampAndOffset(-1, logEnd, epochs.latestEpoch()));
        }
        if (timestamp == PartitionLog.EARLIEST_TIMESTAMP) {
            return Optional.of(new TimestampAndOffset(-1, logStart, epochs.epochForOffset(logStart)));
        }
        if (timestamp == PartitionLog.MAX_TIMESTAMP) {
            LogSegment best = null;
            for (LogSegment s : segments) {
                if (s.maxTimestampSoFar() >= 0 && (best == null || s.maxTimestampSoFar() > best.maxTimestampSoFar())) {
                    best = s;
                }
            }
            return best == null ? Optional.empty()
                    : Optional.ofNullable(best.findOffsetByTimestamp(best.maxTimestampSoFar(), logStart));
        }
        if (timestamp < 0) throw new IllegalArgumentException("unsupported special timestamp " + timestamp);
        for (LogSegment s : segments) {
            if (s.nextOffset() <= logStart && !s.isEmpty()) continue; // entirely below the log start
            if (s.maxTimestampSoFar() >= timestamp) {
                TimestampAndOffset t = s.findOffsetByTimestamp(timestamp, logStart);
                if (t != null) return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
