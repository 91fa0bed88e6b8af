package io.faultline.harness;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Delta debugging (Zeller and Hildebrandt's ddmin): from a list of items whose whole fails a test, finds a
 * smaller sublist that still fails and from which no single chunk at the final granularity can be removed (1-minimal
 * when it runs to the end). Sublists keep the original order. Each distinct subset is tested at most once; the
 * search stops early, keeping the smallest failing subset found so far, once {@code outOfTime} says so.
 */
final class Ddmin<T> {
    /** The test: does the system still fail with only these items? */
    @FunctionalInterface
    interface Test<T> {
        boolean fails(List<T> items) throws Exception;
    }

    /** Told of every attempt and its verdict, in order. */
    @FunctionalInterface
    interface Listener<T> {
        void attempt(int number, List<T> items, boolean fails);
    }

    /** What the search found: the smallest failing subset, how many tests ran, whether it ran to the end. */
    record Result<T>(List<T> minimal, int attempts, boolean complete) {}

    private final Test<T> test;
    private final Listener<T> listener;
    private final BooleanSupplier outOfTime;
    private final Map<List<T>, Boolean> seen = new HashMap<>();
    private int attempts;

    Ddmin(Test<T> test, Listener<T> listener, BooleanSupplier outOfTime) {
        this.test = test;
        this.listener = listener;
        this.outOfTime = outOfTime;
    }

    /** {@code failing} must fail the test (it is not run again). */
    Result<T> minimize(List<T> failing) throws Exception {
        List<T> current = List.copyOf(failing);
        seen.put(current, true);
        int n = 2;
        while (current.size() >= 2) {
            List<List<T>> chunks = split(current, n);
            boolean reduced = false;
            // a chunk alone fails: keep only it and start again coarse
            for (List<T> chunk : chunks) {
                Boolean fails = run(chunk);
                if (fails == null) return new Result<>(current, attempts, false);
                if (fails) {
                    current = chunk;
                    n = 2;
                    reduced = true;
                    break;
                }
            }
            if (!reduced && n > 2) {
                // a complement fails: drop that chunk, keep the granularity
                for (int i = 0; i < chunks.size(); i++) {
                    List<T> complement = new ArrayList<>();
                    for (int j = 0; j < chunks.size(); j++) if (j != i) complement.addAll(chunks.get(j));
                    Boolean fails = run(complement);
                    if (fails == null) return new Result<>(current, attempts, false);
                    if (fails) {
                        current = List.copyOf(complement);
                        n = Math.max(n - 1, 2);
                        reduced = true;
                        break;
                    }
                }
            }
            if (!reduced) {
                if (n >= current.size()) break; // single items tested: 1-minimal
                n = Math.min(current.size(), 2 * n);
            }
        }
        return new Result<>(current, attempts, true);
    }

    /** The verdict for a subset, from memory or by testing it; null when out of time. */
    private Boolean run(List<T> items) throws Exception {
        List<T> key = List.copyOf(items);
        Boolean known = seen.get(key);
        if (known != null) return known;
        if (outOfTime.getAsBoolean()) return null;
        boolean fails = test.fails(key);
        attempts++;
        seen.put(key, fails);
        listener.attempt(attempts, key, fails);
        return fails;
    }

    /** n nearly equal contiguous chunks (the first ones one longer when it does not divide). */
    static <T> List<List<T>> split(List<T> items, int n) {
        List<List<T>> out = new ArrayList<>();
        int size = items.size(), start = 0;
        for (int i = 0; i < n; i++) {
            int len = size / n + (i < size % n ? 1 : 0);
            if (len > 0) out.add(List.copyOf(items.subList(start, start + len)));
            start += len;
        }
        return out;
    }
}
