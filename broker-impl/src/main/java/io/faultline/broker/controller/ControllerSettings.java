package io.faultline.broker.controller;

import io.faultline.broker.common.SeededBugs;

/**
 * Tunables of the controller and its Raft quorum (Kafka names in comments).
 *
 * @param brokerSessionTimeoutMs    broker.session.timeout.ms: a broker silent this long is fenced
 * @param brokerHeartbeatIntervalMs broker.heartbeat.interval.ms: how often brokers are expected to heartbeat
 * @param defaultReplicationFactor  default.replication.factor (CreateTopics with -1)
 * @param defaultNumPartitions      num.partitions (CreateTopics with -1)
 * @param maxPartitionsPerTopic     cap on one topic's partition count (INVALID_PARTITIONS above it)
 * @param maxPartitionsPerRequest   cap on partitions created by one request (POLICY_VIOLATION, as Kafka)
 * @param maxPartitionsTotal        cluster-wide partition budget (POLICY_VIOLATION when exceeded)
 * @param electionTimeoutMinMs      Raft election timeout lower bound (controller.quorum.election.timeout.ms)
 * @param electionTimeoutMaxMs      Raft election timeout upper bound (randomised between min and max)
 * @param snapshotThreshold         Raft log entries between automatic snapshots of the image
 * @param writeTimeoutMs            how long a request waits for its records to commit before failing
 * @param raftSegmentBytes          Raft log segment size; only closed segments are purged after a snapshot, and a
 *                                  segment must hold the biggest batch (a CreateTopics at the per-request cap)
 * @param bugs                      seeded controller bugs switched on (none by default)
 * @param uncleanLeaderElection     unclean.leader.election.enable (the static default)
 * @param autoLeaderRebalance       auto.leader.rebalance.enable: move leadership back to preferred replicas
 * @param leaderImbalanceCheckIntervalMs     leader.imbalance.check.interval.seconds, in ms
 * @param leaderImbalancePerBrokerPercentage leader.imbalance.per.broker.percentage
 */
public record ControllerSettings(int brokerSessionTimeoutMs, int brokerHeartbeatIntervalMs,
                                 short defaultReplicationFactor, int defaultNumPartitions, int maxPartitionsPerTopic,
                                 int maxPartitionsPerRequest, int maxPartitionsTotal, int electionTimeoutMinMs,
                                 int electionTimeoutMaxMs, long snapshotThreshold, int writeTimeoutMs,
                                 long raftSegmentBytes, SeededBugs bugs,
                                 boolean uncleanLeaderElection, boolean autoLeaderRebalance,
                                 long leaderImbalanceCheckIntervalMs, int leaderImbalancePerBrokerPercentage) {

    public static final ControllerSettings DEFAULTS = new ControllerSettings(9000, 2000, (short) 1, 1, 10_000,
            10_000, 20_000, 500, 1000, 1000, 5_000, 8L << 20, SeededBugs.NONE, false, true, 300_000L, 10);

    public ControllerSettings {
        if (bugs == null) bugs = SeededBugs.NONE;
        if (brokerSessionTimeoutMs <= 0 || brokerHeartbeatIntervalMs <= 0) throw new IllegalArgumentException("timeouts must be > 0");
        if (defaultReplicationFactor <= 0 || defaultNumPartitions <= 0) throw new IllegalArgumentException("defaults must be > 0");
        if (maxPartitionsPerTopic <= 0 || maxPartitionsPerRequest <= 0 || maxPartitionsTotal <= 0) {
            throw new IllegalArgumentException("partition caps must be > 0");
        }
        if (electionTimeoutMinMs <= 0 || electionTimeoutMaxMs < electionTimeoutMinMs) {
            throw new IllegalArgumentException("need 0 < electionTimeoutMinMs <= electionTimeoutMaxMs");
        }
        if (snapshotThreshold <= 0 || writeTimeoutMs <= 0 || raftSegmentBytes < (64 << 10)) {
            // Ratis' write buffer is 64 KiB by default: a segment must be at least that big.
            throw new IllegalArgumentException("snapshotThreshold and writeTimeoutMs must be > 0, raftSegmentBytes >= 64 KiB");
        }
        if (leaderImbalanceCheckIntervalMs <= 0 || leaderImbalancePerBrokerPercentage < 0) {
            throw new IllegalArgumentException("leaderImbalanceCheckIntervalMs must be > 0, the percentage >= 0");
        }
    }

    /** auto.leader.rebalance.enable, leader.imbalance.check.interval.seconds (ms here) and the allowed imbalance. */
    public ControllerSettings withLeaderRebalance(boolean enabled, long checkIntervalMs, int imbalancePercentage) {
        return new ControllerSettings(brokerSessionTimeoutMs, brokerHeartbeatIntervalMs, defaultReplicationFactor,
                defaultNumPartitions, maxPartitionsPerTopic, maxPartitionsPerRequest, maxPartitionsTotal,
                electionTimeoutMinMs, electionTimeoutMaxMs, snapshotThreshold, writeTimeoutMs, raftSegmentBytes, bugs,
                uncleanLeaderElection, enabled, checkIntervalMs, imbalancePercentage);
    }

    public ControllerSettings withSessionTimeout(int sessionMs, int heartbeatMs) {
        return new ControllerSettings(sessionMs, heartbeatMs, defaultReplicationFactor, defaultNumPartitions,
                maxPartitionsPerTopic, maxPartitionsPerRequest, maxPartitionsTotal, electionTimeoutMinMs,
                electionTimeoutMaxMs, snapshotThreshold, writeTimeoutMs, raftSegmentBytes, bugs, uncleanLeaderElection,
                autoLeaderRebalance, leaderImbalanceCheckIntervalMs, leaderImbalancePerBrokerPercentage);
    }

    public ControllerSettings withDefaults(short replicationFactor, int numPartitions) {
        return new ControllerSettings(brokerSessionTimeoutMs, brokerHeartbeatIntervalMs, replicationFactor,
                numPartitions, maxPartitionsPerTopic, maxPartitionsPerRequest, maxPartitionsTotal,
                electionTimeoutMinMs, electionTimeoutMaxMs, snapshotThreshold, writeTimeoutMs, raftSegmentBytes, bugs, uncleanLeaderElection,
                autoLeaderRebalance, leaderImbalanceCheckIntervalMs, leaderImbalancePerBrokerPercentage);
    }

    public ControllerSettings withPartitionLimits(int perTopic, int perRequest, int total) {
        return new ControllerSettings(brokerSessionTimeoutMs, brokerHeartbeatIntervalMs, defaultReplicationFactor,
                defaultNumPartitions, perTopic, perRequest, total, electionTimeoutMinMs, electionTimeoutMaxMs,
                snapshotThreshold, writeTimeoutMs, raftSegmentBytes, bugs, uncleanLeaderElection,
                autoLeaderRebalance, leaderImbalanceCheckIntervalMs, leaderImbalancePerBrokerPercentage);
    }

    public ControllerSettings withRaft(int electionMinMs, int electionMaxMs, long snapshotEvery) {
        return new ControllerSettings(brokerSessionTimeoutMs, brokerHeartbeatIntervalMs, defaultReplicationFactor,
                defaultNumPartitions, maxPartitionsPerTopic, maxPartitionsPerRequest, maxPartitionsTotal,
                electionMinMs, electionMaxMs, snapshotEvery, writeTimeoutMs, raftSegmentBytes, bugs, uncleanLeaderElection,
                autoLeaderRebalance, leaderImbalanceCheckIntervalMs, leaderImbalancePerBrokerPercentage);
    }

    public ControllerSettings withRaftSegmentBytes(long bytes) {
        return new ControllerSettings(brokerSessionTimeoutMs, brokerHeartbeatIntervalMs, defaultReplicationFactor,
                defaultNumPartitions, maxPartitionsPerTopic, maxPartitionsPerRequest, maxPartitionsTotal,
                electionTimeoutMinMs, electionTimeoutMaxMs, snapshotThreshold, writeTimeoutMs, bytes, bugs, uncleanLeaderElection,
                autoLeaderRebalance, leaderImbalanceCheckIntervalMs, leaderImbalancePerBrokerPercentage);
    }

    public ControllerSettings withBugs(SeededBugs seeded) {
        return new ControllerSettings(brokerSessionTimeoutMs, brokerHeartbeatIntervalMs, defaultReplicationFactor,
                defaultNumPartitions, maxPartitionsPerTopic, maxPartitionsPerRequest, maxPartitionsTotal,
                electionTimeoutMinMs, electionTimeoutMaxMs, snapshotThreshold, writeTimeoutMs, raftSegmentBytes, seeded, uncleanLeaderElection,
                autoLeaderRebalance, leaderImbalanceCheckIntervalMs, leaderImbalancePerBrokerPercentage);
    }

    /** unclean.leader.election.enable of this controller's server.properties: the default below any dynamic one. */
    public ControllerSettings withUncleanLeaderElection(boolean unclean) {
        return new ControllerSettings(brokerSessionTimeoutMs, brokerHeartbeatIntervalMs, defaultReplicationFactor,
                defaultNumPartitions, maxPartitionsPerTopic, maxPartitionsPerRequest, maxPartitionsTotal,
                electionTimeoutMinMs, electionTimeoutMaxMs, snapshotThreshold, writeTimeoutMs, raftSegmentBytes, bugs,
                unclean, autoLeaderRebalance, leaderImbalanceCheckIntervalMs, leaderImbalancePerBrokerPercentage);
    }
}
