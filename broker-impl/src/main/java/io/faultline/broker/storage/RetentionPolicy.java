package io.faultline.broker.storage;

import java.util.ArrayList;
import java.util.List;

/**
 * Decides which whole segments retention may delete, as Kafka's UnifiedLog.deleteOldSegments does: a prefix of
 * the log, only segments entirely below the high watermark, because of the log start offset (any cleanup policy),
 * retention.ms (newest batch timestamp older than now - retention.ms; a timestamp in the future keeps the
 * segment, which is what clock skew does) or retention.bytes (oldest first while the log stays above the limit).
 *
 * <p>Thread-safety: stateless.
 */
final class RetentionPolicy {
    private RetentionPolicy() {
    }

    /**
     * @param segments  all segments, oldest first; the last is the active one
     * @param logEnd    log end offset (upper bound of the last segment)
     * @return the prefix of segments to delete (may include the active segment, which the caller must roll first)
     */
    static List<LogSegment> deletable(List<LogSegment> segments, long logEnd, long highWatermark, long logStartOffset,
                                      LogConfig config, long now) {
        List<LogSegment> out = new ArrayList<>();
        long total = 0;
        for (LogSegment s : segments) total += s.size();
        long sizeExcess = config.delete() && config.retentionBytes() >= 0 ? total - config.retentionBytes() : Long.MIN_VALUE;
        for (int i = 0; i < segments.size(); i++) {
            LogSegment s = segments.get(i);
            boolean isLast = i == segments.size() - 1;
            long upper = isLast ? logEnd : segments.get(i + 1).baseOffset();
            if (upper > highWatermark) break;
            if (isLast && s.isEmpty()) break;
            boolean byStart = upper <= logStartOffset;
            boolean byTime = config.delete() && config.retentionMs() >= 0
                    && now - s.largestTimestamp() > config.retentionMs();
            boolean bySize = sizeExcess != Long.MIN_VALUE && sizeExcess - s.size() >= 0;
            if (!(byStart || byTime || bySize)) break;
            out.add(s);
            if (sizeExcess != Long.MIN_VALUE) sizeExcess -= s.size();
        }
        return out;
    }
}
