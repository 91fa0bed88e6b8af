package io.faultline.checker.txn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Strongly connected components (Tarjan's algorithm, iterative so deep graphs cannot overflow the stack),
 * following only edges whose kind is in a mask and only nodes a filter admits.
 */
final class Scc {
    private Scc() {
    }

    /** Components with more than one node, each as an ascending array of node ids. */
    static List<int[]> components(TxnGraph g, int edgeMask, boolean[] admit) {
        int n = g.nodes;
        int[] index = new int[n];
        int[] low = new int[n];
        Arrays.fill(index, -1);
        boolean[] onStack = new boolean[n];
        int[] stack = new int[n];
        int sp = 0;
        int[] callNode = new int[n];
        int[] callEdge = new int[n];
        int counter = 0;
        List<int[]> out = new ArrayList<>();
        for (int root = 0; root < n; root++) {
            if (index[root] >= 0 || (admit != null && !admit[root])) {
                continue;
            }
            int depth = 0;
            callNode[0] = root;
            callEdge[0] = g.start[root];
            index[root] = low[root] = counter++;
            stack[sp++] = root;
            onStack[root] = true;
            while (depth >= 0) {
                int u = callNode[depth];
                int e = callEdge[depth];
                if (e < g.start[u + 1]) {
                    callEdge[depth] = e + 1;
                    if ((edgeMask & (1 << g.kind[e])) == 0) {
                        continue;
                    }
                    int v = g.to[e];
                    if (admit != null && !admit[v]) {
                        continue;
                    }
                    if (index[v] < 0) {
                        index[v] = low[v] = counter++;
                        stack[sp++] = v;
                        onStack[v] = true;
                        depth++;
                        callNode[depth] = v;
                        callEdge[depth] = g.start[v];
                    } else if (onStack[v]) {
                        low[u] = Math.min(low[u], index[v]);
                    }
                    continue;
                }
                // u is finished
                if (low[u] == index[u]) {
                    int size = 0;
                    for (int i = sp - 1; i >= 0; i--) {
                        size++;
                        if (stack[i] == u) {
                            break;
                        }
                    }
                    int[] comp = Arrays.copyOfRange(stack, sp - size, sp);
                    for (int x : comp) {
                        onStack[x] = false;
                    }
                    sp -= size;
                    if (size > 1) {
                        Arrays.sort(comp);
                        out.add(comp);
                    }
                }
                depth--;
                if (depth >= 0) {
                    int parent = callNode[depth];
                    low[parent] = Math.min(low[parent], low[u]);
                }
            }
        }
        return out;
    }
}
