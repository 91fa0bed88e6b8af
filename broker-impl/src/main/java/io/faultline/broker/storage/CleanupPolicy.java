package io.faultline.broker.storage;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** Kafka's cleanup.policy values; a topic may have both ("compact,delete"). */
public enum CleanupPolicy {
    DELETE, COMPACT;

    /** Parses Kafka's comma-separated form, e.g. "compact,delete". */
    public static Set<CleanupPolicy> parse(String value) {
        EnumSet<CleanupPolicy> set = EnumSet.noneOf(CleanupPolicy.class);
        for (String part : value.split(",")) {
            String p = part.trim();
            if (!p.isEmpty()) set.add(CleanupPolicy.valueOf(p.toUpperCase(Locale.ROOT)));
        }
        if (set.isEmpty()) throw new IllegalArgumentException("empty cleanup.policy");
        return set;
    }
}
