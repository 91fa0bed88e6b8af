package io.faultline.broker.config;

import java.util.List;
import java.util.Properties;

/** Typed reads of server.properties values; a bad value adds a problem naming key and value, and the default is used. */
final class PropertyReader {
    private final Properties props;
    private final List<String> problems;

    PropertyReader(Properties props, List<String> problems) {
        this.props = props;
        this.problems = problems;
    }

    String get(String key, String dflt) {
        String v = props.getProperty(key);
        return v == null ? dflt : v.trim();
    }

    boolean has(String key) {
        return props.getProperty(key) != null;
    }

    int getInt(String key, int dflt, int min) {
        return (int) getNumber(key, dflt, min, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    long getLong(String key, long dflt, long min) {
        return getNumber(key, dflt, min, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /** A whole number in [lo, hi] (else "not an integer") and at least {@code min}; a problem gives the default. */
    private long getNumber(String key, long dflt, long min, long lo, long hi) {
        String v = get(key, null);
        if (v == null) return dflt;
        long n;
        try {
            n = Long.parseLong(v);
            if (n < lo || n > hi) throw new NumberFormatException(v);
        } catch (NumberFormatException e) {
            problems.add(key + ": '" + v + "' is not an integer");
            return dflt;
        }
        if (n < min) {
            problems.add(key + ": " + v + " is below the minimum " + min);
            return dflt;
        }
        return n;
    }

    boolean getBoolean(String key, boolean dflt) {
        String v = get(key, null);
        if (v == null) return dflt;
        if (v.equalsIgnoreCase("true")) return true;
        if (v.equalsIgnoreCase("false")) return false;
        problems.add(key + ": '" + v + "' is not true or false");
        return dflt;
    }
}
