package io.faultline.results;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A run's test.json as a reader asks about it: which system and settings, which workload, which faults, which
 * versions, and the run itself (seed, start). Keys lose test.json's nesting prefix ("parameters.acks" is shown as
 * "acks"); a key no group claims is shown under "run", so nothing recorded is hidden.
 */
public final class ParameterGroups {
    /** The groups in the order the report shows them. */
    public static final List<String> ORDER = List.of("system", "settings", "workload", "faults", "versions", "run");

    private static final Map<String, String> GROUP_OF = new LinkedHashMap<>();

    static {
        for (String k : List.of("sut", "nodes", "metadata", "version")) GROUP_OF.put(k, "system");
        for (String k : List.of("acks", "idempotence", "min-isr", "rf", "unclean", "system-defaults", "flush-messages", "flush-ms",
                "broker-props", "producer-props", "transaction-version")) GROUP_OF.put(k, "settings");
        for (String k : List.of("workload", "mix", "rate", "concurrency", "keys", "sub-via", "time-limit"))
            GROUP_OF.put(k, "workload");
        for (String k : List.of("nemesis", "nemesis-interval", "recovery", "drain", "scenario", "guided", "schedule"))
            GROUP_OF.put(k, "faults");
        GROUP_OF.put("versions", "versions");
    }

    private ParameterGroups() {}

    /** test.json (or any nested parameter map) flattened into ordered groups of display key → value. */
    public static Map<String, Map<String, String>> of(Map<String, ?> testJson) {
        Map<String, String> flat = new TreeMap<>();
        HtmlReport.flatten("", testJson == null ? Map.of() : testJson, flat);
        Map<String, Map<String, String>> groups = new LinkedHashMap<>();
        ORDER.forEach(g -> groups.put(g, new TreeMap<>()));
        flat.forEach((key, value) -> {
            String shown = key.startsWith("parameters.") ? key.substring("parameters.".length()) : key;
            groups.get(groupOf(shown)).put(shown, value);
        });
        groups.values().removeIf(Map::isEmpty);
        return groups;
    }

    /** All groups in one flat map of display key → value, in group order. */
    public static Map<String, String> flat(Map<String, ?> testJson) {
        Map<String, String> out = new LinkedHashMap<>();
        of(testJson).values().forEach(out::putAll);
        return out;
    }

    static String groupOf(String shownKey) {
        int dot = shownKey.indexOf('.');
        String head = dot < 0 ? shownKey : shownKey.substring(0, dot);
        return GROUP_OF.getOrDefault(head, "run");
    }

    /**
     * The keys whose values differ between the given flattened parameter maps (a key missing in one of them counts
     * as differing), in the first map's order, then any others.
     */
    public static List<String> differing(List<Map<String, String>> flats) {
        List<String> keys = new ArrayList<>();
        for (Map<String, String> f : flats) for (String k : f.keySet()) if (!keys.contains(k)) keys.add(k);
        List<String> out = new ArrayList<>();
        for (String k : keys) {
            String first = flats.get(0).get(k);
            for (Map<String, String> f : flats) {
                if (!java.util.Objects.equals(first, f.get(k))) {
                    out.add(k);
                    break;
                }
            }
        }
        return out;
    }
}
