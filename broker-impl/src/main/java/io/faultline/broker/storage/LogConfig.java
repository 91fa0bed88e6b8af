package io.faultline.broker.storage;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.record.TimestampType;

/**
 * Per-partition log settings, named and defaulted like Kafka's topic configs.
 *
 * @param segmentBytes        segment.bytes: roll when the active segment would exceed this size
 * @param segmentMs           segment.ms: roll when the active segment's first batch is older than this
 * @param segmentIndexBytes   segment.index.bytes: max size of one .index (and .timeindex); roll when full
 * @param indexIntervalBytes  index.interval.bytes: bytes of log between two sparse index entries
 * @param flushMessages       flush.messages: fsync after this many unflushed records (Long.MAX_VALUE = never)
 * @param flushMs             flush.ms: fsync when the oldest unflushed data is older than this (Long.MAX_VALUE = never)
 * @param fsyncEveryAppend    Faultline extension: fsync before every append returns (strongest durability)
 * @param retentionMs         retention.ms: delete segments whose newest batch timestamp is older (-1 = forever)
 * @param retentionBytes      retention.bytes: delete oldest segments while the log exceeds this size (-1 = no limit)
 * @param cleanupPolicy       cleanup.policy
 * @param deleteRetentionMs   delete.retention.ms: how long compaction keeps tombstones
 * @param fileDeleteDelayMs   file.delete.delay.ms: time a ".deleted" file stays before it is removed
 * @param maxMessageBytes     max.message.bytes: largest batch accepted from a producer
 * @param timestampType       message.timestamp.type: CREATE_TIME or LOG_APPEND_TIME
 */
public record LogConfig(
        int segmentBytes,
        long segmentMs,
        int segmentIndexBytes,
        int indexIntervalBytes,
        long flushMessages,
        long flushMs,
        boolean fsyncEveryAppend,
        long retentionMs,
        long retentionBytes,
        Set<CleanupPolicy> cleanupPolicy,
        long deleteRetentionMs,
        long fileDeleteDelayMs,
        int maxMessageBytes,
        TimestampType timestampType) {

    public static final LogConfig DEFAULT = new LogConfig(
            1024 * 1024 * 1024, 7L * 24 * 3600 * 1000, 10 * 1024 * 1024, 4096,
            Long.MAX_VALUE, Long.MAX_VALUE, false,
            7L * 24 * 3600 * 1000, -1L, Set.of(CleanupPolicy.DELETE),
            24L * 3600 * 1000, 60_000L, 1024 * 1024 + 12, TimestampType.CREATE_TIME);

    public LogConfig {
        if (segmentBytes < 14) throw new IllegalArgumentException("segment.bytes too small: " + segmentBytes);
        if (segmentMs <= 0) throw new IllegalArgumentException("segment.ms must be positive");
        if (segmentIndexBytes < 12) throw new IllegalArgumentException("segment.index.bytes too small");
        if (indexIntervalBytes < 0) throw new IllegalArgumentException("index.interval.bytes < 0");
        if (flushMessages < 1 || flushMs < 0) throw new IllegalArgumentException("bad flush settings");
        if (cleanupPolicy == null || cleanupPolicy.isEmpty()) throw new IllegalArgumentException("cleanup.policy");
        if (timestampType != TimestampType.CREATE_TIME && timestampType != TimestampType.LOG_APPEND_TIME) {
            throw new IllegalArgumentException("message.timestamp.type: " + timestampType);
        }
        cleanupPolicy = Set.copyOf(cleanupPolicy);
    }

    public boolean compact() {
        return cleanupPolicy.contains(CleanupPolicy.COMPACT);
    }

    public boolean delete() {
        return cleanupPolicy.contains(CleanupPolicy.DELETE);
    }

    /**
     * Overlays Kafka-named topic configs ("segment.bytes", "retention.ms", "cleanup.policy",
     * "message.timestamp.type", ..., plus "faultline.fsync.every.append") on this config.
     * Unknown keys are ignored so a full Kafka topic config map can be passed.
     */
    public LogConfig with(Map<String, ?> kafkaConfigs) {
        Builder b = toBuilder();
        kafkaConfigs.forEach((k, v) -> {
            String s = String.valueOf(v).trim();
            switch (k) {
                case "segment.bytes" -> b.segmentBytes(Integer.parseInt(s));
                case "segment.ms" -> b.segmentMs(Long.parseLong(s));
                case "segment.index.bytes" -> b.segmentIndexBytes(Integer.parseInt(s));
                case "index.interval.bytes" -> b.indexIntervalBytes(Integer.parseInt(s));
                case "flush.messages" -> b.flushMessages(Long.parseLong(s));
                case "flush.ms" -> b.flushMs(Long.parseLong(s));
                case "faultline.fsync.every.append" -> b.fsyncEveryAppend(Boolean.parseBoolean(s));
                case "retention.ms" -> b.retentionMs(Long.parseLong(s));
                case "retention.bytes" -> b.retentionBytes(Long.parseLong(s));
                case "cleanup.policy" -> b.cleanupPolicy(CleanupPolicy.parse(s));
                case "delete.retention.ms" -> b.deleteRetentionMs(Long.parseLong(s));
                case "file.delete.delay.ms" -> b.fileDeleteDelayMs(Long.parseLong(s));
                case "max.message.bytes" -> b.maxMessageBytes(Integer.parseInt(s));
                case "message.timestamp.type" -> b.timestampType(
                        s.equalsIgnoreCase("LogAppendTime") ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME);
                default -> { }
            }
        });
        return b.build();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    public static Builder builder() {
        return new Builder(DEFAULT);
    }

    /** Mutable builder; not thread-safe. */
    public static final class Builder {
        private int segmentBytes;
        private long segmentMs;
        private int segmentIndexBytes;
        private int indexIntervalBytes;
        private long flushMessages;
        private long flushMs;
        private boolean fsyncEveryAppend;
        private long retentionMs;
        private long retentionBytes;
        private Set<CleanupPolicy> cleanupPolicy;
        private long deleteRetentionMs;
        private long fileDeleteDelayMs;
        private int maxMessageBytes;
        private TimestampType timestampType;

        private Builder(LogConfig c) {
            segmentBytes = c.segmentBytes;
            segmentMs = c.segmentMs;
            segmentIndexBytes = c.segmentIndexBytes;
            indexIntervalBytes = c.indexIntervalBytes;
            flushMessages = c.flushMessages;
            flushMs = c.flushMs;
            fsyncEveryAppend = c.fsyncEveryAppend;
            retentionMs = c.retentionMs;
            retentionBytes = c.retentionBytes;
            cleanupPolicy = c.cleanupPolicy;
            deleteRetentionMs = c.deleteRetentionMs;
            fileDeleteDelayMs = c.fileDeleteDelayMs;
            maxMessageBytes = c.maxMessageBytes;
            timestampType = c.timestampType;
        }

        public Builder segmentBytes(int v) { segmentBytes = v; return this; }
        public Builder segmentMs(long v) { segmentMs = v; return this; }
        public Builder segmentIndexBytes(int v) { segmentIndexBytes = v; return this; }
        public Builder indexIntervalBytes(int v) { indexIntervalBytes = v; return this; }
        public Builder flushMessages(long v) { flushMessages = v; return this; }
        public Builder flushMs(long v) { flushMs = v; return this; }
        public Builder fsyncEveryAppend(boolean v) { fsyncEveryAppend = v; return this; }
        public Builder retentionMs(long v) { retentionMs = v; return this; }
        public Builder retentionBytes(long v) { retentionBytes = v; return this; }
        public Builder cleanupPolicy(Set<CleanupPolicy> v) { cleanupPolicy = v; return this; }
        public Builder cleanupPolicy(CleanupPolicy... v) { cleanupPolicy = Set.of(v); return this; }
        public Builder deleteRetentionMs(long v) { deleteRetentionMs = v; return this; }
        public Builder fileDeleteDelayMs(long v) { fileDeleteDelayMs = v; return this; }
        public Builder maxMessageBytes(int v) { maxMessageBytes = v; return this; }
        public Builder timestampType(TimestampType v) { timestampType = v; return this; }

        public LogConfig build() {
            return new LogConfig(segmentBytes, segmentMs, segmentIndexBytes, indexIntervalBytes, flushMessages,
                    flushMs, fsyncEveryAppend, retentionMs, retentionBytes, cleanupPolicy, deleteRetentionMs,
                    fileDeleteDelayMs, maxMessageBytes, timestampType);
        }
    }
}
