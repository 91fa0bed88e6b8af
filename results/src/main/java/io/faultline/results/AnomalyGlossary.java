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
            Map.entry("replica-divergence", "Two replicas' final logs hold different values at one offset below both their high watermarks."),
            Map.entry("duplicate", "One value was observed at more than one offset of a key."),
            Map.entry("G1a", "Aborted read: a poll returned a value whose send definitely failed."),
            Map.entry("precommitted-read", "A transaction polled a value it sent itself, before committing."),
            Map.entry("poll-skip", "A process's poll resumed past values it should have read next."),
            Map.entry("nonmonotonic-poll", "A process's poll went back to, or repeated, a point at or before where its previous poll ended."),
            Map.entry("assigned-poll-skip", "A consumer with a manual assignment (no group) resumed past values it should have read next."),
            Map.entry("assigned-nonmonotonic-poll", "A consumer with a manual assignment went back to, or repeated, a point it had already read, without a seek."),
            Map.entry("offset-gap", "A consumer with a manual assignment read two offsets in a row with a hole between them (no value known there)."),
            Map.entry("group-rewind", "A consumer group member polled records below an offset its group had committed, and had been told so, before the poll began."),
            Map.entry("int-poll-skip", "Within one poll, consecutive records of a key skip over part of the log."),
            Map.entry("int-nonmonotonic-poll", "Within one poll, consecutive records of a key go backwards or repeat."),
            Map.entry("nonmonotonic-send", "A process's send landed at or before its previous send to the same key."),
            Map.entry("int-nonmonotonic-send", "Within one op, a later send to a key landed at or before an earlier one."),
            Map.entry("int-send-skip", "Within one op, consecutive sends to a key are not adjacent in the log (normal when others interleave)."),
            Map.entry("G1b", "Intermediate read: a transaction's read of a key ended at a value its writer later superseded in the same transaction."),
            Map.entry("G0", "Write cycle: transactions whose writes to keys are ordered differently on different keys (ww edges only)."),
            Map.entry("G1c", "Circular information flow: a cycle of write and read dependencies (ww, wr)."),
            Map.entry("G-single", "A dependency cycle with exactly one anti-dependency (rw): a read missed a write that, by the other edges, came before it."),
            Map.entry("G2-item", "A dependency cycle with two or more anti-dependencies (rw)."),
            Map.entry("nonlinearizable", "A key whose operations fit no single order consistent with real time and the model."),
            Map.entry("unknown", "Keys the linearizability search gave up on (time or memory bound)."));

    static String meaning(String category) {
        String m = MEANINGS.get(category);
        if (m == null && category.endsWith("-process")) {
            m = meaning(category.substring(0, category.length() - 8)) + " Needs a process-order edge.";
        } else if (m == null && category.endsWith("-realtime")) {
            m = meaning(category.substring(0, category.length() - 9)) + " Needs a real-time edge.";
        }
        return m == null ? "" : m;
    }
}
