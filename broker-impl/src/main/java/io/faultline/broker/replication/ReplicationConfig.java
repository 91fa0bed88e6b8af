package io.faultline.broker.replication;

import io.faultline.broker.common.SeededBugs;
import java.util.Properties;

/**
 * Broker-level replication settings, with Kafka's names and defaults.
 *
 * @param replicaLagTimeMaxMs     a follower not caught up for this long leaves the ISR (replica.lag.time.max.ms)
 * @param fetchBackoffMs          pause of a fetcher partition after an error (replica.fetch.backoff.ms)
 * @param fetchMaxWaitMs          how long the leader may hold a follower's fetch (replica.fetch.wait.max.ms)
 * @param fetchMaxBytes           bytes per fetch response (replica.fetch.response.max.bytes)
 * @param partitionFetchMaxBytes  bytes per partition (replica.fetch.max.bytes)
 * @param socketTimeoutMs         connect/read timeout of the fetcher's connection (replica.socket.timeout.ms)
 * @param truncation              how a new follower truncates ({@value TruncationMode#CONFIG})
 * @param bugs                    seeded replication bugs switched on (none by default)
 */
public record ReplicationConfig(long replicaLagTimeMaxMs, long fetchBackoffMs, int fetchMaxWaitMs, int fetchMaxBytes,
                                int partitionFetchMaxBytes, int socketTimeoutMs, TruncationMode truncation,
                                SeededBugs bugs) {
    public static final ReplicationConfig DEFAULT = new ReplicationConfig(30_000, 1_000, 500, 10 * 1024 * 1024,
            1024 * 1024, 30_000, TruncationMode.LEADER_EPOCH);

    public ReplicationConfig(long replicaLagTimeMaxMs, long fetchBackoffMs, int fetchMaxWaitMs, int fetchMaxBytes,
                             int partitionFetchMaxBytes, int socketTimeoutMs, TruncationMode truncation) {
        this(replicaLagTimeMaxMs, fetchBackoffMs, fetchMaxWaitMs, fetchMaxBytes, partitionFetchMaxBytes,
                socketTimeoutMs, truncation, SeededBugs.NONE);
    }

    public ReplicationConfig {
        if (bugs == null) bugs = SeededBugs.NONE;
        if (replicaLagTimeMaxMs <= 0 || fetchBackoffMs < 0 || fetchMaxWaitMs < 0 || fetchMaxBytes <= 0
                || partitionFetchMaxBytes <= 0 || socketTimeoutMs <= 0 || truncation == null) {
            throw new IllegalArgumentException("invalid replication config " + this);
        }
    }

    public static ReplicationConfig from(Properties p) {
        return new ReplicationConfig(
                Long.parseLong(p.getProperty("replica.lag.time.max.ms", "30000").trim()),
                Long.parseLong(p.getProperty("replica.fetch.backoff.ms", "1000").trim()),
                Integer.parseInt(p.getProperty("replica.fetch.wait.max.ms", "500").trim()),
                Integer.parseInt(p.getProperty("replica.fetch.response.max.bytes", "10485760").trim()),
                Integer.parseInt(p.getProperty("replica.fetch.max.bytes", "1048576").trim()),
                Integer.parseInt(p.getProperty("replica.socket.timeout.ms", "30000").trim()),
                TruncationMode.parse(p.getProperty(TruncationMode.CONFIG)));
    }

    public ReplicationConfig withTruncation(TruncationMode mode) {
        return new ReplicationConfig(replicaLagTimeMaxMs, fetchBackoffMs, fetchMaxWaitMs, fetchMaxBytes,
                partitionFetchMaxBytes, socketTimeoutMs, mode, bugs);
    }

    public ReplicationConfig withReplicaLagTimeMaxMs(long ms) {
        return new ReplicationConfig(ms, fetchBackoffMs, fetchMaxWaitMs, fetchMaxBytes, partitionFetchMaxBytes,
                socketTimeoutMs, truncation, bugs);
    }

    public ReplicationConfig withBugs(SeededBugs seeded) {
        return new ReplicationConfig(replicaLagTimeMaxMs, fetchBackoffMs, fetchMaxWaitMs, fetchMaxBytes,
                partitionFetchMaxBytes, socketTimeoutMs, truncation, seeded);
    }
}
