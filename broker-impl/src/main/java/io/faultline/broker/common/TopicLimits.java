package io.faultline.broker.common;

/**
 * Hard limits on topic creation, checked before any work so that no request can make the broker create more
 * partition directories than it can open again at restart. Shared by today's CreateTopics path and the controller's
 * validation that will replace it.
 */
public final class TopicLimits {
    /** Kafka's controller refuses a request for more partitions than this (its MAX_PARTITIONS_PER_BATCH). */
    public static final int MAX_PARTITIONS_PER_REQUEST = 10_000;
    /** Kafka's answer, word for word, for a request over {@link #MAX_PARTITIONS_PER_REQUEST}. */
    public static final String EXCESSIVE_PARTITIONS_MESSAGE = "Excessively large number of partitions per request.";
    /** One topic may not have more partitions than one request may create. */
    public static final int MAX_PARTITIONS_PER_TOPIC = MAX_PARTITIONS_PER_REQUEST;
    /**
     * Partitions one broker hosts at most (a budget Kafka lacks): each costs a directory and a few open files, and the
     * broker must be able to reopen them all at restart within a file-descriptor limit of 20,000 (this machine's).
     */
    public static final int MAX_PARTITIONS_PER_BROKER = 4_000;
    /** Topic names are at most 249 characters (Kafka's Topic.MAX_NAME_LENGTH). */
    public static final int MAX_TOPIC_NAME_LENGTH = 249;

    private TopicLimits() {
    }

    /** Total partitions a request asks for, saturating instead of overflowing. */
    public static long sum(long a, long b) {
        long s = a + b;
        return s < 0 ? Long.MAX_VALUE : s;
    }
}
