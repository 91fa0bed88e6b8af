package io.faultline.broker.common;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The seeded bugs switched on for this broker ({@link SeededBug}); passed to the components that have one. Empty
 * ({@link #NONE}) unless server.properties sets {@code faultline.bug.<name>=true} together with
 * {@code faultline.bugs.allowed=true}.
 */
public final class SeededBugs {
    public static final SeededBugs NONE = new SeededBugs(EnumSet.noneOf(SeededBug.class));

    private final EnumSet<SeededBug> enabled;

    private SeededBugs(Set<SeededBug> enabled) {
        this.enabled = enabled.isEmpty() ? EnumSet.noneOf(SeededBug.class) : EnumSet.copyOf(enabled);
    }

    /** Exactly these bugs on (tests, and the result of {@link #parse}). */
    public static SeededBugs of(SeededBug... bugs) {
        return bugs.length == 0 ? NONE : new SeededBugs(EnumSet.copyOf(Arrays.asList(bugs)));
    }

    public boolean on(SeededBug bug) {
        return enabled.contains(bug);
    }

    public Set<SeededBug> enabled() {
        return EnumSet.copyOf(enabled);
    }

    public boolean isEmpty() {
        return enabled.isEmpty();
    }

    /**
     * Reads the {@code faultline.bug.*} switches. Adds a problem (and switches nothing on) for an unknown name, a
     * value other than true/false, or a bug switched on without {@code faultline.bugs.allowed=true}.
     */
    public static SeededBugs parse(Properties props, List<String> problems) {
        Set<SeededBug> on = EnumSet.noneOf(SeededBug.class);
        List<String> local = new ArrayList<>();
        String allowedValue = props.getProperty(SeededBug.ALLOWED, "false").trim();
        if (!allowedValue.equalsIgnoreCase("true") && !allowedValue.equalsIgnoreCase("false")) {
            local.add(SeededBug.ALLOWED + ": '" + allowedValue + "' is not true or false");
        }
        boolean allowed = allowedValue.equalsIgnoreCase("true");
        for (String key : new TreeSet<>(props.stringPropertyNames())) {
            if (!key.startsWith(SeededBug.PREFIX)) continue;
            String name = key.substring(SeededBug.PREFIX.length());
            String value = props.getProperty(key).trim();
            var bug = SeededBug.byName(name);
            if (bug.isEmpty()) {
                local.add(key + ": unknown seeded bug '" + name + "' (known: " + Arrays.stream(SeededBug.values())
                        .map(SeededBug::configName).collect(Collectors.joining(", ")) + ")");
            } else if (value.equalsIgnoreCase("true")) {
                if (allowed) {
                    on.add(bug.get());
                } else {
                    local.add(key + " is a seeded bug for testing the harness; it runs only with "
                            + SeededBug.ALLOWED + "=true");
                }
            } else if (!value.equalsIgnoreCase("false")) {
                local.add(key + ": '" + value + "' is not true or false");
            }
        }
        problems.addAll(local);
        return local.isEmpty() ? new SeededBugs(on) : NONE;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SeededBugs s && s.enabled.equals(enabled);
    }

    @Override
    public int hashCode() {
        return enabled.hashCode();
    }

    @Override
    public String toString() {
        return enabled.stream().map(SeededBug::configName).collect(Collectors.joining(",", "[", "]"));
    }
}
