package io.faultline.checker.bench;

import io.faultline.checker.CheckResult;
import io.faultline.checker.queue.QueueAnomaly;
import io.faultline.checker.queue.QueueChecker;
import io.faultline.checker.queue.TotalQueueChecker;

import java.util.Arrays;
import java.util.Map;

/**
 * Throughput of the full queue analysis on a synthetic history with planted anomalies. Not a test: run it by hand.
 * <pre>
 * java -Xmx4g -cp checker/target/classes:$(cat checker/target/cp.txt) io.faultline.checker.bench.QueueBenchmark \
 *      [events=1000000] [rounds=5] [seed=42]
 * </pre>
 * Exits 1 if a planted anomaly is not found (or anything unexpected is), 0 otherwise.
 */
public final class QueueBenchmark {
    private QueueBenchmark() {
    }

    public static void main(String[] args) {
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        long seed = args.length > 2 ? Long.parseLong(args[2]) : 42;

        long g0 = System.nanoTime();
        SyntheticHistory.Result h = SyntheticHistory.generate(seed, events, 10, true);
        System.out.printf("generated %,d events in %.1f s; planted %s%n", h.ops().size(),
                (System.nanoTime() - g0) / 1e9, h.planted());

        QueueChecker checker = QueueChecker.forRun(false);
        TotalQueueChecker total = new TotalQueueChecker();
        double[] rates = new double[rounds];
        CheckResult last = null;
        CheckResult lastTotal = null;
        for (int i = 0; i < rounds; i++) {
            long t0 = System.nanoTime();
            last = checker.check(h.ops());
            lastTotal = total.check(h.ops());
            double secs = (System.nanoTime() - t0) / 1e9;
            rates[i] = h.ops().size() / secs;
            System.out.printf("round %d: %.3f s, %,.0f events/s (queue + total-queue)%n", i + 1, secs, rates[i]);
        }
        double[] sorted = rates.clone();
        Arrays.sort(sorted);
        System.out.printf("median %,.0f events/s, best %,.0f events/s over %d rounds; heap max %d MB%n",
                sorted[rounds / 2], sorted[rounds - 1], rounds, Runtime.getRuntime().maxMemory() >> 20);
        System.out.println("verdict " + last.verdict() + ", counts " + last.counts());
        System.out.println("total-queue " + lastTotal.verdict() + ", counts " + lastTotal.counts());
        boolean allFound = true;
        for (Map.Entry<QueueAnomaly, Integer> e : h.planted().entrySet()) {
            long found = last.count(e.getKey().wireName());
            boolean ok = found >= e.getValue();
            allFound &= ok;
            System.out.printf("  planted %-22s %d  found %d  %s%n", e.getKey().wireName(), e.getValue(), found,
                    ok ? "ok" : "MISSED");
            last.examples(e.getKey().wireName()).stream().limit(1)
                    .forEach(x -> System.out.println("      e.g. " + x.explanation()));
        }
        if (last.error() != null) {
            System.out.println("error: " + last.error());
        }
        System.exit(allFound && last.error() == null ? 0 : 1);
    }
}
