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
        long faults = p1.stream().filter(p -> p.role() == Schedule.Role.FAULT).count();
        assertTrue(faults > 40 && faults < 80, "about one fault per two intervals: " + faults);
        long last = -1;
        for (PlannedOp op : p1) {
            assertTrue(op.atMillis() >= last, "times ascend");
            assertTrue(op.atMillis() < s.duration().toMillis(), "planned within the duration");
            last = op.atMillis();
        }
        assertEquals(Set.of("a", "b"), Set.copyOf(p1.stream().map(PlannedOp::packageName).toList()), "packages mix");
    }

    @Test
    void faultsAlternateWithHealthyWindowsOneFaultAtATime() {
        var a = new StubNemesis("start-a", "stop-a");
        var b = new StubNemesis("start-b", "stop-b");
        long interval = 1000;
        var plan = Scheduler.plan(List.of(flipFlop("a", a, "start-a", "stop-a"), flipFlop("b", b, "start-b", "stop-b")),
                Schedule.of(Duration.ofMillis(interval), Duration.ofMinutes(5), 7));
        assertTrue(plan.size() >= 100, "a plan worth checking: " + plan.size());
        assertTrue(plan.get(0).atMillis() >= interval / 2, "the run starts healthy");
        long healthyMs = plan.get(0).atMillis(), faultedMs = 0;
        for (int i = 0; i + 1 < plan.size(); i += 2) {
            PlannedOp fault = plan.get(i), heal = plan.get(i + 1);
            String pkg = fault.packageName();
            assertEquals(Schedule.Role.FAULT, fault.role());
            assertEquals("start-" + pkg, fault.op().f());
            assertEquals(Schedule.Role.HEAL, heal.role());
            assertEquals("stop-" + pkg, heal.op().f(), "the same package heals its own fault");
            assertEquals(fault.cycle(), heal.cycle());
            long hold = heal.atMillis() - fault.atMillis();
            assertTrue(hold >= interval / 2 && hold < 3 * interval / 2, "held about one interval: " + hold);
            faultedMs += hold;
            if (i + 2 < plan.size()) {
                long healthy = plan.get(i + 2).atMillis() - heal.atMillis();
                assertTrue(healthy >= interval / 2 && healthy < 3 * interval / 2, "healthy about one interval: " + healthy);
                healthyMs += healthy;
                assertEquals(fault.cycle() + 1, plan.get(i + 2).cycle());
            }
        }
        double healthyShare = healthyMs / (double) (healthyMs + faultedMs);
        assertTrue(healthyShare > 0.4 && healthyShare < 0.6, "about half the time healthy: " + healthyShare);
    }

    @Test
    void quietPeriodFollowsEveryHeal() {
        var a = new StubNemesis("start-a", "stop-a");
        var plan = Scheduler.plan(List.of(flipFlop("a", a, "start-a", "stop-a")),
                Schedule.of(Duration.ofSeconds(1), Duration.ofMinutes(30), 3).withQuietPeriod(Duration.ofSeconds(10)));
        int checked = 0;
        for (int i = 1; i < plan.size(); i++) {
            if (plan.get(i - 1).op().f().equals("stop-a")) {
                checked++;
                assertTrue(plan.get(i).atMillis() - plan.get(i - 1).atMillis() >= 10_000, "quiet after a heal");
            }
        }
        assertTrue(checked >= 10, "heals followed by another op: " + checked);
    }

    @Test
    void keepingSomeCyclesLeavesThemExactlyAsTheyWere() {
        var a = new StubNemesis("start-a", "stop-a");
        var b = new StubNemesis("start-b", "stop-b");
        List<FaultPackage> pkgs = List.of(flipFlop("a", a, "start-a", "stop-a"), flipFlop("b", b, "start-b", "stop-b"));
        Schedule all = Schedule.of(Duration.ofSeconds(2), Duration.ofMinutes(2), 11);
        List<PlannedOp> full = Scheduler.plan(pkgs, all);
        assertTrue(full.size() >= 20, "cycles to choose from: " + full.size());
        Set<Integer> keep = Set.of(1, 4, 7);
        List<PlannedOp> expected = full.stream().filter(p -> keep.contains(p.cycle())).toList();
        assertEquals(6, expected.size(), "a fault and its heal per kept cycle");
        assertEquals(expected, Scheduler.plan(pkgs, all.withOnlyCycles(keep)));
        assertEquals(List.of(), Scheduler.plan(pkgs, all.withOnlyCycles(Set.of())));
    }

    @Test
    void gapsCountFromTheEndOfTheSlowOpBeforeThem() {
        var pacer = new ManualPacer();
        var slow = new StubNemesis("start-a", "stop-a") {
            @Override
            public FaultOp invoke(NemesisContext ctx, FaultOp op) {
                pacer.sleep(3_000_000_000L); // every op takes 3 s, as a kill of several nodes may on a busy machine
                return super.invoke(ctx, op);
            }
        };
        long t0 = pacer.nanoTime();
        var timeline = new FaultTimeline();
        var ctx = NemesisContext.builder((Cluster) null).log(timeline).nanoClock(() -> pacer.nanoTime() - t0).build();
        List<FaultPackage> pkgs = List.of(flipFlop("a", slow, "start-a", "stop-a"));
        Schedule s = Schedule.of(Duration.ofSeconds(10), Duration.ofMinutes(10), 4);
        List<PlannedOp> plan = Scheduler.plan(pkgs, s);
        new Scheduler(ctx, pkgs, pacer).run(s);
        List<FaultLog.FaultEvent> events = timeline.events();
        assertTrue(events.size() >= 20, "ops ran: " + events.size());
        for (int i = 2; i + 1 < events.size(); i += 2) {
            long endBefore = events.get(i - 1).timeNanos(), startNext = events.get(i).timeNanos();
            long plannedGap = plan.get(i / 2).atMillis() - plan.get(i / 2 - 1).atMillis();
            assertEquals(plannedGap * 1_000_000, startNext - endBefore, "the whole planned gap after op " + (i / 2 - 1));
        }
    }

    @Test
    void aFaultThatCannotStartIsHealedAtOnceAndDoesNotHoldTheSchedule() throws Exception {
        var n = new StubNemesis("boom", "stop-x", "start-y", "stop-y");
        var failing = new FaultPackage("x", n, OpGenerator.flipFlop(r -> FaultOp.of("boom"), r -> FaultOp.of("stop-x")),
                List.of(FaultOp.of("stop-x")), "#000000", Set.of("boom"), Set.of("stop-x"));
        var working = flipFlop("y", n, "start-y", "stop-y");
        List<FaultPackage> pkgs = List.of(failing, working);
        Schedule s = Schedule.of(Duration.ofSeconds(10), Duration.ofMinutes(5), 21);
        List<PlannedOp> plan = Scheduler.plan(pkgs, s);
        int firstFailing = -1;
        for (int i = 0; i < plan.size(); i++) {
            if (plan.get(i).op().f().equals("boom")) {
                firstFailing = i;
                break;
            }
        }
        assertTrue(firstFailing >= 0 && firstFailing + 2 < plan.size(), "the plan has a failing fault with more after it");
        var pacer = new ManualPacer();
        long t0 = pacer.nanoTime();
        var timeline = new FaultTimeline();
        var ctx = NemesisContext.builder((Cluster) null).log(timeline).nanoClock(() -> pacer.nanoTime() - t0).build();
        var scheduler = new Scheduler(ctx, pkgs, pacer);
        scheduler.run(s);
        List<FaultLog.FaultEvent> starts = timeline.events().stream().filter(e -> e.phase() == FaultLog.Phase.START).toList();
        PlannedOp boom = plan.get(firstFailing), heal = plan.get(firstFailing + 1), next = plan.get(firstFailing + 2);
        assertEquals("stop-x", heal.op().f());
        assertEquals("boom", starts.get(firstFailing).f());
        assertEquals(boom.atMillis() * 1_000_000, starts.get(firstFailing).timeNanos());
        assertEquals("stop-x", starts.get(firstFailing + 1).f());
        assertEquals(boom.atMillis() * 1_000_000, starts.get(firstFailing + 1).timeNanos(), "healed at once");
        long hold = heal.atMillis() - boom.atMillis();
        assertEquals((next.atMillis() - hold) * 1_000_000, starts.get(firstFailing + 2).timeNanos(),
                "the next fault comes earlier by the hold that did not happen");
    }

    /** Per cycle: [fault time, heal time or -1] of the plan. */
    private static java.util.Map<Integer, long[]> holds(List<PlannedOp> plan) {
        java.util.Map<Integer, long[]> out = new java.util.TreeMap<>();
        for (PlannedOp p : plan) {
            long[] h = out.computeIfAbsent(p.cycle(), c -> new long[]{-1, -1});
            if (p.role() == Schedule.Role.FAULT) h[0] = p.atMillis();
            else h[1] = p.atMillis();
        }
        return out;
    }

    @Test
    void overlappingCyclesStartInsideAnotherPackagesHoldAndNeverInsideTheirOwn() {
        var a = new StubNemesis("start-a", "stop-a");
        var b = new StubNemesis("start-b", "stop-b");
        var c = new StubNemesis("start-c", "stop-c");
        List<FaultPackage> pkgs = List.of(flipFlop("a", a, "start-a", "stop-a"), flipFlop("b", b, "start-b", "stop-b"),
                flipFlop("c", c, "start-c", "stop-c"));
        Schedule s = Schedule.of(Duration.ofSeconds(5), Duration.ofMinutes(30), 77).withOverlap(0.5);
        List<PlannedOp> plan = Scheduler.plan(pkgs, s);
        for (int i = 1; i < plan.size(); i++) {
            assertTrue(plan.get(i - 1).atMillis() <= plan.get(i).atMillis(), "in time order at " + i);
        }
        var holds = holds(plan);
        java.util.Map<Integer, String> pkg = new java.util.HashMap<>();
        plan.forEach(p -> pkg.put(p.cycle(), p.packageName()));
        int overlapping = 0, alone = 0;
        for (var x : holds.entrySet()) {
            long start = x.getValue()[0];
            boolean inside = false;
            for (var y : holds.entrySet()) {
                long ys = y.getValue()[0], ye = y.getValue()[1] < 0 ? Long.MAX_VALUE : y.getValue()[1];
                if (y.getKey() >= x.getKey() || start >= ye || start < ys) continue;
                inside = true;
                assertNotEquals(pkg.get(y.getKey()), pkg.get(x.getKey()),
                        "cycle " + x.getKey() + " starts inside cycle " + y.getKey() + " of its own package");
            }
            if (inside) overlapping++;
            else alone++;
        }
        assertTrue(overlapping >= holds.size() / 5 && alone >= holds.size() / 5,
                "both kinds of cycle: " + overlapping + " overlapping, " + alone + " alone of " + holds.size());
        assertEquals(plan, Scheduler.plan(pkgs, s), "still a pure function of the seed");
        var keep = Set.of(2, 3, 8, 9);
        assertEquals(plan.stream().filter(p -> keep.contains(p.cycle())).toList(), Scheduler.plan(pkgs, s.withOnlyCycles(keep)),
                "shrinking keeps each cycle's time and value with overlaps too");
    }

    @Test
    void withoutOverlapNoTwoFaultsEverHold() {
        var a = new StubNemesis("start-a", "stop-a");
        var b = new StubNemesis("start-b", "stop-b");
        List<FaultPackage> pkgs = List.of(flipFlop("a", a, "start-a", "stop-a"), flipFlop("b", b, "start-b", "stop-b"));
        List<PlannedOp> plan = Scheduler.plan(pkgs, Schedule.of(Duration.ofSeconds(5), Duration.ofMinutes(30), 77));
        long lastHeal = -1;
        for (var h : holds(plan).values()) {
            assertTrue(h[0] > lastHeal, "a fault starts only after the one before is healed");
            lastHeal = h[1];
        }
    }

    @Test
    void anOverlappingFaultThatCannotStartIsHealedAtOnceAndItsLaterHealIsSkipped() {
        var n = new StubNemesis("boom", "stop-x", "start-y", "stop-y");
        var failing = new FaultPackage("x", n, OpGenerator.flipFlop(r -> FaultOp.of("boom"), r -> FaultOp.of("stop-x")),
                List.of(FaultOp.of("stop-x")), "#000000", Set.of("boom"), Set.of("stop-x"));
        List<FaultPackage> pkgs = List.of(failing, flipFlop("y", n, "start-y", "stop-y"));
        Schedule s = Schedule.of(Duration.ofSeconds(10), Duration.ofMinutes(10), 5).withOverlap(1);
        List<PlannedOp> plan = Scheduler.plan(pkgs, s);
        // find a failing fault whose heal is not the next op: another cycle's op lies between
        int boom = -1;
        for (int i = 0; i + 1 < plan.size() && boom < 0; i++) {
            if (plan.get(i).op().f().equals("boom") && plan.get(i + 1).cycle() != plan.get(i).cycle()) boom = i;
        }
        assertTrue(boom >= 0, "an overlapped failing fault in the plan");
        var pacer = new ManualPacer();
        long t0 = pacer.nanoTime();
        var timeline = new FaultTimeline();
        var ctx = NemesisContext.builder((Cluster) null).log(timeline).nanoClock(() -> pacer.nanoTime() - t0).build();
        new Scheduler(ctx, pkgs, pacer).run(s);
        List<FaultLog.FaultEvent> starts = timeline.events().stream().filter(e -> e.phase() == FaultLog.Phase.START).toList();
        assertEquals("boom", starts.get(boom).f());
        assertEquals("stop-x", starts.get(boom + 1).f(), "healed at once, before the op planned next");
        assertEquals(starts.get(boom).timeNanos(), starts.get(boom + 1).timeNanos());
        long planned = plan.stream().filter(p -> p.op().f().equals("stop-x")).count();
        assertEquals(planned, starts.stream().filter(e -> e.f().equals("stop-x")).count(),
                "each failed fault's heal runs once, early: the planned one is skipped");
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
