package io.faultline.checker.observe;

/**
 * One abstract state transition seen between two polls: a kind that names what changed without naming nodes (so
 * runs on different clusters and systems compare), where (a partition, or "cluster"), and when (nanoseconds on the
 * run's time base) plus a readable detail with the concrete ids.
 */
public record Transition(long timeNanos, String kind, String where, String detail) {
    public Transition {
        if (kind == null || kind.isBlank()) throw new IllegalArgumentException("a transition needs a kind");
    }

    @Override
    public String toString() {
        return String.format("%.3f s %s %s (%s)", timeNanos / 1e9, kind, where, detail);
    }
}
