package io.faultline.nemesis.clock;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * Each node's clock offset over time, for a clock plot: one sample per change, on the run's time base. A node
 * with no sample has never been moved (offset 0).
 */
public final class ClockHistory {
    /** At {@code timeNanos} (run time base) the node's clock started reading {@code offsetMillis} ahead. */
    public record Sample(long timeNanos, long offsetMillis) {}

    private final LongSupplier clock;
    private final Map<String, List<Sample>> series = new TreeMap<>();

    public ClockHistory(LongSupplier clock) {
        this.clock = clock;
    }

    public synchronized void record(String node, long offsetMillis) {
        series.computeIfAbsent(node, k -> new ArrayList<>()).add(new Sample(clock.getAsLong(), offsetMillis));
    }

    /** The last offset set on the node, 0 if never. */
    public synchronized long current(String node) {
        List<Sample> s = series.get(node);
        return s == null || s.isEmpty() ? 0 : s.get(s.size() - 1).offsetMillis();
    }

    /** Node name -> its samples in time order. */
    public synchronized Map<String, List<Sample>> series() {
        Map<String, List<Sample>> copy = new TreeMap<>();
        series.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        return copy;
    }
}
