package io.faultline.harness;

import io.faultline.checker.Verdict;
import io.faultline.results.ReportLinks;
import io.faultline.results.RunStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;

/**
 * `faultline shrink RUN_DIR`: delta debugging over a failing run's faults. Each attempt re-runs the run's exact
 * configuration and seed with a subset of its fault cycles (the kept ones at their original times and values);
 * an attempt fails when it is invalid with at least one of the original run's forbidden anomalies, as found by the
 * same checker. The smallest failing schedule goes to a file for `replay --schedule`, and the original report
 * links to it.
 */
@Command(name = "shrink", mixinStandardHelpOptions = true,
        description = "Find a smallest subset of a failing run's faults that still fails the same check (ddmin).")
final class ShrinkCommand implements Callable<Integer> {
    @Parameters(paramLabel = "RUN_DIR", description = "A failing run folder, e.g. store/latest")
    Path runDir;

    @Option(names = "--budget", description = "Minutes to spend at most; the smallest failing schedule so far is kept (default: ${DEFAULT-VALUE})")
    int budgetMinutes = 60;

    @Option(names = "--out", paramLabel = "FILE", description = "Where to write the minimal schedule (default: RUN_DIR/shrunk-schedule.json)")
    Path out;

    @Option(names = "--store", description = "Run store folder for the attempts (default: ${DEFAULT-VALUE})")
    Path store = Path.of("store");

    /** A check and one of its categories, e.g. queue/lost-write. */
    static Set<String> forbidden(Map<String, Object> results) {
        Set<String> out = new TreeSet<>();
        if (!(results.get("checks") instanceof Map<?, ?> checks)) return out;
        checks.forEach((name, value) -> {
            if (!(value instanceof Map<?, ?> check) || !(check.get("counts") instanceof Map<?, ?> counts)) return;
            List<?> allowed = check.get("allowed") instanceof List<?> l ? l : List.of();
            counts.forEach((category, n) -> {
                if (n instanceof Number num && num.longValue() > 0 && !allowed.contains(category)) {
                    out.add(name + "/" + category);
                }
            });
        });
        return out;
    }

    @Override
    public Integer call() throws Exception {
        if (budgetMinutes < 1) throw new IllegalArgumentException("--budget must be at least 1 minute");
        Path dir = runDir.toRealPath();
        Map<String, Object> testJson = StoredRun.readTestJson(dir);
        Path resultsFile = dir.resolve("results.json");
        if (!Files.isRegularFile(resultsFile)) throw new IllegalArgumentException(dir + " has no results.json: the run did not finish");
        @SuppressWarnings("unchecked")
        Map<String, Object> results = StoredRun.JSON.readValue(resultsFile.toFile(), Map.class);
        if (!"INVALID".equals(results.get("verdict"))) {
            throw new IllegalArgumentException(dir + " is " + results.get("verdict") + ", not invalid: nothing to shrink");
        }
        Set<String> target = forbidden(results);
        Path scheduleFile = dir.resolve(ScheduleFile.RUN_FILE);
        if (!Files.isRegularFile(scheduleFile)) {
            throw new IllegalArgumentException(dir + " has no " + ScheduleFile.RUN_FILE + " (made before runs recorded"
                    + " their schedule): replay it and shrink the replay");
        }
        ScheduleFile schedule = ScheduleFile.read(scheduleFile);
        TestConfig config = StoredRun.configOf(testJson);
        List<Integer> cycles = schedule.faultCycles();
        Path output = out != null ? out : dir.resolve("shrunk-schedule.json");
        System.err.printf("faultline: shrinking %s: %d faults, failing %s; budget %d min%n", dir, cycles.size(),
                String.join(", ", target), budgetMinutes);
        if (cycles.isEmpty()) throw new IllegalArgumentException(dir + " ran no faults: nothing to shrink");

        long deadline = System.nanoTime() + Duration.ofMinutes(budgetMinutes).toNanos();
        var runStore = new RunStore(store);
        var inconclusive = new java.util.concurrent.atomic.AtomicInteger();
        var ddmin = new Ddmin<Integer>(subset -> attempt(testJson, config, runStore, subset, target, inconclusive),
                (n, subset, fails) -> System.err.printf("faultline: shrink attempt %d: %d of %d faults (cycles %s) -> %s%n",
                        n, subset.size(), cycles.size(), subset, fails ? "still fails" : "passes"),
                () -> System.nanoTime() > deadline);
        var ddmin0 = ddmin.minimize(cycles);
        // An attempt that could not judge (unknown: e.g. the cluster never came up) counted as passing: the subset
        // kept may then not be minimal, which the output must say.
        var result = new Ddmin.Result<>(ddmin0.minimal(), ddmin0.attempts(), ddmin0.complete() && inconclusive.get() == 0);
        if (inconclusive.get() > 0) {
            System.err.printf("faultline: %d shrink attempt(s) stayed unknown after %d tries each and counted as passing%n",
                    inconclusive.get(), ATTEMPT_TRIES);
        }
        ScheduleFile minimal = schedule.keeping(new TreeSet<>(result.minimal()),
                "shrunk from " + dir + ": " + cycles.size() + " -> " + result.minimal().size() + " faults, failing "
                        + String.join(", ", target) + " (" + result.attempts() + " attempts"
                        + (result.complete() ? "" : ", budget spent before the end") + ")");
        minimal.write(output);
        ReportLinks.addShrinkResult(dir, output, cycles.size(), result.minimal().size(), result.complete());
        System.err.printf("faultline: minimal schedule: %d of %d faults %s in %d attempts%s; %s%n  replay: bin/faultline replay --schedule %s%n",
                result.minimal().size(), cycles.size(), minimal.faults().stream().filter(f -> f.role().equals("fault"))
                        .map(f -> f.f() + " " + f.value()).toList(), result.attempts(),
                result.complete() ? "" : " (budget spent: not necessarily minimal)", output, output);
        return FaultlineCli.EXIT_INVALID;
    }

    /** Runs of one subset while they come back unknown (a harness error, a cluster that did not start). */
    static final int ATTEMPT_TRIES = 3;

    private static boolean attempt(Map<String, Object> testJson, TestConfig config, RunStore store, List<Integer> cycles, Set<String> target,
            java.util.concurrent.atomic.AtomicInteger inconclusive) throws Exception {
        var result = ReplayCommand.runner(testJson, config, store, new TreeSet<>(cycles)).run();
        for (int tries = 1; result.verdict() == Verdict.UNKNOWN && tries < ATTEMPT_TRIES; tries++) {
            System.err.printf("faultline: shrink attempt came back unknown (%s): running it again%n",
                    String.join("; ", result.caveats()));
            result = ReplayCommand.runner(testJson, config, store, new TreeSet<>(cycles)).run();
        }
        if (result.verdict() == Verdict.UNKNOWN) inconclusive.incrementAndGet();
        if (result.verdict() != Verdict.INVALID) return false;
        @SuppressWarnings("unchecked")
        Map<String, Object> results = StoredRun.JSON.readValue(result.runDir().resolve("results.json").toFile(), Map.class);
        Set<String> found = new TreeSet<>(forbidden(results));
        found.retainAll(target);
        return !found.isEmpty();
    }
}
