package io.faultline.checker.bench;

import io.faultline.checker.CheckResult;
import io.faultline.checker.linear.LinOp;
import io.faultline.checker.linear.LinearizabilityChecker;
import io.faultline.checker.linear.RegisterModel;
import io.faultline.checker.linear.RegisterOp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Linearizability of one register under P processes: a correct register (each op takes effect at a random instant
 * inside its interval), optionally with indeterminate writes (each one stays concurrent with everything after
 * it, which is what makes the search hard). Prints the time per size, doubling the size until the search gives up.
 * <pre>
 * java -Xmx2g -cp checker/target/classes:... io.faultline.checker.bench.LinearBenchmark 5 10000 0 60
 *   args: processes, ops per process, one indeterminate write in N ops (0: none), time limit in seconds
 * </pre>
 */
public final class LinearBenchmark {
    private LinearBenchmark() {
    }

    public static List<LinOp<RegisterOp, Object>> generate(long seed, int processes, int perProcess, int infoEvery) {
        Random rnd = new Random(seed);
        record Planned(int process, long invoke, long point, long complete, boolean write, long value, boolean info) {
        }
        List<Planned> planned = new ArrayList<>();
        long nextValue = 1;
        for (int p = 0; p < processes; p++) {
            long t = rnd.nextInt(100);
            boolean crashed = false;
            for (int i = 0; i < perProcess && !crashed; i++) {
                long dur = 10 + rnd.nextInt(200);
                boolean write = rnd.nextBoolean();
                boolean info = write && infoEvery > 0 && rnd.nextInt(infoEvery) == 0;
                planned.add(new Planned(p, t, t + rnd.nextInt((int) dur), t + dur, write, nextValue++, info));
                t += dur + 1 + rnd.nextInt(50);
            }
        }
        planned.sort(Comparator.comparingLong(Planned::point));
        long value = RegisterModel.EMPTY;
        List<LinOp<RegisterOp, Object>> ops = new ArrayList<>(planned.size());
        long id = 0;
        for (Planned p : planned) {
            if (p.write()) {
                if (!p.info() || rnd.nextBoolean()) { // an indeterminate write may or may not have happened
                    value = p.value();
                }
                ops.add(new LinOp<>(id++, p.process(), p.invoke(), p.info() ? LinOp.NEVER : p.complete(),
                        new RegisterOp.Write(p.value()), p.info() ? null : "ok"));
            } else {
                ops.add(new LinOp<>(id++, p.process(), p.invoke(), p.complete(), RegisterOp.READ, value));
            }
        }
        ops.sort(Comparator.comparingLong(LinOp::invoke));
        return ops;
    }

    public static void main(String[] args) {
        int processes = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int perProcess = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        int infoEvery = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        int limit = args.length > 3 ? Integer.parseInt(args[3]) : 60;
        var defaults = LinearizabilityChecker.Options.defaults();
        var options = new LinearizabilityChecker.Options(Duration.ofSeconds(limit), defaults.maxConfigs(),
                defaults.maxExamples(), System::nanoTime, defaults.maxCacheBytes());
        for (int size = perProcess; ; size *= 2) {
            var ops = generate(42, processes, size, infoEvery);
            long t0 = System.nanoTime();
            CheckResult r = new LinearizabilityChecker<>(RegisterModel.register(), options).check(Map.of("r", ops));
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf(java.util.Locale.ROOT, "%d processes × %d ops = %d ops: %s in %.2f s%s%n", processes,
                    size, ops.size(), r.verdict(), s, r.error() == null ? "" : " (" + r.error() + ")");
            if (r.verdict() != io.faultline.checker.Verdict.VALID || size >= 1 << 22) {
                break;
            }
        }
    }
}
