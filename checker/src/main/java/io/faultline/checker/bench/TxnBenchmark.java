package io.faultline.checker.bench;

import io.faultline.checker.CheckResult;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.checker.txn.TxnChecker;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Elle-style analysis of a synthetic transactional history from a correct (serializable, real-time ordered)
 * queue: each transaction takes effect atomically at its completion; sends get the next offsets; polls read a
 * process's keys from where it left off to the end of the log. Prints ops/s and the peak heap.
 * <pre>
 * java -Xmx2g -cp checker/target/classes:$(cat checker/target/cp.txt) io.faultline.checker.bench.TxnBenchmark 1000000 3
 * </pre>
 */
public final class TxnBenchmark {
    private TxnBenchmark() {
    }

    public static List<Op> generate(long seed, int events, int processes, int keys) {
        Random rnd = new Random(seed);
        List<Op> ops = new ArrayList<>(events + processes * 2);
        List<List<Long>> logs = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            logs.add(new ArrayList<>());
        }
        long[] nextValue = {1};
        Map<Integer, int[]> positions = new HashMap<>(); // process → per key next offset to read
        boolean[] open = new boolean[processes];
        long time = 0;
        while (ops.size() < events) {
            int p = rnd.nextInt(processes);
            time += 1000 + rnd.nextInt(1000);
            if (!open[p]) {
                ops.add(new Op(ops.size(), OpType.INVOKE, p, time, Op.TXN, OpValue.Txn.of(MicroOp.Poll.invoke()), null));
                open[p] = true;
                continue;
            }
            open[p] = false;
            boolean abort = rnd.nextInt(20) == 0;
            int[] pos = positions.computeIfAbsent(p, x -> new int[keys]);
            List<MicroOp> mops = new ArrayList<>();
            int n = 1 + rnd.nextInt(4);
            for (int i = 0; i < n; i++) {
                int k = rnd.nextInt(keys);
                List<Long> log = logs.get(k);
                if (rnd.nextBoolean()) {
                    long v = nextValue[0]++;
                    mops.add(new MicroOp.Send(k, v, abort ? null : (long) log.size()));
                    if (!abort) {
                        log.add(v);
                    }
                } else if (!abort) {
                    List<MicroOp.Record> recs = new ArrayList<>();
                    for (int o = pos[k]; o < log.size(); o++) {
                        recs.add(new MicroOp.Record(o, log.get(o)));
                    }
                    pos[k] = log.size();
                    mops.add(MicroOp.poll(Map.of(k, recs)));
                }
            }
            ops.add(new Op(ops.size(), abort ? OpType.FAIL : OpType.OK, p, time, Op.TXN, new OpValue.Txn(mops),
                    abort ? "aborted" : null));
        }
        return ops;
    }

    public static void main(String[] args) {
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        List<Op> ops = generate(42, events, 10, 100);
        System.gc();
        long before = heapUsed();
        for (int run = 1; run <= runs; run++) {
            resetPeaks();
            long t0 = System.nanoTime();
            long c0 = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            CheckResult r = TxnChecker.strict().check(ops);
            double s = (System.nanoTime() - t0) / 1e9;
            double cpu = (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - c0) / 1e9;
            // Peak per heap pool, summed: an upper bound (the pools need not peak at the same moment).
            System.out.printf(java.util.Locale.ROOT,
                    "run %d: %d ops in %.2f s wall (%.0f ops/s), %.2f s thread CPU (%.0f ops/s); peak heap ≤ %d MB "
                            + "(history alone %d MB); verdict %s %s%n",
                    run, ops.size(), s, ops.size() / s, cpu, ops.size() / cpu, peakHeap() >> 20, before >> 20,
                    r.verdict(),
                    r.error() == null ? r.stats() : r.error().lines().findFirst().orElse(""));
        }
    }

    private static long heapUsed() {
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    private static void resetPeaks() {
        for (MemoryPoolMXBean b : ManagementFactory.getMemoryPoolMXBeans()) {
            b.resetPeakUsage();
        }
    }

    private static long peakHeap() {
        long sum = 0;
        for (MemoryPoolMXBean b : ManagementFactory.getMemoryPoolMXBeans()) {
            if (b.getType() == MemoryType.HEAP) {
                sum += b.getPeakUsage().getUsed();
            }
        }
        return sum;
    }
}
