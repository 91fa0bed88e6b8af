package io.faultline.nemesis;

import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.docker.Cluster;
import io.faultline.nemesis.Schedule.PlannedOp;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scheduler without containers: a stub nemesis that only remembers what it was asked. */
class SchedulerTest {
    /** Records ops; fails any op whose f is "boom". */
    static class StubNemesis implements Nemesis {
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());
        final Set<String> fs;

        StubNemesis(String... fs) {
            this.fs = Set.of(fs);
        }

        public Set<String> fs() {
            return fs;
        }

        public void setup(NemesisContext ctx) {
            calls.add("setup");
        }

        public FaultOp invoke(NemesisContext ctx, FaultOp op) {
            calls.add(op.f());
            if (op.f().equals("boom")) throw new IllegalStateException("it broke");
            return op.completed("did " + op.f());
        }

        public void teardown(NemesisContext ctx) {
            calls.add("teardown");
        }
    }

    /** Time that moves only when the scheduler waits, by exactly as long as it asks: no race with a busy machine. */
    static final class ManualPacer implements Pacer {
        private final java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(1_000);

        public long nanoTime() {
            return now.get();
        }

        public void sleep(long nanos) {
            now.addAndGet(nanos);
        }
    }

    private static FaultPackage flipFlop(String name, StubNemesis n, String start, String stop) {
        return new FaultPackage(name, n, OpGenerator.flipFlop(r -> FaultOp.of(start, r.nextInt(100)), r -> FaultOp.of(stop)),
                List.of(FaultOp.of(stop)), "#000000", Set.of(start), Set.of(stop));
    }

    private static NemesisContext ctx(FaultLog log) {
        return NemesisContext.builder((Cluster) null).seed(1).log(log).build();
    }

    @Test
    void planIsAPureFunctionOfTheSeed() {
        var a = new StubNemesis("start-a", "stop-a");
        var b = new StubNemesis("start-b", "stop-b");
        List<FaultPackage> pkgs = List.of(flipFlop("a", a, "start-a", "stop-a"), flipFlop("b", b, "start-b", "stop-b"));
        Schedule s = Schedule.of(Duration.ofSeconds(5), Duration.ofMinutes(10), 42);
        List<PlannedOp> p1 = Scheduler.plan(pkgs, s);
        assertEquals(p1, Scheduler.plan(pkgs, s), "same seed, same ops at the same times");
        assertNotEquals(p1, Scheduler.plan(pkgs, new Schedule(s.interval(), s.quietPeriod(), s.duration(), 43)));
        assertTrue(p1.size() > 80 && p1.size() < 160, "about one op per interval: " + p1.size());
        long last = -1;
        for (PlannedOp op : p1) {
            assertTrue(op.atMillis() > last || op.atMillis() == last, "times ascend");
            assertTrue(op.atMillis() < s.duration().toMillis(), "planned within the duration");
            last = op.atMillis();
        }
        assertEquals(Set.of("a", "b"), Set.copyOf(p1.stream().map(PlannedOp::packageName).toList()), "packages mix");
    }

    @Test
    void eachPackageFlipFlopsBetweenFaultAndHeal() {
        var a = new StubNemesis("start-a", "stop-a");
        var b = new StubNemesis("start-b", "stop-b");
        var plan = Scheduler.plan(List.of(flipFlop("a", a, "start-a", "stop-a"), flipFlop("b", b, "start-b", "stop-b")),
                Schedule.of(Duration.ofSeconds(1), Duration.ofMinutes(5), 7));
        for (String pkg : List.of("a", "b")) {
            List<String> fs = plan.stream().filter(p -> p.packageName().equals(pkg)).map(p -> p.op().f()).toList();
            for (int i = 0; i < fs.size(); i++) assertEquals((i % 2 == 0 ? "start-" : "stop-") + pkg, fs.get(i));
        }
    }

    @Test
    void quietPeriodFollowsEveryHeal() {
        var a = new StubNemesis("start-a", "stop-a");
        var plan = Scheduler.plan(List.of(flipFlop("a", a, "start-a", "stop-a")),
                Schedule.of(Duration.ofSeconds(1), Duration.ofMinutes(30), 3).withQuietPeriod(Duration.ofSeconds(10)));
        for (int i = 1; i < plan.size(); i++) {
            if (plan.get(i - 1).op().f().equals("stop-a")) {
                assertTrue(plan.get(i).atMillis() - plan.get(i - 1).atMillis() >= 10_000, "quiet after a heal");
            }
        }
    }

    @Test
    void runExecutesThePlanInOrderThenFinalHealsRunInPackageOrder() throws Exception {
        var a = new StubNemesis("start-a", "stop-a");
        var b = new StubNemesis("start-b", "stop-b");
        List<FaultPackage> pkgs = List.of(flipFlop("a", a, "start-a", "stop-a"), flipFlop("b", b, "start-b", "stop-b"));
        Schedule s = Schedule.of(Duration.ofMillis(20), Duration.ofMillis(600), 5);
        var timeline = new FaultTimeline();
        var pacer = new ManualPacer();
        var scheduler = new Scheduler(ctx(timeline), pkgs, pacer);
        long t0 = pacer.nanoTime();
        scheduler.start(s);
        assertTrue(scheduler.awaitFinished(Duration.ofMinutes(1)));
        assertEquals(600_000_000L, pacer.nanoTime() - t0, "runs exactly until the deadline");
        List<String> planned = Scheduler.plan(pkgs, s).stream().map(p -> p.op().f()).toList();
        assertTrue(planned.size() > 10, "a plan worth checking: " + planned);
        assertEquals(planned, scheduler.executed().stream().map(FaultOp::f).toList());
        List<FaultOp> heals = scheduler.finalHeal(Duration.ZERO);
        assertEquals(List.of("stop-a", "stop-b"), heals.stream().map(FaultOp::f).toList());
        scheduler.teardown();
        assertEquals("setup", a.calls.get(0));
        assertEquals("teardown", a.calls.get(a.calls.size() - 1));
        assertEquals(2 * scheduler.executed().size(), timeline.events().size(), "a start and an end per op");
    }

    @Test
    void finalHealStopsARunningScheduleFirstAndNothingRunsAfterIt() throws Exception {
        var threeOps = new java.util.concurrent.CountDownLatch(3);
        var a = new StubNemesis("start-a", "stop-a") {
            @Override
            public FaultOp invoke(NemesisContext ctx, FaultOp op) {
                threeOps.countDown();
                return super.invoke(ctx, op);
            }
        };
        var scheduler = new Scheduler(ctx(FaultLog.NONE), List.of(flipFlop("a", a, "start-a", "stop-a")));
        scheduler.start(Schedule.of(Duration.ofMillis(10), Duration.ofMinutes(10), 1));
        assertTrue(threeOps.await(1, java.util.concurrent.TimeUnit.MINUTES), "the schedule runs");
        List<FaultOp> heals = scheduler.finalHeal(Duration.ZERO);
        // Without the stop, finalHeal would give up waiting after 5 minutes and the schedule would still be running.
        assertTrue(scheduler.awaitFinished(Duration.ZERO), "the schedule stopped before the heal");
        List<FaultOp> all = scheduler.executed();
        assertEquals(heals, all.subList(all.size() - heals.size(), all.size()), "the heals are the last ops");
        assertEquals(List.of("stop-a"), heals.stream().map(FaultOp::f).toList());
    }

    @Test
    void aFailedOpIsRecordedWithItsErrorAndDoesNotStopTheRest() {
        var n = new StubNemesis("boom", "fine");
        var pkg = new FaultPackage("x", n, OpGenerator.always(FaultOp.of("boom")), List.of(FaultOp.of("fine")), "#111111",
                Set.of("boom"), Set.of("fine"));
        var recorder = HistoryRecorder.inMemory(1);
        var scheduler = new Scheduler(NemesisContext.builder((Cluster) null).recorder(recorder).build(), List.of(pkg));
        FaultOp failed = scheduler.invoke("x", FaultOp.of("boom"));
        assertTrue(failed.isFailed());
        assertTrue(failed.error().contains("it broke"));
        FaultOp ok = scheduler.invoke("x", FaultOp.of("fine"));
        assertNull(ok.error());
        List<Op> history = recorder.ops();
        assertEquals(4, history.size());
        for (Op op : history) {
            assertEquals(OpType.INFO, op.type());
            assertEquals(Op.NEMESIS, op.process());
        }
        assertEquals("boom", history.get(1).f());
        assertTrue(history.get(1).error().contains("it broke"));
        assertEquals(new OpValue.Text("did fine"), history.get(3).value());
        assertTrue(history.get(3).time() >= history.get(2).time());
    }

    @Test
    void packagesRejectFunctionsTheirNemesisDoesNotKnow() {
        var n = new StubNemesis("a");
        assertThrows(IllegalArgumentException.class, () -> new FaultPackage("p", n, OpGenerator.always(FaultOp.of("a")),
                List.of(FaultOp.of("b")), "#000000", Set.of("a"), Set.of()));
    }

    @Test
    void bandsRunFromTheFirstFaultToTheEndOfItsHeal() {
        var n = new StubNemesis("start", "stop", "zap");
        var healed = new FaultPackage("p", n, OpGenerator.always(FaultOp.of("start")), List.of(), "#aaaaaa",
                Set.of("start"), Set.of("stop"));
        var instant = new FaultPackage("q", n, OpGenerator.always(FaultOp.of("zap")), List.of(), "#bbbbbb",
                Set.of("zap"), Set.of());
        var t = new FaultTimeline();
        t.record(new FaultLog.FaultEvent(FaultLog.Phase.START, "p", "start", "", 10, null));
        t.record(new FaultLog.FaultEvent(FaultLog.Phase.END, "p", "start", "", 12, null));
        t.record(new FaultLog.FaultEvent(FaultLog.Phase.START, "q", "zap", "", 15, null));
        t.record(new FaultLog.FaultEvent(FaultLog.Phase.START, "p", "start", "", 20, null));
        t.record(new FaultLog.FaultEvent(FaultLog.Phase.END, "q", "zap", "", 25, null));
        t.record(new FaultLog.FaultEvent(FaultLog.Phase.START, "p", "stop", "", 30, null));
        t.record(new FaultLog.FaultEvent(FaultLog.Phase.END, "p", "stop", "", 33, null));
        t.record(new FaultLog.FaultEvent(FaultLog.Phase.START, "p", "start", "", 40, null));
        assertEquals(List.of(new FaultTimeline.FaultBand("q", "#bbbbbb", 15, 25),
                new FaultTimeline.FaultBand("p", "#aaaaaa", 10, 33),
                new FaultTimeline.FaultBand("p", "#aaaaaa", 40, -1)), t.bands(List.of(healed, instant)));
    }

    @Test
    void bandsCanBeRebuiltFromAHistoryFile() {
        long[] now = {0};
        var recorder = HistoryRecorder.inMemory(1, () -> now[0]);
        java.util.function.BiConsumer<String, Long> op = (f, t) -> {
            now[0] = t;
            recorder.nemesis(OpType.INFO, f, new OpValue.Text(""), null);
        };
        op.accept("start-partition", 100L);
        op.accept("start-partition", 110L);
        op.accept("kill", 200L);
        op.accept("kill", 210L);
        recorder.invoke(0, "send", OpValue.None.INSTANCE); // client ops are ignored
        op.accept("truncate-segment", 300L);
        op.accept("truncate-segment", 350L);
        op.accept("stop-partition", 400L);
        op.accept("stop-partition", 420L);
        op.accept("start", 500L);
        op.accept("start", 530L);
        var bands = FaultTimeline.fromHistory(recorder.ops(), FaultPackages.legends());
        assertEquals(List.of(new FaultTimeline.FaultBand("disk", "#8AB6D6", 300, 350),
                new FaultTimeline.FaultBand("partition", "#E9C46A", 100, 420),
                new FaultTimeline.FaultBand("kill", "#E76F51", 200, 530)), bands);
    }

    @Test
    void bumpsSpanMillisecondsToMinutesBothWays() {
        Random r = new Random(9);
        long min = Long.MAX_VALUE, max = 0;
        int negative = 0;
        for (int i = 0; i < 2000; i++) {
            long b = FaultPackages.bumpMillis(r, 300_000);
            min = Math.min(min, Math.abs(b));
            max = Math.max(max, Math.abs(b));
            if (b < 0) negative++;
        }
        assertTrue(min < 20, "small bumps: " + min);
        assertTrue(max > 120_000 && max <= 300_000, "bumps of minutes: " + max);
        assertTrue(negative > 800 && negative < 1200, "both directions: " + negative);
    }
}
