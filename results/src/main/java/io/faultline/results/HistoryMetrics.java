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

    /**
     * Ok client ops per second in the main phase (from the first client op to the last fault op, which is the
     * final heal; the whole history when no fault ran), split by whether a fault band was active. The final drain
     * is left out: it reads back what was written and says nothing about throughput under faults. A rate is NaN
     * when its side had no time.
     */
    public record Rates(long okOutside, double secondsOutside, long okDuring, double secondsDuring) {
        public double outsideFaults() {
            return secondsOutside <= 0 ? Double.NaN : okOutside / secondsOutside;
        }

        public double duringFaults() {
            return secondsDuring <= 0 ? Double.NaN : okDuring / secondsDuring;
        }
    }

    private final List<Completion> completions;
    private final long durationNanos;
    private final long mainStartNanos;
    private final long mainEndNanos;
    private final long windowNanos;
    private final FaultBands faults;

    private HistoryMetrics(List<Completion> completions, long durationNanos, long mainStartNanos, long mainEndNanos,
                           FaultBands faults) {
        this.completions = completions;
        this.durationNanos = durationNanos;
        this.mainStartNanos = mainStartNanos;
        this.mainEndNanos = mainEndNanos;
        this.windowNanos = chooseWindow(durationNanos);
        this.faults = faults;
    }

    public static HistoryMetrics of(List<Op> history, FaultBands faults) {
        long duration = 0;
        long firstClient = -1;
        long lastNemesis = -1;
        Map<Integer, Op> pending = new HashMap<>();
        List<Completion> out = new ArrayList<>();
        for (Op op : history) {
            duration = Math.max(duration, op.time());
            if (op.process() == Op.NEMESIS) {
                lastNemesis = Math.max(lastNemesis, op.time());
                continue;
            }
            if (firstClient < 0) {
                firstClient = op.time();
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
        long mainStart = Math.max(0, firstClient);
        long mainEnd = lastNemesis > mainStart ? lastNemesis : duration;
        return new HistoryMetrics(List.copyOf(out), duration, mainStart, mainEnd, faults);
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

    public Rates rates() {
        long okIn = 0, okOut = 0;
        for (Completion c : completions) {
            long t = c.completeNanos();
            if (c.type() != OpType.OK || t < mainStartNanos || t > mainEndNanos) {
                continue;
            }
            if (faults.anyActiveAt(t)) {
                okIn++;
            } else {
                okOut++;
            }
        }
        long faulted = faultedNanos(mainStartNanos, mainEndNanos);
        long total = Math.max(0, mainEndNanos - mainStartNanos);
        return new Rates(okOut, (total - faulted) / 1e9, okIn, faulted / 1e9);
    }

    /** Nanoseconds of [from, to] covered by at least one fault band. */
    private long faultedNanos(long from, long to) {
        List<long[]> spans = new ArrayList<>();
        for (FaultBands.Band b : faults.bands()) {
            long a = Math.max(from, b.startNanos()), z = Math.min(to, b.endNanos());
            if (z > a) {
                spans.add(new long[]{a, z});
            }
        }
        spans.sort((x, y) -> Long.compare(x[0], y[0]));
        long covered = 0, curStart = -1, curEnd = -1;
        for (long[] sp : spans) {
            if (sp[0] > curEnd) {
                covered += curEnd - curStart;
                curStart = sp[0];
                curEnd = sp[1];
            } else {
                curEnd = Math.max(curEnd, sp[1]);
            }
        }
        return covered + (curEnd - curStart);
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
