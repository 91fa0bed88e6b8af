package io.faultline.broker.storage;

import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * The answer to {@link PartitionLog#read}: whole record batches copied out of the log.
 *
 * @param records        whole batches; the first contains the requested offset (it may start before it,
 *                       as Kafka's does: consumers skip records below their position)
 * @param nextOffset     offset after the last returned batch (the fetch offset if nothing was returned)
 * @param reachedEnd     true when nothing more is readable below min(maxOffsetExclusive, log end offset)
 *                       after these records, i.e. a fetcher should wait for new data
 * @param logStartOffset log start offset at read time
 * @param logEndOffset   log end offset at read time
 * @param highWatermark  high watermark at read time
 */
public record LogReadResult(
        MemoryRecords records,
        long nextOffset,
        boolean reachedEnd,
        long logStartOffset,
        long logEndOffset,
        long highWatermark) {
}
