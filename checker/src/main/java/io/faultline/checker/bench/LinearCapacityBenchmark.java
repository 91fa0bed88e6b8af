package io.faultline.checker.bench;

import io.faultline.checker.CheckResult;
import io.faultline.checker.linear.LinOp;
import io.faultline.checker.linear.LinearizabilityChecker;
import io.faultline.checker.linear.RegisterModel;
import io.faultline.checker.linear.RegisterOp;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Capacity of the linearizability checker: a correct multi-key register history (P processes × N ops, K keys,
 * reads and writes, {@link MultiKeyRegisterHistory}) checked with the default bounds, except the time limit.
 * Prints the verdict, generation and check wall time, configurations, and the process's peak RSS (VmHWM) and the
 * load average, so a run can be reported as measured.
 * <pre>
 * java -Xmx6g -cp checker/target/classes:... io.faultline.checker.bench.LinearCapacityBenchmark 5 2000000 10 600
 *   args: processes, ops per process, keys, time limit in seconds (default 600), one indeterminate write in N (0)
 * </pre>
 */
public final class LinearCapacityBenchmark {
    private LinearCapacityBenchmark() {
    }

    public static void main(String[] args) {
        int processes = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int perProcess = args.length > 1 ? Integer.parseInt(args[1]) : 2_000_000;
        int keys = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        int limit = args.length > 3 ? Integer.parseInt(args[3]) : 600;
        int infoEvery = args.length > 4 ? Integer.parseInt(args[4]) : 0;
        double load0 = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        long t0 = System.nanoTime();
        Map<String, List<LinOp<RegisterOp, Object>>> byKey = new LinkedHashMap<>();
        MultiKeyRegisterHistory.generate(42, processes, perProcess, keys, infoEvery, false,
                (key, op) -> byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(op));
        long t1 = System.nanoTime();
        var defaults = LinearizabilityChecker.Options.defaults();
        var options = new LinearizabilityChecker.Options(Duration.ofSeconds(limit), defaults.maxConfigs(),
                defaults.maxExamples(), System::nanoTime, defaults.maxCacheBytes());
        CheckResult r = new LinearizabilityChecker<>(RegisterModel.register(), options).check(byKey);
        long t2 = System.nanoTime();
        double load1 = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        System.out.printf(Locale.ROOT, "%d processes × %d ops, %d keys = %s ops: %s; generated in %.1f s, checked in "
                        + "%.1f s; cache bound %d MiB a key, heap max %d MiB, peak RSS %s; load %.1f → %.1f%s%n",
                processes, perProcess, keys, r.stats().get("ops"), r.verdict(), (t1 - t0) / 1e9, (t2 - t1) / 1e9,
                options.maxCacheBytes() >> 20, Runtime.getRuntime().maxMemory() >> 20, peakRss(), load0, load1,
                r.error() == null ? "" : " (" + r.error() + ")");
    }

    /** VmHWM from /proc/self/status (Linux), or "n/a". */
    static String peakRss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    return (kb >> 10) + " MiB";
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: no figure
        }
        return "n/a";
    }
}
