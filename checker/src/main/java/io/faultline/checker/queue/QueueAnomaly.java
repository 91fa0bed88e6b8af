package io.faultline.checker.queue;

/** Anomaly categories of the queue analysis, named and defined as in Jepsen's Kafka workload. */
public enum QueueAnomaly {
    /** An acknowledged send, below the highest offset some poll reached, that no poll ever read. */
    LOST_WRITE("lost-write"),
    /** An acknowledged send that no poll ever read, as of the end of the history. */
    UNSEEN("unseen"),
    /** Two different values observed at one offset of one key: the log diverged. */
    INCONSISTENT_OFFSETS("inconsistent-offsets"),
    /** One value observed at more than one offset of a key. */
    DUPLICATE("duplicate"),
    /** Aborted read: a poll returned a value whose send definitely failed. */
    G1A("G1a"),
    /** A transaction polled a value it sent itself, before committing. */
    PRECOMMITTED_READ("precommitted-read"),
    /** A process's poll resumed past values it should have read next. */
    POLL_SKIP("poll-skip"),
    /** A process's poll went back to (or repeated) a point at or before where its previous poll ended. */
    NONMONOTONIC_POLL("nonmonotonic-poll"),
    /**
     * A consumer with a manual assignment (no group) resumed past values it should have read next. Only named apart
     * from {@link #POLL_SKIP} in histories where some consumers subscribe (where a group member's skip is allowed):
     * nothing moves an assigned consumer but its own polls and seeks, so for it a skip is never allowed.
     */
    ASSIGNED_POLL_SKIP("assigned-poll-skip"),
    /** The same for a reversal or repeat: an assigned consumer went back without a seek. */
    ASSIGNED_NONMONOTONIC_POLL("assigned-nonmonotonic-poll"),
    /**
     * A consumer with a manual assignment read offset o and then, next on the same key, an offset above o + 1 with no
     * value known at the offsets between: a hole in the log. A log written without transactions (whose markers take
     * offsets) and without compaction is dense, so a reader going forward sees every offset.
     */
    OFFSET_GAP("offset-gap"),
    /**
     * A consumer group member's poll returned a record of a partition below an offset the same group had committed
     * for that partition, where the commit was acknowledged (the committing poll completed ok) before this poll began:
     * a committed offset lost or moved back, a commit from a stale generation accepted, or an offset fetch that served
     * stale data. At-least-once delivery redelivers only what was read after the last acknowledged commit.
     */
    GROUP_REWIND("group-rewind"),
    /** Within one poll, two consecutive records of a key skip over part of the log. */
    INT_POLL_SKIP("int-poll-skip"),
    /** Within one poll, two consecutive records of a key go backwards or repeat. */
    INT_NONMONOTONIC_POLL("int-nonmonotonic-poll"),
    /** A process's send landed at or before its previous send to the same key. */
    NONMONOTONIC_SEND("nonmonotonic-send"),
    /** Within one op, a later send to a key landed at or before an earlier one. */
    INT_NONMONOTONIC_SEND("int-nonmonotonic-send"),
    /** Within one op, consecutive sends to a key are not adjacent in the log (normal: others interleave). */
    INT_SEND_SKIP("int-send-skip");

    private final String wireName;

    QueueAnomaly(String wireName) {
        this.wireName = wireName;
    }

    /** Jepsen's name for the category, used as the key in results. */
    public String wireName() {
        return wireName;
    }
}
