package io.faultline.broker.server;

import io.faultline.broker.storage.LogConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Broker settings from a server.properties-style file, with Kafka's names and (mostly) Kafka's defaults.
 */
public record BrokerConfig(
        int nodeId,
        String listenerHost,
        int listenerPort,
        String advertisedHost,
        int advertisedPort,
        Path logDir,
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
        long queuedMaxRequestBytes) {

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

    public static BrokerConfig from(Properties p) {
        int nodeId = Integer.parseInt(p.getProperty("node.id", p.getProperty("broker.id", "1")));
        String[] listener = hostPort(p.getProperty("listeners", "PLAINTEXT://127.0.0.1:9092"));
        String[] advertised = hostPort(p.getProperty("advertised.listeners", p.getProperty("listeners",
                "PLAINTEXT://127.0.0.1:9092")));
        String dirs = p.getProperty("log.dirs", p.getProperty("log.dir", "/tmp/faultline-logs"));
        Map<String, String> logOverrides = new HashMap<>();
        if (p.getProperty("log.retention.hours") != null) {
            logOverrides.put("retention.ms", Long.toString(Long.parseLong(p.getProperty("log.retention.hours")) * 3_600_000L));
        }
        LOG_KEYS.forEach((broker, topic) -> {
            String v = p.getProperty(broker);
            if (v != null) logOverrides.put(topic, v);
        });
        return new BrokerConfig(nodeId, listener[0], Integer.parseInt(listener[1]), advertised[0],
                Integer.parseInt(advertised[1]), Path.of(dirs.split(",")[0].trim()),
                intProp(p, "num.network.threads", 3), intProp(p, "num.io.threads", 8),
                intProp(p, "queued.max.requests", 500), intProp(p, "socket.request.max.bytes", 104857600),
                intProp(p, "max.connections", Integer.MAX_VALUE),
                Long.parseLong(p.getProperty("connections.max.idle.ms", "600000")),
                intProp(p, "num.partitions", 1),
                Boolean.parseBoolean(p.getProperty("auto.create.topics.enable", "true")),
                intProp(p, "offsets.topic.num.partitions", 50),
                intProp(p, "group.min.session.timeout.ms", 6000),
                intProp(p, "group.max.session.timeout.ms", 1800000),
                intProp(p, "group.initial.rebalance.delay.ms", 3000),
                Long.parseLong(p.getProperty("faultline.maintenance.interval.ms", "5000")),
                LogConfig.DEFAULT.with(logOverrides),
                queuedMaxRequestBytes(p.getProperty("queued.max.request.bytes")));
    }

    /** Unset: on by default (MemoryPool's default size); -1 or 0: unbounded, as Kafka's -1 means. */
    private static long queuedMaxRequestBytes(String v) {
        if (v == null) return io.faultline.broker.network.MemoryPool.defaultCapacity();
        long n = Long.parseLong(v.trim());
        return n <= 0 ? Long.MAX_VALUE : n;
    }

    private static int intProp(Properties p, String key, int dflt) {
        return Integer.parseInt(p.getProperty(key, Integer.toString(dflt)).trim());
    }

    /** "PLAINTEXT://host:port[,...]" → {host, port}; the first listener wins. */
    private static String[] hostPort(String listeners) {
        String first = listeners.split(",")[0].trim();
        int scheme = first.indexOf("://");
        String hp = scheme >= 0 ? first.substring(scheme + 3) : first;
        int colon = hp.lastIndexOf(':');
        String host = hp.substring(0, colon);
        return new String[] {host.isEmpty() ? "0.0.0.0" : host, hp.substring(colon + 1)};
    }
}
