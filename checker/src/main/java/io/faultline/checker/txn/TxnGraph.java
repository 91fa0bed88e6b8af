package io.faultline.checker.txn;

import java.util.Arrays;

/**
 * A dependency graph over transactions, in compressed form (no per-edge objects) so a million-op history fits in
 * the default heap. Nodes are 0..n-1; each edge has a kind and, for data edges, the key and value that justify
 * it (value -1 for order edges). Duplicate (from, to, kind) edges are kept: harmless for searches.
 */
final class TxnGraph {
    final int nodes;
    // CSR: out-edges of node u are [start[u], start[u+1]).
    final int[] start;
    final int[] to;
    final byte[] kind;
    final int[] key;
    final long[] value;

    private TxnGraph(int nodes, int[] start, int[] to, byte[] kind, int[] key, long[] value) {
        this.nodes = nodes;
        this.start = start;
        this.to = to;
        this.kind = kind;
        this.key = key;
        this.value = value;
    }

    int edgeCount() {
        return to.length;
    }

    EdgeKind kindOf(int e) {
        return EdgeKind.values()[kind[e]];
    }

    /** Collects edges in any order, then freezes them into CSR form. */
    static final class Builder {
        private final int nodes;
        private int n;
        private int[] from = new int[1024];
        private int[] to = new int[1024];
        private byte[] kind = new byte[1024];
        private int[] key = new int[1024];
        private long[] value = new long[1024];

        Builder(int nodes) {
            this.nodes = nodes;
        }

        void add(int a, int b, EdgeKind k, int keyOrMinus1, long valueOrMinus1) {
            if (a == b) {
                return; // a transaction never depends on itself
            }
            if (a < 0 || b < 0 || a >= nodes || b >= nodes) {
                throw new IllegalArgumentException("edge " + a + "→" + b + " outside 0.." + (nodes - 1));
            }
            if (n == from.length) {
                int cap = n * 2;
                from = Arrays.copyOf(from, cap);
                to = Arrays.copyOf(to, cap);
                kind = Arrays.copyOf(kind, cap);
                key = Arrays.copyOf(key, cap);
                value = Arrays.copyOf(value, cap);
            }
            from[n] = a;
            to[n] = b;
            kind[n] = (byte) k.ordinal();
            key[n] = keyOrMinus1;
            value[n] = valueOrMinus1;
            n++;
        }

        TxnGraph build() {
            int[] start = new int[nodes + 1];
            for (int i = 0; i < n; i++) {
                start[from[i] + 1]++;
            }
            for (int u = 0; u < nodes; u++) {
                start[u + 1] += start[u];
            }
            int[] fill = Arrays.copyOf(start, nodes);
            int[] t = new int[n];
            byte[] k = new byte[n];
            int[] ky = new int[n];
            long[] v = new long[n];
            for (int i = 0; i < n; i++) {
                int at = fill[from[i]]++;
                t[at] = to[i];
                k[at] = kind[i];
                ky[at] = key[i];
                v[at] = value[i];
            }
            from = null; // let the builder's arrays go before the caller builds more
            return new TxnGraph(nodes, start, t, k, ky, v);
        }
    }
}
