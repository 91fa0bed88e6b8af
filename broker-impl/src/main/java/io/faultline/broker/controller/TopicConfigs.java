package io.faultline.broker.controller;

import io.faultline.broker.metadata.MetadataImage;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Topic config names Kafka knows (the {@code *_CONFIG} constants of {@link TopicConfig}), value checks for the
 * ones the controller interprets or whose type is clear, and a DescribeConfigs-friendly view of a topic's
 * configs in an image (explicit values plus the defaults the controller itself applies).
 */
public final class TopicConfigs {
    /** Every topic config name Kafka defines. */
    public static final Set<String> KNOWN = knownNames();

    /** Defaults the broker-impl controller applies when a topic does not set them. */
    public static final Map<String, String> DEFAULTS = Map.of(
            TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "1",
            TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false");

    /**
     * Longest config value accepted (topic or broker). Kafka has no such limit, but every value is stored in the
     * replicated metadata log and in every snapshot; no real config needs more.
     */
    public static final int MAX_VALUE_LENGTH = 32 * 1024;

    /** A config as DescribeConfigs reports it. */
    public record Entry(String name, String value, boolean isDefault) { }

    private TopicConfigs() { }

    private static Set<String> knownNames() {
        Set<String> names = new TreeSet<>();
        for (Field f : TopicConfig.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class && f.getName().endsWith("_CONFIG")) {
                try {
                    names.add((String) f.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return Set.copyOf(names);
    }

    /** Why {@code value} is not acceptable for {@code name}, or empty when it is. */
    public static Optional<String> invalid(String name, String value) {
        if (!KNOWN.contains(name)) return Optional.of("Unknown topic config name: " + name);
        return invalidValue(name, value);
    }

    private static Optional<String> invalidValue(String name, String value) {
        if (value == null) return Optional.of("Null value not supported for config " + name);
        if (value.length() > MAX_VALUE_LENGTH) {
            return Optional.of("Value of config " + name + " is " + value.length() + " characters long, more than the limit of "
                    + MAX_VALUE_LENGTH);
        }
        String v = value.trim();
        switch (name) {
            case TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG:
                return intAtLeast(name, v, 1);
            case TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG:
            case TopicConfig.PREALLOCATE_CONFIG:
            case TopicConfig.MESSAGE_DOWNCONVERSION_ENABLE_CONFIG:
                return v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false") ? Optional.empty()
                        : Optional.of("Invalid value " + value + " for configuration " + name + ": Expected value to be either true or false");
            case TopicConfig.CLEANUP_POLICY_CONFIG:
                for (String p : v.split(",")) {
                    String t = p.trim();
                    if (!t.equals("delete") && !t.equals("compact") && !t.isEmpty()) {
                        return Optional.of("Invalid value " + value + " for configuration " + name + ": String must be one of: compact, delete");
                    }
                }
                return Optional.empty();
            case TopicConfig.SEGMENT_BYTES_CONFIG:
                return intAtLeast(name, v, 1 << 20); // Kafka 4.x's minimum: a log cannot use tiny segments
            case TopicConfig.MAX_MESSAGE_BYTES_CONFIG:
                return intAtLeast(name, v, 0);
            case TopicConfig.RETENTION_MS_CONFIG:
            case TopicConfig.RETENTION_BYTES_CONFIG:
                return longAtLeast(name, v, -1);
            case TopicConfig.SEGMENT_MS_CONFIG:
                return longAtLeast(name, v, 1);
            default:
                return Optional.empty();
        }
    }

    private static Optional<String> intAtLeast(String name, String v, int min) {
        try {
            if (Integer.parseInt(v) >= min) return Optional.empty();
            return Optional.of("Invalid value " + v + " for configuration " + name + ": Value must be at least " + min);
        } catch (NumberFormatException e) {
            return Optional.of("Invalid value " + v + " for configuration " + name + ": Not a number of type INT");
        }
    }

    private static Optional<String> longAtLeast(String name, String v, long min) {
        try {
            if (Long.parseLong(v) >= min) return Optional.empty();
            return Optional.of("Invalid value " + v + " for configuration " + name + ": Value must be at least " + min);
        } catch (NumberFormatException e) {
            return Optional.of("Invalid value " + v + " for configuration " + name + ": Not a number of type LONG");
        }
    }

    /** The topic's configs for DescribeConfigs: explicit values, then the controller's defaults for the rest. */
    public static Map<String, Entry> describe(MetadataImage image, String topic) {
        Map<String, Entry> out = new TreeMap<>();
        DEFAULTS.forEach((k, v) -> out.put(k, new Entry(k, image.brokerConfig("").getOrDefault(k, v), true)));
        image.topicConfig(topic).forEach((k, v) -> out.put(k, new Entry(k, v, false)));
        return out;
    }

    /** The effective value of {@code name} for {@code topic}: topic value, cluster default, or built-in default. */
    public static Optional<String> effective(MetadataImage image, String topic, String name) {
        String v = image.topicConfig(topic).get(name);
        if (v == null) v = image.brokerConfig("").get(name);
        if (v == null) v = DEFAULTS.get(name);
        return Optional.ofNullable(v);
    }
}
