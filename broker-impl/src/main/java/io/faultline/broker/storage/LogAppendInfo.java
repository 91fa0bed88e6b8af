package io.faultline.broker.storage;

/**
 * What an append did.
 *
 * @param firstOffset          offset of the first record appended
 * @param lastOffset           offset of the last record appended
 * @param maxTimestamp         largest batch max-timestamp appended (RecordBatch.NO_TIMESTAMP if none)
 * @param offsetOfMaxTimestamp last offset of the batch carrying maxTimestamp (Kafka's "shallow" offset)
 * @param logAppendTime        the broker time stamped into the batches, or -1 when message.timestamp.type=CreateTime
 * @param logStartOffset       log start offset after the append
 * @param recordCount          number of records appended
 * @param validBytes           bytes appended to the log
 */
public record LogAppendInfo(
        long firstOffset,
        long lastOffset,
        long maxTimestamp,
        long offsetOfMaxTimestamp,
        long logAppendTime,
        long logStartOffset,
        int recordCount,
        int validBytes) {
}
