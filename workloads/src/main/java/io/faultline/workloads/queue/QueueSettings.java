package io.faultline.workloads.queue;

import java.util.Map;

/**
 * Kafka client settings for one run.
 *
 * @param acks               "0", "1" or "all"
 * @param idempotence        enable.idempotence (requires acks=all and retries &gt; 0)
 * @param retries            producer retries
 * @param requestTimeoutMs   request.timeout.ms (producer and consumer)
 * @param deliveryTimeoutMs  delivery.timeout.ms: upper bound on a send, retries included
 * @param consumerMode       ASSIGN (manual partitions) or SUBSCRIBE (consumer group)
 * @param isolationLevel     "read_committed" or "read_uncommitted"
 * @param pollMs             how long one poll waits for records
 * @param maxPollRecords     max.poll.records
 * @param groupId            consumer group for SUBSCRIBE (null: derived from the topic prefix)
 * @param partitionsPerTopic keys map to topic-partitions: key k is partition k % n of topic prefix-(k / n)
 * @param replicationFactor  for topics we create; -1 means the broker's default
 * @param createTopics       create topics with the Admin API before first use (else rely on auto-creation)
 * @param extraProducer      further producer properties, applied last
 * @param extraConsumer      further consumer properties, applied last
 * @param clientRacks        client.rack of the workers' consumers, worker t taking entry t mod size ("" for none);
 *                           empty: no worker names a rack. With brokers whose replica.selector.class is rack-aware, a
 *                           consumer in a follower's rack reads from that follower (KIP-392)
 */
public record QueueSettings(String acks, boolean idempotence, int retries, int requestTimeoutMs,
                            int deliveryTimeoutMs, ConsumerMode consumerMode, String isolationLevel, int pollMs,
                            int maxPollRecords, String groupId, int partitionsPerTopic, short replicationFactor,
                            boolean createTopics, Map<String, String> extraProducer,
                            Map<String, String> extraConsumer, java.util.List<String> clientRacks) {

    public enum ConsumerMode { ASSIGN, SUBSCRIBE }

    public QueueSettings {
        if (!acks.equals("0") && !acks.equals("1") && !acks.equals("all") && !acks.equals("-1")) {
            throw new IllegalArgumentException("acks must be 0, 1 or all: " + acks);
        }
        if (idempotence && !(acks.equals("all") || acks.equals("-1"))) {
            throw new IllegalArgumentException("idempotence requires acks=all");
        }
        if (idempotence && retries < 1) {
            throw new IllegalArgumentException("idempotence requires retries > 0");
        }
        if (deliveryTimeoutMs < requestTimeoutMs) {
            throw new IllegalArgumentException("delivery.timeout.ms must be ≥ request.timeout.ms");
        }
        if (!isolationLevel.equals("read_committed") && !isolationLevel.equals("read_uncommitted")) {
            throw new IllegalArgumentException("isolation level: " + isolationLevel);
        }
        if (partitionsPerTopic < 1) {
            throw new IllegalArgumentException("partitionsPerTopic must be ≥ 1");
        }
        extraProducer = Map.copyOf(extraProducer);
        extraConsumer = Map.copyOf(extraConsumer);
        clientRacks = clientRacks == null ? java.util.List.of() : java.util.List.copyOf(clientRacks);
    }

    /**
     * acks=all, idempotent, assign, read_committed, 100 ms polls (a poll with nothing new blocks a worker that
     * long), timeouts suited to fault injection (see FACTS.md). delivery.timeout.ms stays 15 s: 6 s was tried (so
     * that workers stuck on an unavailable partition return sooner) and on a starved machine turned slow but
     * successful sends into indeterminate ones, each closing and reopening its worker's clients: fewer ok ops.
     */
    public static QueueSettings defaults() {
        return new QueueSettings("all", true, Integer.MAX_VALUE, 5_000, 15_000, ConsumerMode.ASSIGN,
                "read_committed", 100, 100, null, 1, (short) -1, true, Map.of(), Map.of(), java.util.List.of());
    }

    public QueueSettings withAcks(String a, boolean idem) {
        return new QueueSettings(a, idem, retries, requestTimeoutMs, deliveryTimeoutMs, consumerMode,
                isolationLevel, pollMs, maxPollRecords, groupId, partitionsPerTopic, replicationFactor, createTopics,
                extraProducer, extraConsumer, clientRacks);
    }

    public QueueSettings withRetries(int r) {
        return new QueueSettings(acks, idempotence, r, requestTimeoutMs, deliveryTimeoutMs, consumerMode,
                isolationLevel, pollMs, maxPollRecords, groupId, partitionsPerTopic, replicationFactor, createTopics,
                extraProducer, extraConsumer, clientRacks);
    }

    public QueueSettings withTimeouts(int requestMs, int deliveryMs) {
        return new QueueSettings(acks, idempotence, retries, requestMs, deliveryMs, consumerMode, isolationLevel,
                pollMs, maxPollRecords, groupId, partitionsPerTopic, replicationFactor, createTopics, extraProducer,
                extraConsumer, clientRacks);
    }

    public QueueSettings withConsumer(ConsumerMode mode, String isolation) {
        return new QueueSettings(acks, idempotence, retries, requestTimeoutMs, deliveryTimeoutMs, mode, isolation,
                pollMs, maxPollRecords, groupId, partitionsPerTopic, replicationFactor, createTopics, extraProducer,
                extraConsumer, clientRacks);
    }

    public QueueSettings withTopics(int partitions, short replication, boolean create) {
        return new QueueSettings(acks, idempotence, retries, requestTimeoutMs, deliveryTimeoutMs, consumerMode,
                isolationLevel, pollMs, maxPollRecords, groupId, partitions, replication, create, extraProducer,
                extraConsumer, clientRacks);
    }

    public QueueSettings withPolling(int pollMillis, int maxRecords) {
        return new QueueSettings(acks, idempotence, retries, requestTimeoutMs, deliveryTimeoutMs, consumerMode,
                isolationLevel, pollMillis, maxRecords, groupId, partitionsPerTopic, replicationFactor, createTopics,
                extraProducer, extraConsumer, clientRacks);
    }

    public QueueSettings withExtra(Map<String, String> producer, Map<String, String> consumer) {
        return new QueueSettings(acks, idempotence, retries, requestTimeoutMs, deliveryTimeoutMs, consumerMode,
                isolationLevel, pollMs, maxPollRecords, groupId, partitionsPerTopic, replicationFactor, createTopics,
                producer, consumer, clientRacks);
    }

    public QueueSettings withClientRacks(java.util.List<String> racks) {
        return new QueueSettings(acks, idempotence, retries, requestTimeoutMs, deliveryTimeoutMs, consumerMode,
                isolationLevel, pollMs, maxPollRecords, groupId, partitionsPerTopic, replicationFactor, createTopics,
                extraProducer, extraConsumer, racks);
    }

    /** The client.rack of worker {@code thread}'s consumer, or null for none. */
    public String clientRack(int thread) {
        if (clientRacks.isEmpty()) return null;
        String r = clientRacks.get(Math.floorMod(thread, clientRacks.size()));
        return r.isEmpty() ? null : r;
    }

    public boolean subscribes() {
        return consumerMode == ConsumerMode.SUBSCRIBE;
    }
}
