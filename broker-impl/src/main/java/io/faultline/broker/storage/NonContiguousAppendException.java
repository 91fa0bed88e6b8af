package io.faultline.broker.storage;

import org.apache.kafka.common.InvalidRecordException;

/** A follower append whose offsets do not continue the log (maps to Kafka's UNKNOWN_SERVER_ERROR / a refetch). */
public final class NonContiguousAppendException extends InvalidRecordException {
    private final long expectedOffset;
    private final long actualOffset;

    public NonContiguousAppendException(String message, long expectedOffset, long actualOffset) {
        super(message);
        this.expectedOffset = expectedOffset;
        this.actualOffset = actualOffset;
    }

    public long expectedOffset() {
        return expectedOffset;
    }

    public long actualOffset() {
        return actualOffset;
    }
}
