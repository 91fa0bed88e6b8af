package io.faultline.checker.linear;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LinearizabilityCheckerTest {
    static final RegisterOp READ = RegisterOp.READ;

    static LinOp<RegisterOp, Object> op(long id, int process, long invoke, long complete, RegisterOp in, Object out) {
        return new LinOp<>(id, process, invoke, complete, in, out);
    }

    static LinOp<RegisterOp, Object> w(long id, int p, long a, long b, long v) {
        return op(id, p, a, b, new RegisterOp.Write(v), "ok");
    }

    static LinOp<RegisterOp, Object> r(long id, int p, long a, long b, long v) {
        return op(id, p, a, b, READ, v);
    }

    static CheckResult check(RegisterModel model, List<LinOp<RegisterOp, Object>> ops) {
        return new LinearizabilityChecker<>(model, LinearizabilityChecker.Options.defaults()).check(Map.of("k", ops));
    }

    /** As Porcupine and Knossos: the empty sequence linearizes an empty history (no keys, or a key with no ops). */
    @Test
    void anEmptyHistoryIsLinearizable() {
        var checker = new LinearizabilityChecker<>(RegisterModel.register(), LinearizabilityChecker.Options.defaults());
        CheckResult none = checker.check(Map.of());
        assertEquals(Verdict.VALID, none.verdict(), none::toString);
        assertEquals(0L, none.stats().get("ops"));
        CheckResult emptyKey = check(RegisterModel.register(), List.of());
        assertEquals(Verdict.VALID, emptyKey.verdict(), emptyKey::toString);
    }

    @Test
    void sequentialHistoryIsLinearizable() {
        CheckResult c = check(RegisterModel.register(), List.of(w(0, 0, 0, 1, 1), r(1, 1, 2, 3, 1), w(2, 0, 4, 5, 2),
                r(3, 1, 6, 7, 2)));
        assertEquals(Verdict.VALID, c.verdict(), c::toString);
    }

    @Test
    void nearMissConcurrentWritesMayBeReadInEitherOrder() {
        // Two overlapping writes; reads during and after them may see them in either order.
        for (long[] seen : new long[][] {{1, 2}, {2, 1}}) {
            var ops = List.of(w(0, 0, 0, 10, 1), w(1, 1, 0, 10, 2), r(2, 2, 1, 9, seen[0]), r(3, 3, 2, 8, seen[1]));
            assertEquals(Verdict.VALID, check(RegisterModel.register(), ops).verdict(), () -> "reads " + seen[0] + ", " + seen[1]);
        }
        for (long last : new long[] {1, 2}) {
            var ops = List.of(w(0, 0, 0, 10, 1), w(1, 1, 0, 10, 2), r(2, 2, 11, 12, last));
            assertEquals(Verdict.VALID, check(RegisterModel.register(), ops).verdict());
        }
    }

    @Test
    void aStaleReadCannotBePlaced() {
        var ops = List.of(w(10, 0, 0, 1, 1), w(11, 0, 2, 3, 2), r(12, 1, 4, 5, 1));
        CheckResult c = check(RegisterModel.register(), ops);
        assertEquals(Verdict.INVALID, c.verdict(), c::toString);
        assertEquals(1L, c.count("nonlinearizable"));
        assertEquals("key k: after linearizing 2 op(s), ending with op 11 (state 2), op 12 (process 1, read → 1) "
                + "cannot be placed before it returned", c.examples("nonlinearizable").get(0).explanation());
        @SuppressWarnings("unchecked")
        var timeline = ((List<Map<String, Object>>) c.stats().get("timelines")).get(0);
        assertEquals(List.of(10L, 11L), timeline.get("prefix"));
        assertEquals(12L, timeline.get("stuck"));
        assertEquals(3, ((List<?>) timeline.get("ops")).size());
    }

    @Test
    void anIndeterminateWriteMayOrMayNotHappen() {
        long never = LinOp.NEVER;
        var happened = List.of(w(0, 0, 0, 1, 1), op(1, 1, 2, never, new RegisterOp.Write(5), null), r(2, 2, 10, 11, 5));
        var didNot = List.of(w(0, 0, 0, 1, 1), op(1, 1, 2, never, new RegisterOp.Write(5), null), r(2, 2, 10, 11, 1));
        var both = List.of(w(0, 0, 0, 1, 1), op(1, 1, 2, never, new RegisterOp.Write(5), null), r(2, 2, 10, 11, 5),
                r(3, 2, 12, 13, 1));
        assertEquals(Verdict.VALID, check(RegisterModel.register(), happened).verdict());
        assertEquals(Verdict.VALID, check(RegisterModel.register(), didNot).verdict());
        assertEquals(Verdict.INVALID, check(RegisterModel.register(), both).verdict());
    }

    @Test
    void readingAnEmptyRegister() {
        var ok = List.of(r(0, 0, 0, 1, RegisterModel.EMPTY), w(1, 0, 2, 3, 4));
        var bad = List.of(w(1, 0, 0, 1, 4), r(0, 0, 2, 3, RegisterModel.EMPTY));
        assertEquals(Verdict.VALID, check(RegisterModel.register(), ok).verdict());
        CheckResult c = check(RegisterModel.register(), bad);
        assertTrue(c.examples("nonlinearizable").get(0).explanation().contains("read → nothing"), c::toString);
    }

    @Test
    void compareAndSet() {
        var twice = List.of(w(0, 0, 0, 1, 0), op(1, 1, 2, 3, new RegisterOp.Cas(0, 1), true),
                op(2, 2, 4, 5, new RegisterOp.Cas(0, 2), true));
        var once = List.of(w(0, 0, 0, 1, 0), op(1, 1, 2, 3, new RegisterOp.Cas(0, 1), true),
                op(2, 2, 4, 5, new RegisterOp.Cas(0, 2), false), r(3, 0, 6, 7, 1));
        var concurrent = List.of(w(0, 0, 0, 1, 0), op(1, 1, 2, 9, new RegisterOp.Cas(0, 1), false),
                op(2, 2, 2, 9, new RegisterOp.Cas(0, 2), true), r(3, 0, 10, 11, 2));
        assertEquals(Verdict.INVALID, check(RegisterModel.withCas(), twice).verdict());
        assertEquals(Verdict.VALID, check(RegisterModel.withCas(), once).verdict());
        assertEquals(Verdict.VALID, check(RegisterModel.withCas(), concurrent).verdict());
    }

    @Test
    void keysAreCheckedSeparately() {
        Map<String, List<LinOp<RegisterOp, Object>>> byKey = new LinkedHashMap<>();
        byKey.put("good", List.of(w(0, 0, 0, 1, 1), r(1, 1, 2, 3, 1)));
        byKey.put("bad", List.of(w(2, 0, 0, 1, 1), r(3, 1, 2, 3, 7)));
        CheckResult c = new LinearizabilityChecker<>(RegisterModel.register(), LinearizabilityChecker.Options.defaults())
                .check(byKey);
        assertEquals(1L, c.count("nonlinearizable"));
        assertTrue(c.examples("nonlinearizable").get(0).explanation().startsWith("key bad:"));
    }

    @Test
    void pastTheTimeLimitTheVerdictIsUnknown() {
        AtomicLong clock = new AtomicLong();
        // Every reading of the clock moves it a minute on: the first check inside the search is past the limit.
        var options = new LinearizabilityChecker.Options(Duration.ofSeconds(1), 1_000_000, 8,
                () -> clock.getAndAdd(60_000_000_000L));
        List<LinOp<RegisterOp, Object>> ops = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            ops.add(w(i, 0, 2L * i, 2L * i + 1, i));
        }
        CheckResult c = new LinearizabilityChecker<>(RegisterModel.register(), options).check(Map.of("k", ops));
        assertEquals(Verdict.UNKNOWN, c.verdict());
        assertTrue(c.error().contains("time limit"), c::toString);
        assertEquals(Map.of("time", 1L), c.stats().get("bounds"));
    }

    @Test
    void pastTheConfigurationBoundTheVerdictIsUnknownAndSaysSo() {
        var options = new LinearizabilityChecker.Options(Duration.ofHours(1), 10, 8, System::nanoTime);
        List<LinOp<RegisterOp, Object>> ops = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            ops.add(w(i, 0, 2L * i, 2L * i + 1, i));
        }
        CheckResult c = new LinearizabilityChecker<>(RegisterModel.register(), options).check(Map.of("k", ops));
        assertEquals(Verdict.UNKNOWN, c.verdict());
        assertTrue(c.error().contains("key k (50 ops): configuration bound reached: 11 configurations explored (bound 10)"),
                c::toString);
        assertEquals(Map.of("configurations explored", 1L), c.stats().get("bounds"));
    }

    /** The cache starts at 1024 records of 16 bytes; a bound of 20 kB refuses its first doubling, at 768 entries. */
    @Test
    void pastTheMemoryBoundTheVerdictIsUnknownAndSaysSo() {
        var options = new LinearizabilityChecker.Options(Duration.ofHours(1), 1_000_000, 8, System::nanoTime, 20_000);
        List<LinOp<RegisterOp, Object>> ops = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            ops.add(w(i, 0, 2L * i, 2L * i + 1, i));
        }
        CheckResult c = new LinearizabilityChecker<>(RegisterModel.register(), options).check(Map.of("k", ops));
        assertEquals(Verdict.UNKNOWN, c.verdict());
        assertTrue(c.error().contains("memory bound reached: the configuration cache would take 32.0 KiB (bound 19.5 KiB)"
                + " after 768 configurations"), c::toString);
        assertEquals(Map.of("memory", 1L), c.stats().get("bounds"));
    }

    @Test
    void neverThrows() {
        var casOnPlain = List.of(op(0, 0, 0, 1, new RegisterOp.Cas(0, 1), true));
        CheckResult c = check(RegisterModel.register(), casOnPlain);
        assertEquals(Verdict.UNKNOWN, c.verdict());
        assertTrue(c.error().contains("compare-and-set on a plain register"));
        assertEquals(Verdict.VALID, check(RegisterModel.register(), List.of()).verdict(), "empty: linearizable");
    }
}
