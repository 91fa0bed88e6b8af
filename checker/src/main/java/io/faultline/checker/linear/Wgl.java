package io.faultline.checker.linear;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Wing & Gong's linearizability search with Lowe's memoisation, for the ops of one object. Events (calls and
 * returns) sit in a linked list ordered by time; the search linearizes a call whose model step succeeds, lifting
 * it and its return out of the list, and backtracks when it meets a return whose call it has not linearized.
 * A configuration (set of linearized ops, model state) already explored is not explored again.
 *
 * <p>The configuration is stored exactly but in a few words instead of a bitset of all ops (Porcupine and Lowe
 * copy the whole bitset). Let the <em>frontier</em> be the earliest return event still in the list. Every op that
 * returned before the frontier is linearized (its return was lifted), and no op called after it is (the search
 * never passes a return), so the linearized set is fixed by the frontier plus which of the ops <em>open</em> at the
 * frontier (called before, returning after) are linearized. Ops get slots by interval colouring (an op takes a free
 * slot at its call and frees it at its return), so the ops open at one instant have distinct slots and that subset
 * is a mask of {@code width} bits, width being the most ops ever open at once (the process count, plus the
 * indeterminate ops, which stay open to the end). A configuration is then (frontier, interned state id, mask):
 * 16 bytes for up to 64 concurrent ops ({@link ConfigCache}). No hash collision can hide a configuration.
 */
final class Wgl<S, I, O> {
    /** The outcome for one object. */
    sealed interface Outcome permits Linearizable, NotLinearizable, GaveUp {
    }

    record Linearizable(long explored) implements Outcome {
    }

    /**
     * @param prefix the longest sequence of ops the search managed to linearize (positions in the op list)
     * @param stuck  the op that could not be placed after it (it must have been, before its return)
     * @param state  the model's state after the prefix
     */
    record NotLinearizable(List<Integer> prefix, int stuck, Object state, long explored) implements Outcome {
    }

    /** Which bound stopped the search. */
    enum Bound {
        CONFIGURATIONS("configurations explored"), MEMORY("memory"), TIME("time");

        final String text;

        Bound(String text) {
            this.text = text;
        }
    }

    record GaveUp(Bound bound, String reason, long explored) implements Outcome {
    }

    /** The bounds of one search; {@code deadline} is on {@code nanoClock}. */
    record Limits(LongSupplier nanoClock, long deadline, long maxConfigs, long maxCacheBytes) {
    }

    private static final int HEAD = 0;

    private final Model<S, I, O> model;
    private final List<LinOp<I, O>> ops;
    private final Limits limits;

    // The event list, events numbered 1..2n in time order (so an event's number is also its position).
    private int[] next;
    private int[] prev;
    private int[] opOf;
    private boolean[] isCall;
    private int[] match;
    private int[] slot;
    private int words;

    Wgl(Model<S, I, O> model, List<LinOp<I, O>> ops, Limits limits) {
        this.model = model;
        this.ops = ops;
        this.limits = limits;
    }

    Outcome run() {
        int n = ops.size();
        buildEvents(n);
        if (n == 0) {
            return new Linearizable(0);
        }
        Map<Object, Integer> stateIds = new HashMap<>();
        List<Object> states = new ArrayList<>();
        int stateId = intern(model.initial(), stateIds, states);
        // The state each op last stepped to, and its id: a write or swap always leads to an equal state, and a
        // read to the very state it read, so most steps find their id without hashing the state.
        Object[] lastAfter = new Object[n];
        int[] lastAfterId = new int[n];
        ConfigCache cache = new ConfigCache(words, limits.maxCacheBytes());
        boolean[] linearized = new boolean[n];
        long[] mask = new long[words];
        long[] candidate = new long[words];
        int frontier = firstReturnFrom(next[HEAD]);

        // The search stack, in parallel arrays: call event linearized, and the state id, frontier and mask before.
        int cap = 1024;
        int[] stackEntry = new int[cap];
        int[] stackState = new int[cap];
        int[] stackFrontier = new int[cap];
        long[] stackMask = new long[cap * words];
        int depth = 0;
        // The deepest stack met at a dead end (what a report shows), copied incrementally: `common` is how much of
        // the current stack still agrees with it.
        int[] best = new int[0];
        int bestDepth = -1;
        int common = 0;
        int bestStuck = -1;
        int bestState = stateId;

        int entry = next[HEAD];
        long steps = 0;
        while (next[HEAD] != -1) {
            if ((++steps & 0xFFF) == 0 && limits.nanoClock().getAsLong() > limits.deadline()) {
                return new GaveUp(Bound.TIME, "time limit reached after " + cache.size() + " configurations",
                        cache.size());
            }
            if (isCall[entry]) {
                int op = opOf[entry];
                LinOp<I, O> o = ops.get(op);
                @SuppressWarnings("unchecked")
                S after = model.step((S) states.get(stateId), o.input(), o.output());
                if (after != null) {
                    int afterId;
                    if (after == states.get(stateId)) {
                        afterId = stateId;
                    } else if (after.equals(lastAfter[op])) {
                        afterId = lastAfterId[op];
                    } else {
                        afterId = intern(after, stateIds, states);
                        lastAfter[op] = after;
                        lastAfterId[op] = afterId;
                    }
                    System.arraycopy(mask, 0, candidate, 0, words);
                    int ret = match[entry];
                    int newFrontier = frontier;
                    linearized[op] = true;
                    if (ret == frontier) {
                        newFrontier = firstReturnFrom(next[frontier]);
                        advanceMask(candidate, frontier, newFrontier == -1 ? 2 * n + 1 : newFrontier, linearized);
                    } else {
                        candidate[slot[op] >>> 6] |= 1L << slot[op];
                    }
                    int added = newFrontier == -1 ? ConfigCache.ADDED
                            : cache.add(ConfigCache.head(newFrontier, afterId), candidate);
                    if (added == ConfigCache.FULL) {
                        return new GaveUp(Bound.MEMORY, "memory bound reached: the configuration cache would take "
                                + size(cache.bytesNeededToGrow()) + " (bound " + size(limits.maxCacheBytes())
                                + ") after " + cache.size() + " configurations", cache.size());
                    }
                    if (cache.size() > limits.maxConfigs()) {
                        return new GaveUp(Bound.CONFIGURATIONS, "configuration bound reached: " + cache.size()
                                + " configurations explored (bound " + limits.maxConfigs() + ")", cache.size());
                    }
                    if (added == ConfigCache.ADDED) {
                        if (depth == cap) {
                            cap *= 2;
                            stackEntry = Arrays.copyOf(stackEntry, cap);
                            stackState = Arrays.copyOf(stackState, cap);
                            stackFrontier = Arrays.copyOf(stackFrontier, cap);
                            stackMask = Arrays.copyOf(stackMask, cap * words);
                        }
                        stackEntry[depth] = entry;
                        stackState[depth] = stateId;
                        stackFrontier[depth] = frontier;
                        System.arraycopy(mask, 0, stackMask, depth * words, words);
                        depth++;
                        stateId = afterId;
                        frontier = newFrontier;
                        long[] t = mask;
                        mask = candidate;
                        candidate = t;
                        lift(entry, ret);
                        entry = next[HEAD];
                        continue;
                    }
                    linearized[op] = false;
                }
                entry = next[entry];
            } else {
                if (depth > bestDepth) {
                    if (best.length < depth) {
                        best = Arrays.copyOf(best, Math.max(depth, 2 * best.length));
                    }
                    for (int i = common; i < depth; i++) {
                        best[i] = opOf[stackEntry[i]];
                    }
                    common = depth;
                    bestDepth = depth;
                    bestStuck = opOf[entry];
                    bestState = stateId;
                }
                if (depth == 0) {
                    List<Integer> prefix = new ArrayList<>(bestDepth);
                    for (int i = 0; i < bestDepth; i++) {
                        prefix.add(best[i]);
                    }
                    return new NotLinearizable(prefix, bestStuck, states.get(bestState), cache.size());
                }
                depth--;
                common = Math.min(common, depth);
                int back = stackEntry[depth];
                stateId = stackState[depth];
                frontier = stackFrontier[depth];
                System.arraycopy(stackMask, depth * words, mask, 0, words);
                linearized[opOf[back]] = false;
                unlift(back, match[back]);
                entry = next[back];
            }
        }
        return new Linearizable(cache.size());
    }

    /**
     * The frontier moves from {@code from} to {@code to}: ops returning in between leave the open set (their slot
     * bits clear), linearized ops called in between and still open enter it, in event order since slots are reused.
     */
    private void advanceMask(long[] m, int from, int to, boolean[] linearized) {
        for (int e = from; e < to; e++) {
            int s = slot[opOf[e]];
            if (!isCall[e]) {
                m[s >>> 6] &= ~(1L << s);
            } else if (linearized[opOf[e]]) {
                m[s >>> 6] |= 1L << s;
            }
        }
    }

    /** The first return event in the list at or after {@code e}, or -1. */
    private int firstReturnFrom(int e) {
        while (e != -1 && isCall[e]) {
            e = next[e];
        }
        return e;
    }

    private static int intern(Object state, Map<Object, Integer> ids, List<Object> states) {
        Integer id = ids.get(state);
        if (id == null) {
            id = states.size();
            ids.put(state, id);
            states.add(state);
        }
        return id;
    }

    private static String size(long bytes) {
        return bytes < 1 << 20 ? String.format(java.util.Locale.ROOT, "%.1f KiB", bytes / 1024.0)
                : (bytes >> 20) + " MiB";
    }

    /**
     * Calls sorted by invocation, returns by completion, merged with calls first at equal times (ops that touch
     * are treated as concurrent: never a false alarm); then the linked list, matches and slots.
     */
    private void buildEvents(int n) {
        long[] invoke = new long[n];
        long[] complete = new long[n];
        for (int i = 0; i < n; i++) {
            invoke[i] = ops.get(i).invoke();
            complete[i] = ops.get(i).complete();
        }
        int[] calls = sortedBy(invoke);
        int[] returns = sortedBy(complete);
        int events = 2 * n;
        next = new int[events + 1];
        prev = new int[events + 1];
        opOf = new int[events + 1];
        isCall = new boolean[events + 1];
        match = new int[events + 1];
        int[] callEvent = new int[n];
        int c = 0;
        int r = 0;
        for (int e = 1; e <= events; e++) {
            boolean call = c < n && (r == n || invoke[calls[c]] <= complete[returns[r]]);
            int op = call ? calls[c++] : returns[r++];
            opOf[e] = op;
            isCall[e] = call;
            if (call) {
                callEvent[op] = e;
            } else {
                match[e] = callEvent[op];
                match[callEvent[op]] = e;
            }
            prev[e] = e - 1;
            next[e] = e < events ? e + 1 : -1;
        }
        next[HEAD] = events > 0 ? 1 : -1;
        slot = new int[n];
        int[] free = new int[n + 1];
        int freeCount = 0;
        int width = 0;
        for (int e = 1; e <= events; e++) {
            if (isCall[e]) {
                slot[opOf[e]] = freeCount > 0 ? free[--freeCount] : width++;
            } else {
                free[freeCount++] = slot[opOf[e]];
            }
        }
        words = Math.max(1, (width + 63) >>> 6);
    }

    /** The permutation sorting {@code key}, stable (bottom-up merge sort, no boxing). */
    static int[] sortedBy(long[] key) {
        int n = key.length;
        int[] a = new int[n];
        int[] b = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        for (int width = 1; width < n; width *= 2) {
            for (int lo = 0; lo < n; lo += 2 * width) {
                int mid = Math.min(lo + width, n);
                int hi = Math.min(lo + 2 * width, n);
                int i = lo;
                int j = mid;
                int k = lo;
                while (i < mid && j < hi) {
                    b[k++] = key[a[j]] < key[a[i]] ? a[j++] : a[i++];
                }
                while (i < mid) {
                    b[k++] = a[i++];
                }
                while (j < hi) {
                    b[k++] = a[j++];
                }
            }
            int[] t = a;
            a = b;
            b = t;
        }
        return a;
    }

    private void lift(int call, int ret) {
        next[prev[call]] = next[call];
        if (next[call] != -1) {
            prev[next[call]] = prev[call];
        }
        next[prev[ret]] = next[ret];
        if (next[ret] != -1) {
            prev[next[ret]] = prev[ret];
        }
    }

    private void unlift(int call, int ret) {
        if (next[ret] != -1) {
            prev[next[ret]] = ret;
        }
        next[prev[ret]] = ret;
        if (next[call] != -1) {
            prev[next[call]] = call;
        }
        next[prev[call]] = call;
    }
}
