package io.faultline.broker.config;

import io.faultline.broker.common.SeededBugs;
import io.faultline.broker.storage.LogConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Broker settings from a server.properties-style file, with Kafka's names and (mostly) Kafka's defaults. Bad values
 * are collected and reported together in one {@link ConfigException}.
 *
 * @param logDirs     every directory of log.dirs (or log.dir); the first also holds the node's own files
 * @param metadataDir metadata.log.dir: where the controller quorum keeps its Raft log and image snapshots (default: a
 *                    directory in the first log dir that the storage engine skips)
 * @param replicationTruncation faultline.replication.truncation: leader-epoch (default) or high-watermark (Kafka
 *                              before KIP-101, loses acknowledged writes on purpose)
 * @param bugs        faultline.bug.*: seeded bugs switched on (none unless faultline.bugs.allowed=true)
 * @param requestStallTimeoutMs faultline.request.stall.timeout.ms: requests queued and none handled this long stop
 *                              the node's heartbeats, so the controller fences it (default 10000)
 * @param transactionVersion transaction.version: the level of Kafka's feature of that name this broker finalizes
 *                           (0, 1 or 2; default 2, what a new Kafka 4.x cluster gets at format time). At 2,
 *                           kafka-clients use KIP-890 part 2 (epoch bump per transaction, no AddPartitionsToTxn)
 * @param rack        broker.rack: the rack (or zone) this broker registers with, null when unset
 * @param rackAwareReads replica.selector.class is Kafka's RackAwareReplicaSelector: a leader sends a consumer that
 *                       names its rack to an in-sync replica in that rack (KIP-392, fetching from the closest replica)
 */
public record BrokerConfig(
        int nodeId,
        ListenerConfig listeners,
        ClusterConfig cluster,
        List<Path> logDirs,
        Path metadataDir,
        int numNetworkThreads,
        int numIoThreads,
        int queuedMaxRequests,
        int socketRequestMaxBytes,
        int maxConnections,
        long connectionsMaxIdleMs,
        int numPartitions,
        boolean autoCreateTopics,
        int offsetsTopicPartitions,
        int groupMinSessionTimeoutMs,
        int groupMaxSessionTimeoutMs,
        int groupInitialRebalanceDelayMs,
        long maintenanceIntervalMs,
        LogConfig defaultLogConfig,
        String replicationTruncation,
        long queuedMaxRequestBytes,
        SeededBugs bugs,
        long requestStallTimeoutMs,
        short transactionVersion,
        String rack,
        boolean rackAwareReads) {

    public BrokerConfig {
        logDirs = List.copyOf(logDirs);
        if (logDirs.isEmpty()) throw new IllegalArgumentException("no log directory");
        if (bugs == null) bugs = SeededBugs.NONE;
    }

    /** Broker-level log.* names mapped to the topic-level names LogConfig understands. */
    private static final Map<String, String> LOG_KEYS = Map.ofEntries(
            Map.entry("log.segment.bytes", "segment.bytes"),
            Map.entry("log.roll.ms", "segment.ms"),
            Map.entry("log.index.size.max.bytes", "segment.index.bytes"),
            Map.entry("log.index.interval.bytes", "index.interval.bytes"),
            Map.entry("log.flush.interval.messages", "flush.messages"),
            Map.entry("log.flush.interval.ms", "flush.ms"),
            Map.entry("log.retention.ms", "retention.ms"),
            Map.entry("log.retention.bytes", "retention.bytes"),
            Map.entry("log.cleanup.policy", "cleanup.policy"),
            Map.entry("log.cleaner.delete.retention.ms", "delete.retention.ms"),
            Map.entry("log.segment.delete.delay.ms", "file.delete.delay.ms"),
            Map.entry("message.max.bytes", "max.message.bytes"),
            Map.entry("log.message.timestamp.type", "message.timestamp.type"),
            Map.entry("faultline.fsync.every.append", "faultline.fsync.every.append"));

    public static BrokerConfig load(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        return from(p);
    }

    /** @throws ConfigException listing every bad or unknown value */
    public static BrokerConfig from(Properties props) {
        List<String> problems = new ArrayList<>();
        PropertyReader p = new PropertyReader(props, problems);
        int nodeId = p.getInt("node.id", p.getInt("broker.id", 1, 0), 0);
        ListenerConfig listeners = ListenerConfig.parse(p, problems);
        ClusterConfig cluster = ClusterConfig.parse(p, nodeId, listeners, problems);
        List<Path> dirs = new ArrayList<>();
        for (String d : new LinkedHashSet<>(List.of(p.get("log.dirs", p.get("log.dir", "/tmp/faultline-logs"))
                .split(",")))) {
            if (!d.isBlank()) dirs.add(Path.of(d.trim()));
        }
        if (dirs.isEmpty()) problems.add("log.dirs: no directory given");
        Map<String, String> logOverrides = new HashMap<>();
        if (p.has("log.retention.hours")) {
            logOverrides.put("retention.ms", Long.toString(p.getLong("log.retention.hours", 168, -1) * 3_600_000L));
        }
        LOG_KEYS.forEach((broker, topic) -> {
            if (p.has(broker)) logOverrides.put(topic, p.get(broker, null));
        });
        LogConfig logConfig = LogConfig.DEFAULT;
        try {
            logConfig = LogConfig.DEFAULT.with(logOverrides);
        } catch (RuntimeException e) {
            problems.add("log settings: " + e.getMessage());
        }
        if (dirs.isEmpty()) dirs.add(Path.of("."));
        Path metadataDir = Path.of(p.get("metadata.log.dir", dirs.get(0).resolve("faultline-metadata").toString()));
        BrokerConfig c = new BrokerConfig(nodeId, listeners, cluster, dirs, metadataDir,
                p.getInt("num.network.threads", 3, 1), p.getInt("num.io.threads", 8, 1),
                p.getInt("queued.max.requests", 500, 1), p.getInt("socket.request.max.bytes", 104857600, 1),
                p.getInt("max.connections", Integer.MAX_VALUE, 1),
                p.getLong("connections.max.idle.ms", 600000, -1),
                p.getInt("num.partitions", 1, 1),
                p.getBoolean("auto.create.topics.enable", true),
                p.getInt("offsets.topic.num.partitions", 50, 1),
                p.getInt("group.min.session.timeout.ms", 6000, 0),
                p.getInt("group.max.session.timeout.ms", 1800000, 0),
                p.getInt("group.initial.rebalance.delay.ms", 3000, 0),
                p.getLong("faultline.maintenance.interval.ms", 5000, 1),
                logConfig, truncation(p, problems), queuedMaxRequestBytes(p),
                SeededBugs.parse(props, problems),
                p.getLong("faultline.request.stall.timeout.ms", 10_000, 1),
                transactionVersion(p, problems), rack(p), rackAwareReads(p, problems));
        if (!problems.isEmpty()) throw new ConfigException(problems);
        return c;
    }

    /** Unset: on by default (MemoryPool's default size); -1 or 0: unbounded, as Kafka's -1 means. */
    private static long queuedMaxRequestBytes(PropertyReader p) {
        long n = p.getLong("queued.max.request.bytes", io.faultline.broker.network.MemoryPool.defaultCapacity(), -1);
        return n <= 0 ? Long.MAX_VALUE : n;
    }

    private static short transactionVersion(PropertyReader p, List<String> problems) {
        int v = p.getInt("transaction.version", 2, 0);
        if (v > 2) {
            problems.add("transaction.version: " + v + " (0, 1 or 2)");
            return 2;
        }
        return (short) v;
    }

    private static String rack(PropertyReader p) {
        String r = p.get("broker.rack", "").trim();
        return r.isEmpty() ? null : r;
    }

    /** The selectors Kafka ships: the leader (its default) and the rack-aware one; any other class is refused. */
    private static boolean rackAwareReads(PropertyReader p, List<String> problems) {
        String c = p.get("replica.selector.class", "").trim();
        if (c.isEmpty() || c.equals(LEADER_SELECTOR)) return false;
        if (c.equals(RACK_AWARE_SELECTOR)) return true;
        problems.add("replica.selector.class: '" + c + "' (" + RACK_AWARE_SELECTOR + " or " + LEADER_SELECTOR + ")");
        return false;
    }

    public static final String RACK_AWARE_SELECTOR = "org.apache.kafka.common.replica.RackAwareReplicaSelector";
    private static final String LEADER_SELECTOR = "org.apache.kafka.common.replica.LeaderSelector";

    private static String truncation(PropertyReader p, List<String> problems) {
        String v = p.get("faultline.replication.truncation", "leader-epoch").trim();
        if (!v.equals("leader-epoch") && !v.equals("high-watermark")) {
            problems.add("faultline.replication.truncation: '" + v + "' (leader-epoch, high-watermark)");
            return "leader-epoch";
        }
        return v;
    }

    /** The first log directory: meta.properties, producer ids and the metadata quorum's files live there. */
    public Path logDir() {
        return logDirs.get(0);
    }

    /** Bind host of the client listener (the first broker listener). */
    public String listenerHost() {
        return listeners.clientListener().bindHost();
    }

    public int listenerPort() {
        return listeners.clientListener().port();
    }

    /** The advertised host of the client listener; "0.0.0.0" when neither advertised nor bound to a host. */
    public String advertisedHost() {
        Listener l = listeners.advertised().getOrDefault(listeners.clientListener().name(), listeners.clientListener());
        return l.bindHost();
    }

    public int advertisedPort() {
        Listener l = listeners.advertised().getOrDefault(listeners.clientListener().name(), listeners.clientListener());
        return l.port();
    }
}
