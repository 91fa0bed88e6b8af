package io.faultline.results;

import com.fasterxml.jackson.core.type.TypeReference;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Names compared runs by what differs between them. Two broker-impl runs in two truncation modes are not both
 * "broker-impl": each column is the system's name plus the parameters whose values differ between the runs
 * (read from each run's test.json), and those parameters get a row of their own on the page. Labels are unique:
 * runs that differ in nothing recorded are numbered.
 *
 * @param labels      one per side, in order
 * @param differing   the parameter keys (as the report shows them) whose values differ between the runs
 * @param differences per side, its value of each differing key (absent when the run did not record it)
 */
public record CompareLabels(List<String> labels, List<String> differing, List<Map<String, String>> differences) {
    /** Keys that differ between any two runs without saying anything about the test (when, what it was called). */
    private static final Set<String> NOT_A_DIFFERENCE = Set.of("started-at", "history-origin", "test-name", "caveats", "phases");
    private static final Set<String> NOT_A_DIFFERENCE_PREFIX = Set.of("phases.", "faults.", "versions.java",
            "versions.faultline");
    /** Already in the label (the side's own name is the system under test). */
    private static final Set<String> IN_THE_NAME = Set.of("sut", "versions.sut");
    private static final int MAX_LABEL = 90;

    static CompareLabels of(List<ComparePage.Side> sides) {
        List<Map<String, String>> flats = new ArrayList<>();
        for (ComparePage.Side s : sides) flats.add(parametersOf(s.runDir()));
        List<String> differing = sides.size() < 2 ? List.of() : ParameterGroups.differing(flats).stream()
                .filter(k -> !NOT_A_DIFFERENCE.contains(k) && NOT_A_DIFFERENCE_PREFIX.stream().noneMatch(k::startsWith))
                .toList();
        List<Map<String, String>> differences = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (int i = 0; i < sides.size(); i++) {
            Map<String, String> mine = new LinkedHashMap<>();
            for (String k : differing) if (flats.get(i).containsKey(k)) mine.put(k, flats.get(i).get(k));
            differences.add(mine);
            StringBuilder label = new StringBuilder(sides.get(i).label());
            for (String k : differing) {
                if (IN_THE_NAME.contains(k)) continue;
                String v = mine.getOrDefault(k, "(not set)");
                label.append(label.length() == sides.get(i).label().length() ? " · " : ", ").append(shortKey(k))
                        .append('=').append(v);
            }
            String l = label.length() > MAX_LABEL ? label.substring(0, MAX_LABEL - 1) + "…" : label.toString();
            labels.add(l);
        }
        return new CompareLabels(unique(labels), differing, differences);
    }

    /** The last part of a nested key: "broker-props.faultline.truncation" reads as "faultline.truncation". */
    static String shortKey(String key) {
        for (String prefix : List.of("broker-props.", "producer-props.", "scenario.")) {
            if (key.startsWith(prefix)) return key.substring(prefix.length());
        }
        return key;
    }

    /** Labels that occur more than once are numbered in order: "broker-impl #1", "broker-impl #2". */
    private static List<String> unique(List<String> labels) {
        List<String> out = new ArrayList<>();
        Map<String, Integer> seen = new LinkedHashMap<>();
        for (String l : labels) {
            if (labels.stream().filter(l::equals).count() == 1) {
                out.add(l);
            } else {
                out.add(l + " #" + seen.merge(l, 1, Integer::sum));
            }
        }
        return out;
    }

    /** A run's test.json flattened as the report shows it; empty when the run has none or it cannot be read. */
    private static Map<String, String> parametersOf(Path runDir) {
        Path file = runDir.resolve("test.json");
        if (!Files.isRegularFile(file)) return Map.of();
        try {
            Map<String, Object> testJson = Json.MAPPER.readValue(file.toFile(), new TypeReference<LinkedHashMap<String, Object>>() {});
            if (testJson == null) return Map.of();
            if (testJson.get("scenario") instanceof Map<?, ?> sc) testJson.put("scenario", sc.get("name"));
            return ParameterGroups.flat(testJson);
        } catch (java.io.IOException | RuntimeException e) {
            return Map.of();
        }
    }
}
