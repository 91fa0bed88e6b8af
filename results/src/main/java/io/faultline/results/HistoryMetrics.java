package io.faultline.results;

import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Figures derived from a history for the report: per-op latencies, latency quantiles and throughput per time
 * window, and availability inside and outside fault bands. Pure computation, no I/O.
 */
public final class HistoryMetrics {

    /** A completed client op: invoked at {@code invokeNanos}, completed as {@code type} after {@code latencyNanos}. */
    public record Completion(long invokeIndex, long completeIndex, String f, OpType type, long invokeNanos,
                             long latencyNanos) {
        public long completeNanos() {
            return invokeNanos + latencyNanos;
        }
    }

    /** Latency quantiles (milliseconds) of the ops completing in one window starting at {@code startNanos}. */
    public record LatencyWindow(long startNanos, int count, double p50, double p95, double p99, double max) {
    }

    /** Completed ops per second in one window, all ok ops and per function. */
    public record ThroughputWindow(long startNanos, double okPerSecond, Map<String, Double> okPerSecondByF) {
    }

    /**
     * Share of client completions that were ok, split by whether they completed while a fault band was active.
     * A share is NaN when there were no completions on that side.
     */
    public record Availability(long okDuringFaults, long totalDuringFaults, long okOutside, long totalOutside) {
        public double duringFaults() {
            return totalDuringFaults == 0 ? Double.NaN : (double) okDuringFaults / totalDuringFaults;
        }

        public double outsideFaults() {
            return totalOutside == 0 ? Double.NaN : (double) okOutside / totalOutside;
        }

        public double overall() {
            long total = totalDuringFaults + totalOutside;
            return total == 0 ? Double.NaN : (double) (okDuringFaults + okOutside) / total;
        }
    }

    private final List<Completion> completions;
    private final long durationNanos;
    private final long windowNanos;
    private final FaultBands faults;

    private HistoryMetrics(List<Completion> completions, long durationNanos, FaultBands faults) {
        this.completions = completions;
        this.durationNanos = durationNanos;
        this.windowNanos = chooseWindow(durationNanos);
        this.faults = faults;
    }

    public static HistoryMetrics of(List<Op> history, FaultBands faults) {
        long duration = 0;
        Map<Integer, Op> pending = new HashMap<>();
        List<Completion> out = new ArrayList<>();
        for (Op op : history) {
            duration = Math.max(duration, op.time());
            if (op.process() == Op.NEMESIS) {
                continue;
            }
            if (op.type() == OpType.INVOKE) {
                pending.put(op.process(), op);
            } else {
                // a completion pairs with its process's open invoke; a stray completion is ignored
                Op inv = pending.remove(op.process());
                if (inv != null) {
                    out.add(new Completion(inv.index(), op.index(), inv.f(), op.type(), inv.time(),
                            Math.max(0, op.time() - inv.time())));
                }
            }
        }
        return new HistoryMetrics(List.copyOf(out), duration, faults);
    }

    /** At most about 60 windows over the run, each a round length: 1, 2 or 5 × a power of ten, from 1 ms. */
    static long chooseWindow(long durationNanos) {
        long target = durationNanos / 60;
        for (long power = 1_000_000L; ; power *= 10) {
            for (long m : new long[]{1, 2, 5}) {
                if (m * power >= target) {
                    return m * power;
                }
            }
        }
    }

    public List<Completion> completions() {
        return completions;
    }

    public long durationNanos() {
        return durationNanos;
    }

    public long windowNanos() {
        return windowNanos;
    }

    private int windowCount() {
        return (int) (durationNanos / windowNanos) + 1;
    }

    public List<LatencyWindow> latencyQuantiles() {
        if (completions.isEmpty()) {
            return List.of();
        }
        int n = windowCount();
        List<List<Long>> buckets = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            buckets.add(new ArrayList<>());
        }
        for (Completion c : completions) {
            buckets.get(windowOf(c.completeNanos(), n)).add(c.latencyNanos());
        }
        List<LatencyWindow> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            List<Long> b = buckets.get(i);
            if (b.isEmpty()) {
                continue;
            }
            long[] sorted = b.stream().mapToLong(Long::longValue).toArray();
            Arrays.sort(sorted);
            out.add(new LatencyWindow(i * windowNanos, sorted.length, ms(quantile(sorted, 0.50)),
                    ms(quantile(sorted, 0.95)), ms(quantile(sorted, 0.99)), ms(sorted[sorted.length - 1])));
        }
        return out;
    }

    public List<ThroughputWindow> throughput() {
        if (completions.isEmpty()) {
            return List.of();
        }
        int n = windowCount();
        long[] ok = new long[n];
        Map<String, long[]> byF = new java.util.TreeMap<>();
        for (Completion c : completions) {
            if (c.type() != OpType.OK) {
                continue;
            }
            int w = windowOf(c.completeNanos(), n);
            ok[w]++;
            byF.computeIfAbsent(c.f(), k -> new long[n])[w]++;
        }
        double seconds = windowNanos / 1e9;
        List<ThroughputWindow> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Map<String, Double> perF = new java.util.TreeMap<>();
            for (Map.Entry<String, long[]> e : byF.entrySet()) {
                perF.put(e.getKey(), e.getValue()[i] / seconds);
            }
            out.add(new ThroughputWindow(i * windowNanos, ok[i] / seconds, perF));
        }
        return out;
    }

    /** Ok client ops per second over the whole run (0 for an empty or instantaneous history). */
    public double meanOkThroughput() {
        long ok = completions.stream().filter(c -> c.type() == OpType.OK).count();
        return durationNanos <= 0 ? 0 : ok / (durationNanos / 1e9);
    }

    public Availability availability() {
        long okIn = 0, in = 0, okOut = 0, out = 0;
        for (Completion c : completions) {
            boolean ok = c.type() == OpType.OK;
            if (faults.anyActiveAt(c.completeNanos())) {
                in++;
                okIn += ok ? 1 : 0;
            } else {
                out++;
                okOut += ok ? 1 : 0;
            }
        }
        return new Availability(okIn, in, okOut, out);
    }

    private int windowOf(long timeNanos, int n) {
        return (int) Math.min(n - 1, Math.max(0, timeNanos / windowNanos));
    }

    /** Nearest-rank quantile of a sorted array. */
    static long quantile(long[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    static double ms(long nanos) {
        return nanos / 1e6;
    }
}
