package io.faultline.docker.sut;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Per-run broker settings of a Kafka-protocol system under test. The defaults detect failures fast (seconds,
 * not the production tens of seconds) so that a test sees many elections in a short run.
 *
 * @param uncleanLeaderElection unclean.leader.election.enable, or null to leave it out of server.properties so the
 *                              system's own default applies (Apache Kafka before 0.11: true; from 0.11: false)
 * @param flushIntervalMessages log.flush.interval.messages, or null for the broker's default (no fsync per append)
 * @param flushIntervalMs       log.flush.interval.ms, or null for the broker's default
 * @param jvmFlags              JVM flags of the broker process besides the heap size (the same for every system, so
 *                              comparisons are fair)
 * @param extra                 any further server properties, applied last
 */
public record KafkaSettings(
        int replicationFactor,
        int minInsyncReplicas,
        Boolean uncleanLeaderElection,
        long replicaLagTimeMaxMs,
        Long flushIntervalMessages,
        Long flushIntervalMs,
        int brokerSessionTimeoutMs,
        int brokerHeartbeatIntervalMs,
        int quorumElectionTimeoutMs,
        int quorumFetchTimeoutMs,
        int quorumElectionBackoffMaxMs,
        int heapMb,
        String jvmFlags,
        Map<String, String> extra) {

    public KafkaSettings {
        if (replicationFactor < 1) throw new IllegalArgumentException("replication factor must be >= 1");
        if (minInsyncReplicas < 1 || minInsyncReplicas > replicationFactor) {
            throw new IllegalArgumentException("min.insync.replicas must be in 1.." + replicationFactor
                    + " (the replication factor), got " + minInsyncReplicas);
        }
        extra = Map.copyOf(extra);
    }

    /** C1 only and the serial collector: several broker JVMs start and idle on 2 cores without starving each other. */
    public static final String DEFAULT_JVM_FLAGS = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError";

    /** RF 3, min.insync.replicas 2, no unclean elections, fast failure detection (values measured in FACTS.md). */
    public static KafkaSettings defaults() {
        return new KafkaSettings(3, 2, false, 5000, null, null, 2000, 500, 500, 1000, 500, 512, DEFAULT_JVM_FLAGS, Map.of());
    }

    public KafkaSettings withReplicationFactor(int rf) {
        return copy(b -> {
            b.replicationFactor = rf;
            b.minInsyncReplicas = Math.min(minInsyncReplicas, rf);
        });
    }

    public KafkaSettings withMinInsyncReplicas(int minIsr) {
        return copy(b -> b.minInsyncReplicas = minIsr);
    }

    /** unclean.leader.election.enable as given; null leaves it to the system's own default. */
    public KafkaSettings withUncleanLeaderElection(Boolean unclean) {
        return copy(b -> b.uncleanLeaderElection = unclean);
    }

    public KafkaSettings withReplicaLagTimeMaxMs(long ms) {
        return copy(b -> b.replicaLagTimeMaxMs = ms);
    }

    /** log.flush.interval.messages / .ms; 1 message = fsync every append. Null keeps the default. */
    public KafkaSettings withFlush(Long everyMessages, Long everyMs) {
        return copy(b -> {
            b.flushIntervalMessages = everyMessages;
            b.flushIntervalMs = everyMs;
        });
    }

    /** Replaces the broker JVM's flags (not the heap), e.g. full JIT for a throughput comparison. */
    public KafkaSettings withJvmFlags(String flags) {
        return copy(b -> b.jvmFlags = flags);
    }

    /** The broker JVM's options: heap and flags. */
    public String jvmOptions() {
        return "-Xms128m -Xmx" + heapMb + "m " + jvmFlags;
    }

    public KafkaSettings withProperty(String key, String value) {
        var more = new LinkedHashMap<>(extra);
        more.put(key, value);
        return copy(b -> b.extra = more);
    }

    /** This record with some fields changed: the one place that calls the canonical constructor for a copy. */
    private KafkaSettings copy(java.util.function.Consumer<Fields> change) {
        var b = new Fields(this);
        change.accept(b);
        return new KafkaSettings(b.replicationFactor, b.minInsyncReplicas, b.uncleanLeaderElection,
                b.replicaLagTimeMaxMs, b.flushIntervalMessages, b.flushIntervalMs, brokerSessionTimeoutMs,
                brokerHeartbeatIntervalMs, quorumElectionTimeoutMs, quorumFetchTimeoutMs, quorumElectionBackoffMaxMs,
                heapMb, b.jvmFlags, b.extra);
    }

    /** The fields a with-method may change. */
    private static final class Fields {
        int replicationFactor;
        int minInsyncReplicas;
        Boolean uncleanLeaderElection;
        long replicaLagTimeMaxMs;
        Long flushIntervalMessages;
        Long flushIntervalMs;
        String jvmFlags;
        Map<String, String> extra;

        Fields(KafkaSettings s) {
            replicationFactor = s.replicationFactor;
            minInsyncReplicas = s.minInsyncReplicas;
            uncleanLeaderElection = s.uncleanLeaderElection;
            replicaLagTimeMaxMs = s.replicaLagTimeMaxMs;
            flushIntervalMessages = s.flushIntervalMessages;
            flushIntervalMs = s.flushIntervalMs;
            jvmFlags = s.jvmFlags;
            extra = s.extra;
        }
    }

    /** The topic-level and broker-level properties these settings stand for, in server.properties form. */
    public Map<String, String> brokerProperties(int clusterSize) {
        var p = new LinkedHashMap<String, String>();
        p.put("default.replication.factor", Integer.toString(Math.min(replicationFactor, clusterSize)));
        p.put("min.insync.replicas", Integer.toString(minInsyncReplicas));
        if (uncleanLeaderElection != null) p.put("unclean.leader.election.enable", uncleanLeaderElection.toString());
        p.put("replica.lag.time.max.ms", Long.toString(replicaLagTimeMaxMs));
        if (flushIntervalMessages != null) p.put("log.flush.interval.messages", flushIntervalMessages.toString());
        if (flushIntervalMs != null) p.put("log.flush.interval.ms", flushIntervalMs.toString());
        p.put("broker.session.timeout.ms", Integer.toString(brokerSessionTimeoutMs));
        p.put("broker.heartbeat.interval.ms", Integer.toString(brokerHeartbeatIntervalMs));
        p.put("controller.quorum.election.timeout.ms", Integer.toString(quorumElectionTimeoutMs));
        p.put("controller.quorum.fetch.timeout.ms", Integer.toString(quorumFetchTimeoutMs));
        p.put("controller.quorum.election.backoff.max.ms", Integer.toString(quorumElectionBackoffMaxMs));
        int internalRf = Math.min(3, clusterSize);
        p.put("offsets.topic.replication.factor", Integer.toString(internalRf));
        p.put("transaction.state.log.replication.factor", Integer.toString(internalRf));
        p.put("transaction.state.log.min.isr", Integer.toString(Math.min(2, internalRf)));
        p.put("offsets.topic.num.partitions", "10");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "false");
        p.putAll(extra);
        return p;
    }
}
