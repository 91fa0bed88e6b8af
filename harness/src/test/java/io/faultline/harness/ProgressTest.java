package io.faultline.harness;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The progress line's time left, on a manual clock. */
class ProgressTest {
    private static final long S = 1_000_000_000L;

    @Test
    void timeLeftCountsThePhasesStillToComeNotTheTestLengthMinusElapsed() {
        AtomicLong now = new AtomicLong(0);
        var plan = List.of(new Progress.PhasePlan("build-images", 10), new Progress.PhasePlan("workload", 60),
                new Progress.PhasePlan("check", 5));
        try (var p = new Progress(new RunLog(new PrintStream(new ByteArrayOutputStream())), plan, List::of, 0, now::get)) {
            p.phase("build-images");
            assertEquals(75, p.remainingSeconds());
            now.set(4 * S);
            assertEquals(71, p.remainingSeconds());
            now.set(115 * S); // images took far longer than expected: the workload and check are still ahead
            assertEquals(65, p.remainingSeconds());
            assertTrue(p.line().startsWith("[build-images] 115s elapsed, ~65s left after this phase, 105s past its estimate |"), p.line());
            p.phase("workload");
            now.set(125 * S);
            assertEquals(55, p.remainingSeconds());
            assertTrue(p.line().startsWith("[workload] 125s elapsed, ~55s left |"), "within its estimate: " + p.line());
            p.phase("check");
            now.set(200 * S);
            assertEquals(0, p.remainingSeconds());
        }
    }

    @Test
    void theTestPlanCoversEveryPhaseTheRunnerEnters() {
        var config = new TestOptions().toConfig();
        var names = Progress.testPhases(config).stream().map(Progress.PhasePlan::name).toList();
        assertEquals(List.of("provision", "build-images", "start-cluster", "create-topics", "start-faults", "workload", "final-heal",
                "recovery", "final-drain", "collect-and-teardown", "check"), names);
        long workload = Progress.testPhases(config).get(5).expectedSeconds();
        assertEquals(config.timeLimitSeconds(), workload);
    }

    @Test
    void phaseTimingsAddUpPerPhaseOnTheManualClockAndReadAsOneLine() {
        AtomicLong now = new AtomicLong(0);
        var plan = List.of(new Progress.PhasePlan("start-cluster", 10), new Progress.PhasePlan("workload", 60),
                new Progress.PhasePlan("check", 5));
        try (var p = new Progress(new RunLog(new PrintStream(new ByteArrayOutputStream())), plan, List::of, 0, now::get)) {
            p.phase("start-cluster");
            now.set(12 * S + S / 2);
            p.phase("workload");
            now.set(72 * S + S / 2);
            p.phase("check");
            now.set(75 * S);
            var seconds = p.phaseSeconds();
            assertEquals(List.of("start-cluster", "workload", "check"), List.copyOf(seconds.keySet()));
            assertEquals(12.5, seconds.get("start-cluster"));
            assertEquals(60.0, seconds.get("workload"));
            assertEquals(2.5, seconds.get("check"), "the current phase counts up to now");
            assertEquals("start-cluster 12.5 s, workload 60.0 s, check 2.5 s", p.phaseBreakdown());
        }
    }

    @Test
    void theOverheadIsTheTimeBeyondClusterStartOverTheTimeLimit() {
        var phases = new java.util.LinkedHashMap<String, Double>();
        phases.put("provision", 1.0);
        phases.put("build-images", 2.0);
        phases.put("start-cluster", 12.0);
        phases.put("workload", 61.0);
        phases.put("collect-and-teardown", 8.0);
        phases.put("check", 3.0);
        var o = Progress.overhead(phases, 60);
        assertEquals(87.0, o.get("total-seconds"));
        assertEquals(15.0, o.get("cluster-start-seconds"));
        assertEquals(1.2, o.get("ratio"), "(87 - 15) / 60");
        assertEquals("87.0 s in all, 72.0 s beyond cluster start = 1.20× the 60 s time limit",
                Progress.overheadLine(phases, 60));
    }
}
