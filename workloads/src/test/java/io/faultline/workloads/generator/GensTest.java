package io.faultline.workloads.generator;

import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GensTest {
    static final long MS = 1_000_000L;

    static Invocation op(String f) {
        return Gens.op(f, OpValue.None.INSTANCE);
    }

    static Gen randomFs(long seed) {
        return Gens.random(seed, rng -> op("f" + rng.below(100)));
    }

    @Test
    void rngIsDeterministicAndInRange() {
        Rng a = Rng.seeded(5);
        Rng b = Rng.seeded(5);
        for (int i = 0; i < 1000; i++) {
            assertEquals(a.bits(), b.bits());
            int x = a.below(7);
            assertTrue(x >= 0 && x < 7);
            double u = a.unit();
            assertTrue(u >= 0 && u < 1);
            a = a.advance();
            b = b.advance();
        }
        assertNotEquals(Rng.seeded(5).bits(), Rng.seeded(6).bits());
        assertNotEquals(Rng.seeded(5).split(1).bits(), Rng.seeded(5).split(2).bits());
    }

    @Test
    void sameSeedSameOpsDifferentSeedDifferentOps() {
        List<String> a = fs(GenSim.run(randomFs(1), 3, 200, MS));
        List<String> b = fs(GenSim.run(randomFs(1), 3, 200, MS));
        List<String> c = fs(GenSim.run(randomFs(2), 3, 200, MS));
        assertEquals(200, a.size());
        assertEquals(a, b);
        assertNotEquals(a, c);
    }

    @Test
    void generatorsAreValuesAskingTwiceGivesTheSameAnswer() {
        Gen g = Gens.stagger(10 * MS, 3, randomFs(9));
        Context ctx = Context.allFree(0, 2);
        assertEquals(((Step.Emit) g.next(ctx)).op(), ((Step.Emit) g.next(ctx)).op());
    }

    /** Emits ops asked at {@code now} until one is scheduled after it; returns how many went out at {@code now}. */
    static int dueAt(Gen[] g, long now) {
        int n = 0;
        while (true) {
            Step.Emit e = (Step.Emit) g[0].next(Context.allFree(now, 4));
            if (e.op().time() > now) return n;
            assertEquals(now, e.op().time(), "a late op goes out now, never in the past");
            g[0] = e.next();
            n++;
        }
    }

    @Test
    void staggerMakesUpForALateDispatcherButOnlyUpToItsBound() {
        // Mean 10 ms. Asked again only at 200 ms (a starved dispatcher): the ops due by then go out at once, on
        // average about 20, instead of one op and a schedule pushed back by 190 ms.
        Gen[] g = {Gens.stagger(10 * MS, 4, Gens.repeat(op("x")))};
        assertEquals(1, dueAt(g, 0));
        int late = dueAt(g, 200 * MS);
        assertTrue(late >= 8 && late <= 40, "caught up " + late);
        // After a 60 s stall (every worker stuck) at most about a second's worth is made up, not 60 s of ops.
        int stalled = dueAt(g, 60_000 * MS);
        assertTrue(stalled >= 50 && stalled <= 150, "caught up " + stalled + " after a long stall");
        // And the plain delay keeps its promise: never closer than the interval.
        Gen[] d = {Gens.delay(10 * MS, Gens.repeat(op("x")))};
        assertEquals(1, dueAt(d, 0));
        assertEquals(1, dueAt(d, 200 * MS));
    }

    @Test
    void staggerSpacesOpsByTheMeanOnAverage() {
        List<GenSim.Dispatched> d = GenSim.run(Gens.stagger(MS, 4, Gens.repeat(op("x"))), 4, 2000, 10_000);
        assertEquals(2000, d.size(), "the loop below checks every op");
        long span = d.get(d.size() - 1).at() - d.get(0).at();
        assertTrue(span > 1800 * MS && span < 2200 * MS, "span " + span);
        for (int i = 1; i < d.size(); i++) {
            assertTrue(d.get(i).at() >= d.get(i - 1).at());
        }
    }

    @Test
    void delayIsARateLimit() {
        List<GenSim.Dispatched> d = GenSim.run(Gens.delay(5 * MS, Gens.repeat(op("x"))), 8, 100, 1_000);
        assertEquals(100, d.size(), "the loop below checks every gap");
        for (int i = 1; i < d.size(); i++) {
            assertTrue(d.get(i).at() - d.get(i - 1).at() >= 5 * MS);
        }
    }

    @Test
    void timeLimitStopsEmitting() {
        List<GenSim.Dispatched> d = GenSim.run(Gens.timeLimit(100 * MS, Gens.delay(MS, Gens.repeat(op("x")))), 2,
                10_000, 1_000);
        assertTrue(d.size() >= 95 && d.size() <= 100, "ops " + d.size());
        d.forEach(x -> assertTrue(x.at() < 100 * MS));
    }

    @Test
    void untilOkTriesAgainAfterEachRefusalPausedAndStopsAtTheFirstOkOrItsBound() {
        int[] tries = {0};
        var sim = GenSim.run(Gens.untilOk(Gens.op("w", OpValue.None.INSTANCE), 5, 1_000), 2, 100, 10,
                inv -> ++tries[0] < 3 ? OpType.FAIL : OpType.OK);
        assertEquals(3, sim.size(), "refused twice, then ok: no fourth try");
        assertEquals(List.of(0L, 1_010L, 2_020L), sim.stream().map(GenSim.Dispatched::at).toList(),
                "one try at a time, each a pause after the last ended");
        var stubborn = GenSim.run(Gens.untilOk(Gens.op("w", OpValue.None.INSTANCE), 4, 0), 2, 100, 10, inv -> OpType.INFO);
        assertEquals(4, stubborn.size(), "at most its bound");
        var own = GenSim.run(Gens.firstOk(List.of(Gens.op("a", OpValue.None.INSTANCE), Gens.op("b", OpValue.None.INSTANCE),
                Gens.op("c", OpValue.None.INSTANCE)), 0), 1, 100, 10, inv -> inv.f().equals("a") ? OpType.INFO : OpType.OK);
        assertEquals(List.of("a", "b"), own.stream().map(d -> d.op().f()).toList(), "each try its own op, until the first ok");
    }

    @Test
    void limitAndOnce() {
        assertEquals(7, GenSim.run(Gens.limit(7, Gens.repeat(op("x"))), 3, 100, MS).size());
        assertEquals(1, GenSim.run(Gens.once(op("x")), 3, 100, MS).size());
    }

    @Test
    void mixDrawsFromAllAndDropsExhausted() {
        Gen m = Gens.mix(11, Gens.repeat(op("a")), Gens.repeat(op("b")), Gens.limit(5, Gens.repeat(op("c"))));
        Map<String, Integer> n = new HashMap<>();
        GenSim.run(m, 2, 1000, MS).forEach(d -> n.merge(d.op().f(), 1, Integer::sum));
        assertEquals(5, n.get("c"));
        assertTrue(n.get("a") > 400 && n.get("b") > 400, n.toString());
    }

    @Test
    void anyRunsBothAtOnceAndAWaitingOneDoesNotHoldTheOtherBack() {
        Gen slow = Gens.limit(3, Gens.delay(100 * MS, Gens.repeat(op("slow"))));
        Gen fast = Gens.limit(50, Gens.repeat(op("fast")));
        List<GenSim.Dispatched> d = GenSim.run(Gens.any(slow, fast), 2, 1000, MS);
        assertEquals(3, d.stream().filter(x -> x.op().f().equals("slow")).count());
        assertEquals(50, d.stream().filter(x -> x.op().f().equals("fast")).count());
        long secondSlow = d.stream().filter(x -> x.op().f().equals("slow")).mapToLong(GenSim.Dispatched::at)
                .sorted().skip(1).findFirst().getAsLong();
        long lastFast = d.stream().filter(x -> x.op().f().equals("fast")).mapToLong(GenSim.Dispatched::at).max()
                .getAsLong();
        assertTrue(lastFast < secondSlow, "the fast ops went out while the slow one waited: " + lastFast + " < " + secondSlow);
        // a mix asks one generator per step, so a waiting one holds the other back
        List<GenSim.Dispatched> m = GenSim.run(Gens.mix(3, Gens.limit(3, Gens.delay(100 * MS, Gens.repeat(op("slow")))),
                Gens.limit(50, Gens.repeat(op("fast")))), 2, 1000, MS);
        assertTrue(m.stream().mapToLong(GenSim.Dispatched::at).max().getAsLong() > lastFast);
    }

    /** Emits {@code f} until it has seen {@code left} completions; fails on a completion of anyone else's op. */
    record OwnCompletions(String f, int left) implements Gen {
        public Step next(Context ctx) {
            if (left <= 0) return Step.DONE;
            int t = ctx.anyFreeThread();
            return t < 0 ? Step.PENDING : Step.emit(op(f).withThread(t).withTime(ctx.time()), this);
        }

        public Gen update(Context ctx, io.faultline.checker.history.Op event) {
            if (!event.f().equals(f)) throw new AssertionError(f + " was told of " + event.f());
            return new OwnCompletions(f, left - 1);
        }
    }

    @Test
    void anyTellsEachGeneratorOnlyOfItsOwnOpsCompletions() {
        List<GenSim.Dispatched> d = GenSim.run(Gens.any(new OwnCompletions("a", 5), new OwnCompletions("b", 7)), 3,
                1000, MS);
        long a = d.stream().filter(x -> x.op().f().equals("a")).count();
        long b = d.stream().filter(x -> x.op().f().equals("b")).count();
        assertTrue(a >= 5 && a <= 5 + 3 && b >= 7 && b <= 7 + 3, "each stops after its own completions: " + a + ", " + b);
    }

    @Test
    void phasesWaitForThePreviousPhaseToFinish() {
        Gen g = Gens.phases(Gens.limit(10, Gens.repeat(op("one"))), Gens.limit(10, Gens.repeat(op("two"))));
        List<GenSim.Dispatched> d = GenSim.run(g, 3, 100, 7 * MS);
        assertEquals(20, d.size());
        long lastOneDone = d.stream().filter(x -> x.op().f().equals("one")).mapToLong(GenSim.Dispatched::completedAt)
                .max().getAsLong();
        d.stream().filter(x -> x.op().f().equals("two")).forEach(x -> assertTrue(x.at() >= lastOneDone));
        // seq does not wait: its second part overlaps the first's tail
        List<GenSim.Dispatched> s = GenSim.run(Gens.seq(Gens.limit(10, Gens.repeat(op("one"))),
                Gens.limit(10, Gens.repeat(op("two")))), 3, 100, 7 * MS);
        long firstTwo = s.stream().filter(x -> x.op().f().equals("two")).mapToLong(GenSim.Dispatched::at).min()
                .getAsLong();
        long lastOneDoneSeq = s.stream().filter(x -> x.op().f().equals("one"))
                .mapToLong(GenSim.Dispatched::completedAt).max().getAsLong();
        assertTrue(firstTwo < lastOneDoneSeq);
    }

    @Test
    void eachThreadRunsOneCopyPerThread() {
        List<GenSim.Dispatched> d = GenSim.run(Gens.eachThread(Gens.limit(2, Gens.repeat(op("x")))), 4, 100, MS);
        assertEquals(8, d.size());
        Map<Integer, Integer> perThread = new HashMap<>();
        d.forEach(x -> perThread.merge(x.op().thread(), 1, Integer::sum));
        assertEquals(Map.of(0, 2, 1, 2, 2, 2, 3, 2), perThread);
    }

    @Test
    void concurrencyRestrictsThreads() {
        Set<Integer> used = new HashSet<>();
        GenSim.run(Gens.concurrency(2, Gens.limit(50, Gens.repeat(op("x")))), 5, 100, MS)
                .forEach(x -> used.add(x.op().thread()));
        assertEquals(Set.of(0, 1), used);
    }

    private static List<String> fs(List<GenSim.Dispatched> d) {
        return d.stream().map(x -> x.op().f() + "@" + x.op().thread()).toList();
    }
}
