package io.faultline.checker.txn;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.checker.util.LongLongMap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One run of the transactional analysis. Transactions are the completed send/poll/txn ops that committed: every
 * ok op, and an info op once some poll returned one of its values. Aborted (failed) ops are not transactions but
 * their values are remembered, to catch aborted reads.
 */
final class TxnAnalysis {
    private static final long NONE = Long.MIN_VALUE;

    private final List<Op> ops;
    private final TxnChecker.Options options;
    private final Map<Integer, KeyOrder> keys = new HashMap<>();
    private final Map<String, Long> counts = new LinkedHashMap<>();
    private final Map<String, List<Example>> examples = new LinkedHashMap<>();
    private final List<Map<String, Object>> drawnCycles = new ArrayList<>();
    private int[] nodeOp;     // node → op position
    private int[] invokeOf;   // node → position of its invocation (or its completion if none was recorded)
    private TxnGraph graph;
    private long searchesCut;

    /** Everything known about one key: its version order (offset → value) and who wrote what. */
    private static final class KeyOrder {
        final int key;
        final LongLongMap valueAt = new LongLongMap(64);
        final LongLongMap offsetOf = new LongLongMap(64);
        final LongLongMap writer = new LongLongMap(64);       // value → node
        final LongLongMap abortedWriter = new LongLongMap(4); // value → op position of a failed send
        long[] offsets;

        KeyOrder(int key) {
            this.key = key;
        }

        void observe(long offset, long value) {
            if (!valueAt.containsKey(offset)) {
                valueAt.put(offset, value); // divergence is the queue checker's to report; first sighting wins
            }
            if (!offsetOf.containsKey(value)) {
                offsetOf.put(value, offset);
            }
        }

        void seal() {
            offsets = valueAt.keys();
            Arrays.sort(offsets);
        }

        /** Dense index of the version at this offset, or -1. */
        int indexOf(long offset) {
            int i = Arrays.binarySearch(offsets, offset);
            return i >= 0 ? i : -1;
        }

        long valueAtIndex(int i) {
            return valueAt.get(offsets[i], NONE);
        }
    }

    TxnAnalysis(List<Op> ops, TxnChecker.Options options) {
        this.ops = ops;
        this.options = options;
        for (String c : TxnAnomaly.all()) {
            counts.put(c, 0L);
        }
    }

    private KeyOrder key(int k) {
        return keys.computeIfAbsent(k, KeyOrder::new);
    }

    CheckResult run(String checkerName) {
        findTransactions();
        if (nodeOp.length == 0) {
            return result(checkerName, "nothing to judge: no committed transaction");
        }
        buildGraph();
        abortedAndIntermediateReads();
        cycles();
        return result(checkerName, null);
    }

    // ---- transactions and version orders -------------------------------------------------------------------

    private static boolean delivers(OpType t) {
        return t == OpType.OK || t == OpType.INFO;
    }

    private void findTransactions() {
        int n = ops.size();
        int[] invokePos = new int[n];
        Map<Integer, Integer> lastInvoke = new HashMap<>();
        LongLongMap readPairs = new LongLongMap(1024); // hash of (key, value) read by a delivering poll
        for (int pos = 0; pos < n; pos++) {
            Op op = ops.get(pos);
            if (op.type() == OpType.INVOKE) {
                lastInvoke.put(op.process(), pos);
                continue;
            }
            Integer inv = lastInvoke.remove(op.process());
            invokePos[pos] = inv == null ? pos : inv;
            if (!(op.value() instanceof OpValue.Txn txn)) {
                continue;
            }
            for (MicroOp m : txn.mops()) {
                if (m instanceof MicroOp.Send s) {
                    if (op.type() == OpType.FAIL) {
                        key(s.key()).abortedWriter.put(s.value(), pos);
                    } else if (s.offset() != null && delivers(op.type())) {
                        key(s.key()).observe(s.offset(), s.value()); // acknowledged with its offset
                    }
                } else if (m instanceof MicroOp.Poll p && p.reads() != null) {
                    for (Map.Entry<Integer, List<MicroOp.Record>> e : p.reads().entrySet()) {
                        KeyOrder ko = key(e.getKey());
                        for (MicroOp.Record r : e.getValue()) {
                            ko.observe(r.offset(), r.value()); // consumers must only see committed data
                            if (delivers(op.type())) {
                                readPairs.put(pair(e.getKey(), r.value()), 1);
                            }
                        }
                    }
                }
            }
        }
        List<Integer> nodes = new ArrayList<>();
        for (int pos = 0; pos < n; pos++) {
            Op op = ops.get(pos);
            if (!(op.value() instanceof OpValue.Txn txn) || op.type() == OpType.INVOKE || op.type() == OpType.FAIL) {
                continue;
            }
            boolean committed = op.type() == OpType.OK;
            if (!committed) { // info: committed only if someone read one of its values
                for (MicroOp m : txn.mops()) {
                    if (m instanceof MicroOp.Send s && readPairs.containsKey(pair(s.key(), s.value()))) {
                        committed = true;
                        break;
                    }
                }
            }
            if (committed) {
                nodes.add(pos);
            }
        }
        nodeOp = nodes.stream().mapToInt(Integer::intValue).toArray();
        invokeOf = new int[nodeOp.length];
        for (int node = 0; node < nodeOp.length; node++) {
            invokeOf[node] = invokePos[nodeOp[node]];
            for (MicroOp m : ops.get(nodeOp[node]).mops()) {
                if (m instanceof MicroOp.Send s) {
                    key(s.key()).writer.put(s.value(), node);
                }
            }
        }
        for (KeyOrder ko : keys.values()) {
            ko.seal();
        }
    }

    private static long pair(int key, long value) {
        return value * 1_000_003L + key; // a hash key only: collisions merely make an info op count as read
    }

    // ---- the graph ----------------------------------------------------------------------------------------

    /** Per node, per key: the records it read, joined over its polls. */
    private static Map<Integer, List<MicroOp.Record>> reads(Op op) {
        Map<Integer, List<MicroOp.Record>> out = null;
        for (MicroOp m : op.mops()) {
            if (m instanceof MicroOp.Poll p && p.reads() != null) {
                for (Map.Entry<Integer, List<MicroOp.Record>> e : p.reads().entrySet()) {
                    if (!e.getValue().isEmpty()) {
                        if (out == null) {
                            out = new LinkedHashMap<>(4);
                        }
                        out.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).addAll(e.getValue());
                    }
                }
            }
        }
        return out == null ? Map.of() : out;
    }

    private void buildGraph() {
        int n = nodeOp.length;
        TxnGraph.Builder b = new TxnGraph.Builder(n);
        if (options.wwDeps()) {
            for (KeyOrder ko : keys.values()) {
                int prev = -1;
                long prevValue = 0;
                for (int i = 0; i < ko.offsets.length; i++) {
                    long v = ko.valueAtIndex(i);
                    int w = (int) ko.writer.get(v, -1);
                    if (w >= 0 && prev >= 0) {
                        b.add(prev, w, EdgeKind.WW, ko.key, prevValue);
                    }
                    prev = w; // a version of unknown writer breaks the chain: no edge is claimed across it
                    prevValue = v;
                }
            }
        }
        for (int node = 0; node < n; node++) {
            for (Map.Entry<Integer, List<MicroOp.Record>> e : reads(ops.get(nodeOp[node])).entrySet()) {
                KeyOrder ko = key(e.getKey());
                for (MicroOp.Record r : e.getValue()) {
                    int w = (int) ko.writer.get(r.value(), -1);
                    if (w >= 0) {
                        b.add(w, node, EdgeKind.WR, ko.key, r.value());
                    }
                }
                if (options.rwDeps()) {
                    MicroOp.Record last = e.getValue().get(e.getValue().size() - 1);
                    int i = ko.indexOf(last.offset());
                    if (i >= 0 && i + 1 < ko.offsets.length) {
                        int w = (int) ko.writer.get(ko.valueAtIndex(i + 1), -1);
                        if (w >= 0) {
                            b.add(node, w, EdgeKind.RW, ko.key, last.value());
                        }
                    }
                }
            }
        }
        orderEdges(b);
        graph = b.build();
    }

    /**
     * Process order (successive transactions of one process) and realtime order (T1 completed before T2 was
     * invoked), the latter as Elle builds it: each new transaction links from the frontier of transactions
     * completed so far that no later completed one already follows, which keeps the edge count near n × concurrency.
     */
    private void orderEdges(TxnGraph.Builder b) {
        int n = nodeOp.length;
        int[] nodeAtInvoke = new int[ops.size()];
        int[] nodeAtComplete = new int[ops.size()];
        Arrays.fill(nodeAtInvoke, -1);
        Arrays.fill(nodeAtComplete, -1);
        for (int node = 0; node < n; node++) {
            nodeAtComplete[nodeOp[node]] = node;
            if (invokeOf[node] != nodeOp[node]) {
                nodeAtInvoke[invokeOf[node]] = node;
            }
        }
        Map<Integer, Integer> lastOfProcess = new HashMap<>();
        Set<Integer> frontier = new LinkedHashSet<>();
        int[][] preds = new int[n][];
        for (int pos = 0; pos < ops.size(); pos++) {
            int node = nodeAtInvoke[pos];
            if (node < 0 && nodeAtComplete[pos] >= 0 && invokeOf[nodeAtComplete[pos]] == pos) {
                node = nodeAtComplete[pos]; // no invocation recorded: it begins where it ends
            }
            if (node >= 0 && preds[node] == null) {
                preds[node] = frontier.stream().mapToInt(Integer::intValue).toArray();
                for (int p : preds[node]) {
                    b.add(p, node, EdgeKind.REALTIME, -1, -1);
                }
                Integer prev = lastOfProcess.put(ops.get(nodeOp[node]).process(), node);
                if (prev != null) {
                    b.add(prev, node, EdgeKind.PROCESS, -1, -1);
                }
            }
            int done = nodeAtComplete[pos];
            if (done >= 0) {
                for (int p : preds[done]) {
                    frontier.remove(p);
                }
                frontier.add(done);
            }
        }
    }

    // ---- G1a, G1b -----------------------------------------------------------------------------------------

    private void abortedAndIntermediateReads() {
        for (int node = 0; node < nodeOp.length; node++) {
            Op op = ops.get(nodeOp[node]);
            for (Map.Entry<Integer, List<MicroOp.Record>> e : reads(op).entrySet()) {
                KeyOrder ko = key(e.getKey());
                for (MicroOp.Record r : e.getValue()) {
                    long aborted = ko.abortedWriter.get(r.value(), -1);
                    if (aborted >= 0 && !ko.writer.containsKey(r.value())) {
                        Op w = ops.get((int) aborted);
                        add(TxnAnomaly.G1A, ko.key, "op " + op.index() + " read value " + r.value() + " (offset "
                                + r.offset() + ") of key " + ko.key + ", written by op " + w.index()
                                + ", which aborted", w.index(), op.index());
                    }
                }
                MicroOp.Record last = e.getValue().get(e.getValue().size() - 1);
                int w = (int) ko.writer.get(last.value(), -1);
                if (w >= 0 && w != node) {
                    Long later = laterWrite(ops.get(nodeOp[w]), ko, last.offset());
                    if (later != null) {
                        Op writer = ops.get(nodeOp[w]);
                        add(TxnAnomaly.G1B, ko.key, "op " + op.index() + " read key " + ko.key + " up to value "
                                + last.value() + " (offset " + last.offset() + "), an intermediate write of op "
                                + writer.index() + ", which later wrote " + later + " to the same key",
                                writer.index(), op.index());
                    }
                }
            }
        }
    }

    /** A value the writer sent to the key at a higher offset than {@code offset}, or null. */
    private static Long laterWrite(Op writer, KeyOrder ko, long offset) {
        for (MicroOp m : writer.mops()) {
            if (m instanceof MicroOp.Send s && s.key() == ko.key) {
                long o = ko.offsetOf.get(s.value(), NONE);
                if (o != NONE && o > offset) {
                    return s.value();
                }
            }
        }
        return null;
    }

    // ---- cycles -------------------------------------------------------------------------------------------

    private void cycles() {
        int all = EdgeKind.mask(EdgeKind.values());
        List<int[]> comps = Scc.components(graph, all, null);
        if (comps.isEmpty()) {
            return;
        }
        boolean[] admit = new boolean[graph.nodes];
        int[] full = new int[graph.nodes]; // full component id + 1 (0: in none)
        for (int c = 0; c < comps.size(); c++) {
            for (int x : comps.get(c)) {
                admit[x] = true;
                full[x] = c + 1;
            }
        }
        CycleSearch search = new CycleSearch(graph);
        Set<String> found = new java.util.HashSet<>(); // "class@full component"
        int ww = EdgeKind.WW.bit();
        int wr = EdgeKind.WR.bit();
        int rw = EdgeKind.RW.bit();
        int po = EdgeKind.PROCESS.bit();
        int rt = EdgeKind.REALTIME.bit();
        int[][] orders = {{0, -1}, {po, EdgeKind.PROCESS.ordinal()}, {po | rt, EdgeKind.REALTIME.ordinal()}};
        for (int[] order : orders) {
            // {mask to follow, kind of the first edge}: plain cycles, then ones that need a read, then one
            // anti-dependency (G-single: the way back may not use another), then any.
            int[][] specs = order[1] < 0
                    ? new int[][] {{ww, EdgeKind.WW.ordinal(), 0}, {ww | wr, EdgeKind.WR.ordinal(), 0},
                            {ww | wr, EdgeKind.RW.ordinal(), 0}, {ww | wr | rw, EdgeKind.RW.ordinal(), 0}}
                    : new int[][] {{ww | order[0], order[1], 0}, {ww | wr | order[0], order[1], 0},
                            {ww | wr | order[0], EdgeKind.RW.ordinal(), 1}, {ww | wr | rw | order[0], order[1], 0}};
            for (int[] spec : specs) {
                int follow = spec[0];
                int component = follow | (1 << spec[1]);
                List<int[]> sub = Scc.components(graph, component, admit);
                int[] subId = new int[graph.nodes];
                Arrays.fill(subId, -1);
                for (int c = 0; c < sub.size(); c++) {
                    for (int x : sub.get(c)) {
                        subId[x] = c;
                    }
                }
                for (int[] comp : sub) {
                    searchComponent(search, comp, subId, follow, spec[1], spec[2] == 1 ? order[1] : -1, full, found);
                }
            }
        }
    }

    private void searchComponent(CycleSearch search, int[] comp, int[] subId, int follow, int firstKind,
                                 int mustAlsoUse, int[] full, Set<String> found) {
        int tries = 0;
        for (int u : comp) {
            for (int e = graph.start[u]; e < graph.start[u + 1]; e++) {
                if (graph.kind[e] != firstKind || subId[graph.to[e]] != subId[u]) {
                    continue;
                }
                if (tries++ >= options.maxTriesPerComponent()) {
                    searchesCut++;
                    return;
                }
                List<Integer> cycle = search.cycleThrough(e, u, subId, follow);
                if (cycle == null) {
                    continue;
                }
                int[] byKind = new int[EdgeKind.values().length];
                for (int c : cycle) {
                    byKind[graph.kind[c]]++;
                }
                if (mustAlsoUse >= 0 && byKind[mustAlsoUse] == 0) {
                    continue;
                }
                String cls = TxnAnomaly.classify(byKind[0], byKind[1], byKind[2], byKind[3], byKind[4]);
                String base = cls.replace("-realtime", "").replace("-process", "");
                // A weaker form of the same anomaly in the same tangle says it already (as Elle reports it).
                boolean weaker = !cls.equals(base) && (found.contains(base + "@" + full[u])
                        || (cls.endsWith("-realtime") && found.contains(base + "-process@" + full[u])));
                if (!weaker && found.add(cls + "@" + full[u])) {
                    record(cls, cycle, search);
                    return;
                }
            }
        }
    }

    private void record(String cls, List<Integer> cycle, CycleSearch search) {
        CycleText text = new CycleText(ops, nodeOp, graph, search, this::describeVersion);
        CycleText.Explained ex = text.explain(cycle);
        long[] opIdx = ex.opIndexes();
        add(cls, null, cls + ": " + ex.sentence(), opIdx);
        if (drawnCycles.size() < 4 * options.maxExamples()) {
            Map<String, Object> drawn = new LinkedHashMap<>();
            drawn.put("anomaly", cls);
            drawn.put("explanation", ex.sentence());
            drawn.put("steps", ex.steps());
            drawnCycles.add(drawn);
        }
    }

    /** "value 12 (offset 5)" or the next version after it, for explanations. */
    String describeVersion(int key, long value, boolean next) {
        KeyOrder ko = keys.get(key);
        if (ko == null) {
            return "value " + value;
        }
        long offset = ko.offsetOf.get(value, NONE);
        if (!next) {
            return offset == NONE ? "value " + value : "offset " + offset + " (value " + value + ")";
        }
        int i = offset == NONE ? -1 : ko.indexOf(offset);
        if (i < 0 || i + 1 >= ko.offsets.length) {
            return "the next version";
        }
        return "offset " + ko.offsets[i + 1] + " (value " + ko.valueAtIndex(i + 1) + ")";
    }

    // ---- results ------------------------------------------------------------------------------------------

    private void add(String category, Integer key, String explanation, long... opIndexes) {
        counts.merge(category, 1L, Long::sum);
        List<Example> list = examples.computeIfAbsent(category, c -> new ArrayList<>());
        if (list.size() < options.maxExamples()) {
            List<Long> idx = new ArrayList<>();
            for (long o : opIndexes) {
                idx.add(o);
            }
            list.add(new Example(category, key, explanation, idx));
        }
    }

    private CheckResult result(String checkerName, String unknownWhy) {
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("ops", (long) ops.size());
        stats.put("transactions", (long) (nodeOp == null ? 0 : nodeOp.length));
        stats.put("keys", (long) keys.size());
        stats.put("edges", (long) (graph == null ? 0 : graph.edgeCount()));
        if (searchesCut > 0) {
            stats.put("cycle-searches-cut-short", searchesCut);
        }
        if (!drawnCycles.isEmpty()) {
            stats.put("cycles", drawnCycles);
        }
        boolean invalid = counts.entrySet().stream()
                .anyMatch(e -> e.getValue() > 0 && !options.allowed().contains(e.getKey()));
        Verdict v = invalid ? Verdict.INVALID : unknownWhy != null ? Verdict.UNKNOWN : Verdict.VALID;
        return new CheckResult(checkerName, v, counts, options.allowed(), examples, stats,
                v == Verdict.UNKNOWN ? unknownWhy : null);
    }
}
