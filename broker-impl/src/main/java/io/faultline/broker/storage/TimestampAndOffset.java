package io.faultline.broker.storage;

import java.util.Optional;

/**
 * Result of a ListOffsets-style lookup: the first record with timestamp &gt;= the target.
 *
 * @param timestamp   the record's timestamp (-1 for the special LATEST/EARLIEST lookups)
 * @param offset      the record's offset
 * @param leaderEpoch partitionLeaderEpoch of the batch holding it, if known
 */
public record TimestampAndOffset(long timestamp, long offset, Optional<Integer> leaderEpoch) {
}
