package io.faultline.checker.txn;

import io.faultline.checker.history.Op;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Puts a cycle into words: each edge as one clause that says why one transaction precedes the next. */
final class CycleText {
    /** How explanations name a version: (key, value, whether the version after it is meant) → words. */
    interface Versions {
        String describe(int key, long value, boolean next);
    }

    /** The sentence, one step per edge (as plain data for drawing), and the ops involved in cycle order. */
    record Explained(String sentence, List<Map<String, Object>> steps, long[] opIndexes) {
    }

    private final List<Op> ops;
    private final int[] nodeOp;
    private final TxnGraph g;
    private final CycleSearch search;
    private final Versions versions;

    CycleText(List<Op> ops, int[] nodeOp, TxnGraph g, CycleSearch search, Versions versions) {
        this.ops = ops;
        this.nodeOp = nodeOp;
        this.g = g;
        this.search = search;
        this.versions = versions;
    }

    Explained explain(List<Integer> cycle) {
        int n = cycle.size();
        int[] nodes = new int[n];
        for (int i = 0; i < n; i++) {
            nodes[i] = search.sourceOf(cycle.get(i));
        }
        long[] opIdx = new long[n];
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            opIdx[i] = ops.get(nodeOp[nodes[i]]).index();
            sb.append(i == 0 ? "" : ", ").append("T").append(i + 1).append(" = op ").append(opIdx[i]);
        }
        sb.append(". ");
        List<Map<String, Object>> steps = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int e = cycle.get(i);
            String a = "T" + (i + 1);
            String b = "T" + ((i + 1) % n + 1);
            String clause = clause(e, a, b, nodes[i], nodes[(i + 1) % n]);
            sb.append(clause).append(i == n - 1 ? "; a cycle: no serial order exists." : "; ");
            Map<String, Object> step = new LinkedHashMap<>();
            step.put("from", a);
            step.put("from-op", opIdx[i]);
            step.put("to", b);
            step.put("to-op", opIdx[(i + 1) % n]);
            step.put("kind", g.kindOf(e).wireName());
            step.put("text", clause);
            steps.add(step);
        }
        return new Explained(sb.toString(), steps, opIdx);
    }

    private String clause(int e, String a, String b, int from, int to) {
        int key = g.key[e];
        long value = g.value[e];
        return switch (g.kindOf(e)) {
            case WW -> a + " wrote " + versions.describe(key, value, false) + " of key " + key + " and " + b
                    + " wrote the next version, " + versions.describe(key, value, true) + ", so " + a + " < " + b;
            case WR -> a + " wrote " + versions.describe(key, value, false) + " of key " + key + ", which " + b
                    + " read, so " + a + " < " + b;
            case RW -> a + " read key " + key + " up to " + versions.describe(key, value, false) + " but not "
                    + versions.describe(key, value, true) + ", which " + b + " wrote, so " + a + " < " + b;
            case PROCESS -> a + " and " + b + " ran on process " + ops.get(nodeOp[from]).process() + ", " + a
                    + " first, so " + a + " < " + b;
            case REALTIME -> a + " completed (" + ms(ops.get(nodeOp[from]).time()) + ") before " + b
                    + " began, so " + a + " < " + b;
        };
    }

    private static String ms(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.3f s", nanos / 1e9);
    }
}
