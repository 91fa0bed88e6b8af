package io.faultline.broker.controller;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The broker configs that may be set dynamically (IncrementalAlterConfigs/AlterConfigs on a BROKER resource, per
 * broker or as the cluster-wide default ""): the part of Kafka's dynamically updatable broker configs an admin tool
 * sets and that makes sense for this broker (no SSL/SASL, listener or metric-reporter configs: this broker has none
 * of those). Each has Kafka's type, default and lower bound. Those with a topic synonym are applied: they are the
 * defaults of every topic that does not set the topic config; the others are stored and described only.
 */
public final class BrokerConfigs {
    public enum Type {
        BOOLEAN, INT, LONG, DOUBLE, STRING, LIST;

        /** DescribeConfigs' config type ids (Kafka's ConfigEntry.ConfigType order). */
        public byte describeId() {
            return switch (this) {
                case BOOLEAN -> 1;
                case STRING -> 2;
                case INT -> 3;
                case LONG -> 5;
                case DOUBLE -> 6;
                case LIST -> 7;
            };
        }
    }

    /**
     * One dynamic broker config.
     *
     * @param topicSynonym the topic config it is the default of (applied by this broker), or null (stored only)
     * @param min          smallest accepted value for numbers
     * @param allowed      accepted values for enumerated strings and lists (empty: any)
     */
    public record Def(String name, Type type, String defaultValue, String topicSynonym, double min, Set<String> allowed) {
        public boolean applied() {
            return topicSynonym != null;
        }
    }

    /** By name, in the order DescribeConfigs lists them. */
    public static final Map<String, Def> DYNAMIC = defs();

    private BrokerConfigs() { }

    private static Map<String, Def> defs() {
        Map<String, Def> m = new LinkedHashMap<>();
        // Topic defaults: applied to every topic without its own value.
        applied(m, "log.segment.bytes", Type.INT, "1073741824", "segment.bytes", 1 << 20);
        applied(m, "log.roll.ms", Type.LONG, "604800000", "segment.ms", 1);
        applied(m, "log.retention.ms", Type.LONG, "604800000", "retention.ms", -1);
        applied(m, "log.retention.bytes", Type.LONG, "-1", "retention.bytes", -1);
        m.put("log.cleanup.policy", new Def("log.cleanup.policy", Type.LIST, "delete", "cleanup.policy", 0,
                Set.of("delete", "compact")));
        applied(m, "log.index.interval.bytes", Type.INT, "4096", "index.interval.bytes", 0);
        applied(m, "log.index.size.max.bytes", Type.INT, "10485760", "segment.index.bytes", 4);
        applied(m, "log.flush.interval.messages", Type.LONG, "9223372036854775807", "flush.messages", 1);
        applied(m, "log.flush.interval.ms", Type.LONG, "9223372036854775807", "flush.ms", 0);
        applied(m, "log.cleaner.delete.retention.ms", Type.LONG, "86400000", "delete.retention.ms", 0);
        applied(m, "log.segment.delete.delay.ms", Type.LONG, "60000", "file.delete.delay.ms", 0);
        m.put("log.message.timestamp.type", new Def("log.message.timestamp.type", Type.STRING, "CreateTime",
                "message.timestamp.type", 0, Set.of("CreateTime", "LogAppendTime")));
        applied(m, "message.max.bytes", Type.INT, "1048588", "max.message.bytes", 0);
        applied(m, "min.insync.replicas", Type.INT, "1", "min.insync.replicas", 1);
        m.put("unclean.leader.election.enable", new Def("unclean.leader.election.enable", Type.BOOLEAN, "false",
                "unclean.leader.election.enable", 0, Set.of()));
        // Stored and described only.
        stored(m, "log.preallocate", Type.BOOLEAN, "false", 0);
        stored(m, "log.cleaner.min.compaction.lag.ms", Type.LONG, "0", 0);
        stored(m, "log.cleaner.max.compaction.lag.ms", Type.LONG, "9223372036854775807", 1);
        stored(m, "log.cleaner.min.cleanable.ratio", Type.DOUBLE, "0.5", 0);
        stored(m, "log.message.timestamp.before.max.ms", Type.LONG, "9223372036854775807", 0);
        stored(m, "log.message.timestamp.after.max.ms", Type.LONG, "3600000", 0);
        m.put("compression.type", new Def("compression.type", Type.STRING, "producer", null, 0,
                Set.of("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")));
        stored(m, "log.cleaner.threads", Type.INT, "1", 0);
        stored(m, "log.cleaner.io.max.bytes.per.second", Type.DOUBLE, "1.7976931348623157E308", 0);
        stored(m, "log.cleaner.dedupe.buffer.size", Type.LONG, "134217728", 0);
        stored(m, "log.cleaner.io.buffer.size", Type.INT, "524288", 0);
        stored(m, "log.cleaner.io.buffer.load.factor", Type.DOUBLE, "0.9", 0);
        stored(m, "log.cleaner.backoff.ms", Type.LONG, "15000", 0);
        stored(m, "num.io.threads", Type.INT, "8", 1);
        stored(m, "num.network.threads", Type.INT, "3", 1);
        stored(m, "num.replica.fetchers", Type.INT, "1", 1);
        stored(m, "background.threads", Type.INT, "10", 1);
        stored(m, "num.recovery.threads.per.data.dir", Type.INT, "2", 1);
        stored(m, "max.connections", Type.INT, "2147483647", 0);
        stored(m, "max.connections.per.ip", Type.INT, "2147483647", 0);
        stored(m, "max.connection.creation.rate", Type.INT, "2147483647", 0);
        stored(m, "max.connections.per.ip.overrides", Type.STRING, "", 0);
        stored(m, "producer.id.expiration.ms", Type.INT, "86400000", 1);
        // Replication throttles (kafka-reassign-partitions --throttle sets these per broker).
        stored(m, "leader.replication.throttled.rate", Type.LONG, "9223372036854775807", 0);
        stored(m, "follower.replication.throttled.rate", Type.LONG, "9223372036854775807", 0);
        stored(m, "replica.alter.log.dirs.io.max.bytes.per.second", Type.LONG, "9223372036854775807", 0);
        return java.util.Collections.unmodifiableMap(m);
    }

    private static void applied(Map<String, Def> m, String name, Type type, String dflt, String topicSynonym, double min) {
        m.put(name, new Def(name, type, dflt, topicSynonym, min, Set.of()));
    }

    private static void stored(Map<String, Def> m, String name, Type type, String dflt, double min) {
        m.put(name, new Def(name, type, dflt, null, min, Set.of()));
    }

    /** Why {@code value} is not acceptable for dynamic broker config {@code name}, or empty when it is. */
    public static Optional<String> invalid(String name, String value) {
        Def d = DYNAMIC.get(name);
        if (d == null) {
            return Optional.of("Cannot update broker config " + name + " dynamically: it is not one of the "
                    + DYNAMIC.size() + " dynamic broker configs this broker accepts (see docs/broker-impl.md)");
        }
        if (value == null) return Optional.of("Null value not supported for config " + name);
        if (value.length() > TopicConfigs.MAX_VALUE_LENGTH) {
            return Optional.of("Value of config " + name + " is " + value.length()
                    + " characters long, more than the limit of " + TopicConfigs.MAX_VALUE_LENGTH);
        }
        String v = value.trim();
        String bad = "Invalid value " + value + " for configuration " + name + ": ";
        switch (d.type()) {
            case BOOLEAN -> {
                if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
                    return Optional.of(bad + "Expected value to be either true or false");
                }
            }
            case INT, LONG, DOUBLE -> {
                double n;
                try {
                    n = d.type() == Type.INT ? Integer.parseInt(v) : d.type() == Type.LONG ? Long.parseLong(v)
                            : Double.parseDouble(v);
                } catch (NumberFormatException e) {
                    return Optional.of(bad + "Not a number of type " + d.type());
                }
                if (Double.isNaN(n) || n < d.min()) {
                    return Optional.of(bad + "Value must be at least " + formatMin(d));
                }
            }
            case STRING -> {
                if (!d.allowed().isEmpty() && !d.allowed().contains(v)) {
                    return Optional.of(bad + "String must be one of: " + String.join(", ", new java.util.TreeSet<>(d.allowed())));
                }
            }
            case LIST -> {
                for (String item : v.split(",")) {
                    String t = item.trim();
                    if (!t.isEmpty() && !d.allowed().isEmpty() && !d.allowed().contains(t)) {
                        return Optional.of(bad + "String must be one of: " + String.join(", ", new java.util.TreeSet<>(d.allowed())));
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static String formatMin(Def d) {
        return d.type() == Type.DOUBLE ? Double.toString(d.min()) : Long.toString((long) d.min());
    }

    /**
     * The topic-config defaults the dynamic broker configs of {@code nodeId} give: its own values over the
     * cluster-wide ones, under the topic config names (for {@code LogConfig.with}).
     */
    public static Map<String, String> topicDefaults(io.faultline.broker.metadata.MetadataImage image, int nodeId) {
        Map<String, String> out = topicDefaults(image.brokerConfig(""));
        out.putAll(topicDefaults(image.brokerConfig(Integer.toString(nodeId))));
        return out;
    }

    /** The topic-config defaults one level of dynamic broker configs gives, under the topic config names. */
    public static Map<String, String> topicDefaults(Map<String, String> brokerConfigs) {
        Map<String, String> out = new LinkedHashMap<>();
        brokerConfigs.forEach((k, v) -> {
            Def d = DYNAMIC.get(k);
            if (d != null && d.applied()) out.put(d.topicSynonym(), v);
        });
        return out;
    }
}
