package io.faultline.results;

import java.util.Map;

/** One-line meanings of the anomaly categories, shown next to their counts in the report. */
final class AnomalyGlossary {

    private AnomalyGlossary() {
    }

    private static final Map<String, String> MEANINGS = Map.ofEntries(
            Map.entry("lost-write", "An acknowledged send, below the highest offset some poll reached, that no poll ever read."),
            Map.entry("unseen", "An acknowledged send that no poll had read by the end of the history."),
            Map.entry("inconsistent-offsets", "Two different values were observed at one offset of one key: the log diverged."),
            Map.entry("duplicate", "One value was observed at more than one offset of a key."),
            Map.entry("G1a", "Aborted read: a poll returned a value whose send definitely failed."),
            Map.entry("precommitted-read", "A transaction polled a value it sent itself, before committing."),
            Map.entry("poll-skip", "A process's poll resumed past values it should have read next."),
            Map.entry("nonmonotonic-poll", "A process's poll went back to, or repeated, a point at or before where its previous poll ended."),
            Map.entry("int-poll-skip", "Within one poll, consecutive records of a key skip over part of the log."),
            Map.entry("int-nonmonotonic-poll", "Within one poll, consecutive records of a key go backwards or repeat."),
            Map.entry("nonmonotonic-send", "A process's send landed at or before its previous send to the same key."),
            Map.entry("int-nonmonotonic-send", "Within one op, a later send to a key landed at or before an earlier one."),
            Map.entry("int-send-skip", "Within one op, consecutive sends to a key are not adjacent in the log (normal when others interleave)."));

    static String meaning(String category) {
        return MEANINGS.getOrDefault(category, "");
    }
}
