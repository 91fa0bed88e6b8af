package io.faultline.broker.controller;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The group configs of Kafka 4.4 (KIP-848/932/1071 groups: consumer.*, share.*, streams.*, errors.*), with the
 * defaults, broker synonyms and value checks Kafka 4.4 applies (observed against a Kafka 4.4.0 broker with default
 * settings: the ranges are its group.*.min/max defaults). broker-impl runs classic groups only, so these configs
 * are stored and described but change no behaviour here, as on a Kafka broker whose groups are all classic.
 */
public final class GroupConfigs {
    /** A config's type as DescribeConfigs reports it (DescribeConfigsResponse.ConfigType ids). */
    public enum Type {
        BOOLEAN(1), STRING(2), INT(3), LONG(5), LIST(7);

        public final byte id;

        Type(int id) {
            this.id = (byte) id;
        }
    }

    /**
     * One group config.
     *
     * @param brokerSynonym the broker config that gives the default (the name itself when there is none)
     * @param internal      accepted by AlterConfigs but not described (Kafka's internal configs)
     * @param min           lower bound of the type check ("Value must be at least"), for numbers
     * @param rangeLow      lower end of the broker's allowed range (-1: none besides min)
     * @param rangeHigh     upper end of the broker's allowed range (-1: none)
     * @param choices       allowed values of a STRING, empty when any
     */
    public record Def(String name, Type type, String defaultValue, String brokerSynonym, boolean internal, long min,
                      long rangeLow, long rangeHigh, List<String> choices) {
    }

    /** Every group config Kafka 4.4 knows, in its ConfigDef order. */
    public static final Map<String, Def> ALL = table();

    private GroupConfigs() {
    }

    private static Map<String, Def> table() {
        Map<String, Def> m = new LinkedHashMap<>();
        intDef(m, "consumer.session.timeout.ms", 45000, "group.consumer.session.timeout.ms", false, 1, 45000, 60000);
        intDef(m, "consumer.heartbeat.interval.ms", 5000, "group.consumer.heartbeat.interval.ms", false, 1, 5000, 15000);
        intDef(m, "consumer.assignment.interval.ms", 1000, "group.consumer.assignment.interval.ms", false, 0, 0, 15000);
        boolDef(m, "consumer.assignor.offload.enable", true, "group.consumer.assignor.offload.enable", true);
        intDef(m, "share.session.timeout.ms", 45000, "group.share.session.timeout.ms", false, 1, 45000, 60000);
        intDef(m, "share.heartbeat.interval.ms", 5000, "group.share.heartbeat.interval.ms", false, 1, 5000, 15000);
        intDef(m, "share.record.lock.duration.ms", 30000, "group.share.record.lock.duration.ms", false, 1000, 15000,
                60000);
        intDef(m, "share.delivery.count.limit", 5, "group.share.delivery.count.limit", false, 2, 2, 10);
        intDef(m, "share.partition.max.record.locks", 2000, "group.share.partition.max.record.locks", false, 100, 100,
                4000);
        m.put("share.auto.offset.reset", new Def("share.auto.offset.reset", Type.STRING, "latest",
                "share.auto.offset.reset", false, 0, -1, -1, List.of()));
        m.put("share.isolation.level", new Def("share.isolation.level", Type.STRING, "read_uncommitted",
                "share.isolation.level", false, 0, -1, -1, List.of("read_committed", "read_uncommitted")));
        boolDef(m, "share.renew.acknowledge.enable", true, "share.renew.acknowledge.enable", false);
        intDef(m, "share.assignment.interval.ms", 1000, "group.share.assignment.interval.ms", false, 0, 0, 15000);
        boolDef(m, "share.assignor.offload.enable", true, "group.share.assignor.offload.enable", true);
        intDef(m, "streams.session.timeout.ms", 45000, "group.streams.session.timeout.ms", false, 1, 45000, 60000);
        intDef(m, "streams.heartbeat.interval.ms", 5000, "group.streams.heartbeat.interval.ms", false, 1, 5000, 15000);
        intDef(m, "streams.num.standby.replicas", 0, "group.streams.num.standby.replicas", false, 0, -1, 2);
        intDef(m, "streams.initial.rebalance.delay.ms", 3000, "group.streams.initial.rebalance.delay.ms", false, 0, -1,
                -1);
        intDef(m, "streams.assignment.interval.ms", 1000, "group.streams.assignment.interval.ms", false, 0, 0, 15000);
        boolDef(m, "streams.assignor.offload.enable", true, "group.streams.assignor.offload.enable", true);
        intDef(m, "streams.task.offset.interval.ms", 60000, "group.streams.task.offset.interval.ms", true, 1, -1, -1);
        intDef(m, "streams.num.warmup.replicas", 2, "group.streams.num.warmup.replicas", true, 0, -1, -1);
        m.put("streams.rack.aware.assignment.tags", new Def("streams.rack.aware.assignment.tags", Type.LIST, "",
                "group.streams.rack.aware.assignment.tags", false, 0, -1, -1, List.of()));
        m.put("streams.acceptable.recovery.lag", new Def("streams.acceptable.recovery.lag", Type.LONG, "10000",
                "group.streams.acceptable.recovery.lag", true, 0, -1, -1, List.of()));
        m.put("streams.assignor.name", new Def("streams.assignor.name", Type.STRING, "sticky", "group.streams.assignors",
                false, 0, -1, -1, List.of("sticky")));
        m.put("errors.deadletterqueue.topic.name", new Def("errors.deadletterqueue.topic.name", Type.STRING, "",
                "errors.deadletterqueue.topic.name", false, 0, -1, -1, List.of()));
        boolDef(m, "errors.deadletterqueue.copy.record.enable", false, "errors.deadletterqueue.copy.record.enable",
                false);
        return java.util.Collections.unmodifiableMap(m);
    }

    private static void intDef(Map<String, Def> m, String name, int dflt, String synonym, boolean internal, long min,
                               long low, long high) {
        m.put(name, new Def(name, Type.INT, Integer.toString(dflt), synonym, internal, min, low, high, List.of()));
    }

    private static void boolDef(Map<String, Def> m, String name, boolean dflt, String synonym, boolean internal) {
        m.put(name, new Def(name, Type.BOOLEAN, Boolean.toString(dflt), synonym, internal, 0, -1, -1, List.of()));
    }

    /** Why {@code value} is not acceptable for group config {@code name} (Kafka's messages), or empty. */
    public static Optional<String> invalid(String name, String value) {
        Def d = ALL.get(name);
        if (d == null) return Optional.of("Unknown group config name: " + name);
        if (value == null) return Optional.of("Null value not supported for group config " + name);
        if (value.length() > TopicConfigs.MAX_VALUE_LENGTH) {
            return Optional.of("Value of config " + name + " is " + value.length() + " characters long, more than the "
                    + "limit of " + TopicConfigs.MAX_VALUE_LENGTH);
        }
        String v = value.trim();
        String prefix = "Invalid value " + value + " for configuration " + name + ": ";
        switch (d.type()) {
            case BOOLEAN:
                return v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false") ? Optional.empty()
                        : Optional.of(prefix + "Expected value to be either true or false");
            case INT:
            case LONG: {
                long n;
                try {
                    n = d.type() == Type.INT ? Integer.parseInt(v) : Long.parseLong(v);
                } catch (NumberFormatException e) {
                    return Optional.of(prefix + "Not a number of type " + d.type());
                }
                if (n < d.min()) return Optional.of(prefix + "Value must be at least " + d.min());
                if (d.rangeLow() >= 0 && d.rangeHigh() >= 0 && (n < d.rangeLow() || n > d.rangeHigh())) {
                    return Optional.of(name + " must be in the range " + d.rangeLow() + " to " + d.rangeHigh()
                            + " inclusive.");
                }
                if (d.rangeLow() < 0 && d.rangeHigh() >= 0 && n > d.rangeHigh()) {
                    return Optional.of(name + " must be less than or equal to " + d.rangeHigh());
                }
                return Optional.empty();
            }
            case STRING:
                if (name.equals("share.auto.offset.reset")) {
                    boolean ok = v.equals("earliest") || v.equals("latest") || validDuration(v);
                    return ok ? Optional.empty() : Optional.of(prefix + "Invalid value `" + v + "` for configuration "
                            + name + ". The value must be either 'earliest', 'latest' or of the format "
                            + "'by_duration:<PnDTnHnMn.nS>'.");
                }
                if (name.equals("streams.assignor.name") && !d.choices().contains(v)) {
                    return Optional.of(name + " '" + v + "' is not a registered task assignor. Registered assignors are: "
                            + d.choices() + ".");
                }
                if (!d.choices().isEmpty() && !d.choices().contains(v)) {
                    return Optional.of(prefix + "String must be one of: " + String.join(", ", d.choices()));
                }
                return Optional.empty();
            default:
                return Optional.empty();
        }
    }

    private static boolean validDuration(String v) {
        if (!v.startsWith("by_duration:")) return false;
        try {
            return !java.time.Duration.parse(v.substring("by_duration:".length())).isNegative();
        } catch (java.time.format.DateTimeParseException e) {
            return false;
        }
    }
}
