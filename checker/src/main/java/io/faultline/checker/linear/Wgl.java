package io.faultline.checker.linear;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

/**
 * Wing & Gong's linearizability search with Lowe's memoisation, for the ops of one object. Events (calls and
 * returns) sit in a linked list ordered by time; the search linearizes a call whose model step succeeds, lifting
 * it and its return out of the list, and backtracks when it meets a return whose call it has not linearized.
 * A configuration (set of linearized ops, model state) already explored is not explored again. The set is kept
 * as a Zobrist hash (one random 64-bit word per op, XORed in and out), so a memo entry costs one long plus the
 * state; two different sets sharing a hash (chance about entries² / 2⁶⁵) could at worst hide a linearization.
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

    record GaveUp(String reason, long explored) implements Outcome {
    }

    private static final int HEAD = 0;

    private record Config(long hash, Object state) {
    }

    /** One linearized op on the search stack; frames are shared, so remembering the deepest stack is O(1). */
    private record Frame(int entry, Object stateBefore, long hashBefore, int depth, Frame parent) {
    }

    private final Model<S, I, O> model;
    private final List<LinOp<I, O>> ops;
    private final LongSupplier nanoClock;
    private final long deadline;
    private final long maxConfigs;

    Wgl(Model<S, I, O> model, List<LinOp<I, O>> ops, LongSupplier nanoClock, long deadline, long maxConfigs) {
        this.model = model;
        this.ops = ops;
        this.nanoClock = nanoClock;
        this.deadline = deadline;
        this.maxConfigs = maxConfigs;
    }

    Outcome run() {
        int n = ops.size();
        int events = 2 * n;
        // Event e in 1..2n: calls then returns, sorted by time; at equal times calls first (so ops that touch
        // are treated as concurrent: never a false alarm).
        Integer[] order = new Integer[events];
        for (int i = 0; i < events; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.<Integer>comparingLong(i -> i < n ? ops.get(i).invoke() : ops.get(i - n).complete())
                .thenComparingInt(i -> i < n ? 0 : 1));
        int[] next = new int[events + 1];
        int[] prev = new int[events + 1];
        int[] opOf = new int[events + 1];
        boolean[] isCall = new boolean[events + 1];
        int[] match = new int[events + 1];
        int[] callEvent = new int[n];
        int[] returnEvent = new int[n];
        for (int pos = 0; pos < events; pos++) {
            int e = pos + 1;
            int raw = order[pos];
            opOf[e] = raw < n ? raw : raw - n;
            isCall[e] = raw < n;
            if (isCall[e]) {
                callEvent[opOf[e]] = e;
            } else {
                returnEvent[opOf[e]] = e;
            }
            prev[e] = e - 1;
            next[e] = e < events ? e + 1 : -1;
        }
        next[HEAD] = events > 0 ? 1 : -1;
        for (int i = 0; i < n; i++) {
            match[callEvent[i]] = returnEvent[i];
            match[returnEvent[i]] = callEvent[i];
        }
        long[] zobrist = new long[n];
        SplittableRandom rnd = new SplittableRandom(0x5eedL);
        for (int i = 0; i < n; i++) {
            zobrist[i] = rnd.nextLong();
        }

        Set<Config> seen = new HashSet<>();
        Frame top = null;
        BitSet linearized = new BitSet(n);
        S state = model.initial();
        long hash = 0;
        int entry = next[HEAD];
        int bestDepth = -1;
        Frame bestTop = null;
        int bestStuck = -1;
        Object bestState = state;
        long steps = 0;
        while (next[HEAD] != -1) {
            if ((++steps & 0xFFF) == 0 && nanoClock.getAsLong() > deadline) {
                return new GaveUp("time limit reached after " + seen.size() + " configurations", seen.size());
            }
            if (isCall[entry]) {
                int op = opOf[entry];
                LinOp<I, O> o = ops.get(op);
                S after = model.step(state, o.input(), o.output());
                if (after != null) {
                    long h = hash ^ zobrist[op];
                    if (seen.add(new Config(h, after))) {
                        if (seen.size() > maxConfigs) {
                            return new GaveUp("memory bound reached (" + maxConfigs + " configurations)", seen.size());
                        }
                        top = new Frame(entry, state, hash, top == null ? 1 : top.depth() + 1, top);
                        state = after;
                        hash = h;
                        linearized.set(op);
                        lift(entry, match[entry], next, prev);
                        entry = next[HEAD];
                        continue;
                    }
                }
                entry = next[entry];
            } else {
                int depth = top == null ? 0 : top.depth();
                if (depth > bestDepth) { // the furthest the search got: what a report shows
                    bestDepth = depth;
                    bestTop = top;
                    bestStuck = opOf[entry];
                    bestState = state;
                }
                if (top == null) {
                    return new NotLinearizable(prefix(bestTop, opOf), bestStuck, bestState, seen.size());
                }
                int back = top.entry();
                @SuppressWarnings("unchecked")
                S restored = (S) top.stateBefore();
                state = restored;
                hash = top.hashBefore();
                top = top.parent();
                linearized.clear(opOf[back]);
                unlift(back, match[back], next, prev);
                entry = next[back];
            }
        }
        return new Linearizable(seen.size());
    }

    private static List<Integer> prefix(Frame top, int[] opOf) {
        List<Integer> out = new ArrayList<>();
        for (Frame f = top; f != null; f = f.parent()) {
            out.add(opOf[f.entry()]);
        }
        java.util.Collections.reverse(out);
        return out;
    }

    private static void lift(int call, int ret, int[] next, int[] prev) {
        next[prev[call]] = next[call];
        if (next[call] != -1) {
            prev[next[call]] = prev[call];
        }
        next[prev[ret]] = next[ret];
        if (next[ret] != -1) {
            prev[next[ret]] = prev[ret];
        }
    }

    private static void unlift(int call, int ret, int[] next, int[] prev) {
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
