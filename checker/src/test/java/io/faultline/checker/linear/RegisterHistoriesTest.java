package io.faultline.checker.linear;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.bench.LinearBenchmark;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Dropping unread indeterminate writes never changes a verdict, and decides histories the full search cannot. */
class RegisterHistoriesTest {
    static Verdict verdict(List<LinOp<RegisterOp, Object>> ops) {
        CheckResult r = new LinearizabilityChecker<>(RegisterModel.register(), LinearizabilityChecker.Options.defaults())
                .check(Map.of("r", ops));
        return r.verdict();
    }

    /** Some reads return an older value, some a value nobody wrote: many of these histories are not linearizable. */
    static List<LinOp<RegisterOp, Object>> corrupted(long seed) {
        List<LinOp<RegisterOp, Object>> ops = new ArrayList<>(LinearBenchmark.generate(seed, 3, 6, 2));
        Random rnd = new Random(seed * 31);
        for (int i = 0; i < ops.size(); i++) {
            LinOp<RegisterOp, Object> o = ops.get(i);
            if (o.input() instanceof RegisterOp.Read && rnd.nextInt(4) == 0) {
                long v = rnd.nextInt(5) == 0 ? -42L : 1 + rnd.nextInt(ops.size());
                ops.set(i, new LinOp<>(o.id(), o.process(), o.invoke(), o.complete(), o.input(), v));
            }
        }
        return ops;
    }

    @Test
    void theVerdictIsTheSameWithAndWithoutUnreadIndeterminateWrites() {
        int invalid = 0, pruned = 0;
        for (long seed = 1; seed <= 400; seed++) {
            var ops = seed % 3 == 0 ? LinearBenchmark.generate(seed, 3, 6, 2) : corrupted(seed);
            var fewer = RegisterHistories.withoutUnreadIndeterminateWrites(ops);
            Verdict full = verdict(ops);
            assertNotEquals(Verdict.UNKNOWN, full, "small histories are decided");
            assertEquals(full, verdict(fewer), "seed " + seed);
            if (full == Verdict.INVALID) invalid++;
            if (fewer.size() < ops.size()) pruned++;
        }
        assertTrue(invalid > 50 && pruned > 100, "the comparison covered both verdicts and real pruning: invalid "
                + invalid + ", pruned " + pruned);
    }

    @Test
    void onlyUnreadIndeterminateWritesGo() {
        LinOp<RegisterOp, Object> seen = new LinOp<>(1, 0, 0, LinOp.NEVER, new RegisterOp.Write(7), null);
        LinOp<RegisterOp, Object> unseen = new LinOp<>(2, 1, 0, LinOp.NEVER, new RegisterOp.Write(8), null);
        LinOp<RegisterOp, Object> done = new LinOp<>(3, 2, 0, 5, new RegisterOp.Write(9), "ok");
        LinOp<RegisterOp, Object> read = new LinOp<>(4, 3, 6, 9, RegisterOp.READ, 7L);
        assertEquals(List.of(seen, done, read),
                RegisterHistories.withoutUnreadIndeterminateWrites(List.of(seen, unseen, done, read)));
        List<LinOp<RegisterOp, Object>> withCas = List.of(unseen,
                new LinOp<>(5, 4, 0, 3, new RegisterOp.Cas(8, 1), true));
        assertSame(withCas, RegisterHistories.withoutUnreadIndeterminateWrites(withCas), "a swap may read a write's value");
    }

    /** The history that makes the full search give up (GeneratedRegisterHistoryTest) is decided once pruned. */
    @Test
    void aHistoryFullOfCutOffWritesIsDecided() {
        var options = new LinearizabilityChecker.Options(java.time.Duration.ofHours(1), 50_000, 8, System::nanoTime);
        var ops = RegisterHistories.withoutUnreadIndeterminateWrites(GeneratedRegisterHistoryTest.withABadRead(1, 5));
        CheckResult r = new LinearizabilityChecker<>(RegisterModel.register(), options).check(Map.of("r", ops));
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
    }
}
