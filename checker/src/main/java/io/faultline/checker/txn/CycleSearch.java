package io.faultline.checker.txn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Shortest paths inside one component, by breadth-first search. Scratch arrays are shared between searches
 * (a generation stamp marks what this search has visited) so thousands of searches cost no allocation.
 */
final class CycleSearch {
    private final TxnGraph g;
    private final int[] stamp;
    private final int[] parentEdge;
    private final int[] queue;
    private int generation;

    CycleSearch(TxnGraph g) {
        this.g = g;
        this.stamp = new int[g.nodes];
        this.parentEdge = new int[g.nodes];
        this.queue = new int[g.nodes];
    }

    /**
     * The shortest cycle that starts with edge {@code first} (u→v) and returns from v to u along edges in
     * {@code mask}, through nodes whose {@code component} equals u's; as edge ids in order, or null if none.
     */
    List<Integer> cycleThrough(int first, int from, int[] component, int mask) {
        int u = from;
        int v = g.to[first];
        List<Integer> back = path(v, u, component, component[u], mask);
        if (back == null) {
            return null;
        }
        List<Integer> cycle = new ArrayList<>(back.size() + 1);
        cycle.add(first);
        cycle.addAll(back);
        return cycle;
    }

    private List<Integer> path(int src, int dst, int[] component, int comp, int mask) {
        if (src == dst) {
            return List.of();
        }
        generation++;
        int head = 0;
        int tail = 0;
        queue[tail++] = src;
        stamp[src] = generation;
        while (head < tail) {
            int x = queue[head++];
            for (int e = g.start[x]; e < g.start[x + 1]; e++) {
                if ((mask & (1 << g.kind[e])) == 0) {
                    continue;
                }
                int y = g.to[e];
                if (stamp[y] == generation || component[y] != comp) {
                    continue;
                }
                stamp[y] = generation;
                parentEdge[y] = e;
                if (y == dst) {
                    return unwind(src, dst);
                }
                queue[tail++] = y;
            }
        }
        return null;
    }

    private List<Integer> unwind(int src, int dst) {
        List<Integer> edges = new ArrayList<>();
        int y = dst;
        while (y != src) {
            int e = parentEdge[y];
            edges.add(e);
            y = sourceOf(e);
        }
        Collections.reverse(edges);
        return edges;
    }

    /** The node an edge leaves (CSR stores only targets): binary search over the start offsets. */
    int sourceOf(int e) {
        int lo = 0;
        int hi = g.nodes - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (g.start[mid] <= e) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        // Nodes without edges share a start offset with the next one: step forward to the one that owns e.
        while (g.start[lo + 1] <= e) {
            lo++;
        }
        return lo;
    }
}
