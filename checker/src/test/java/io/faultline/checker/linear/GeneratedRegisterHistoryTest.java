package io.faultline.checker.linear;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.bench.LinearBenchmark;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Histories of a correct register (with indeterminate writes) are linearizable; a read of a value never written is not. */
class GeneratedRegisterHistoryTest {
    static CheckResult check(List<LinOp<RegisterOp, Object>> ops) {
        return new LinearizabilityChecker<>(RegisterModel.register(), LinearizabilityChecker.Options.defaults())
                .check(Map.of("r", ops));
    }

    @Test
    void correctRegisterHistoriesAreLinearizable() {
        for (long seed = 1; seed <= 30; seed++) {
            var ops = LinearBenchmark.generate(seed, 4, 200, seed % 2 == 0 ? 0 : 5);
            CheckResult r = check(ops);
            long s = seed;
            assertEquals(Verdict.VALID, r.verdict(), () -> "seed " + s + ": " + r);
        }
    }

    static List<LinOp<RegisterOp, Object>> withABadRead(long seed, int infoEvery) {
        List<LinOp<RegisterOp, Object>> ops = new ArrayList<>(LinearBenchmark.generate(seed, 4, 200, infoEvery));
        for (int i = ops.size() / 2; i < ops.size(); i++) {
            LinOp<RegisterOp, Object> o = ops.get(i);
            if (o.input() instanceof RegisterOp.Read) {
                ops.set(i, new LinOp<>(o.id(), o.process(), o.invoke(), o.complete(), o.input(), -42L));
                break;
            }
        }
        return ops;
    }

    @Test
    void aReadOfAValueNeverWrittenIsCaught() {
        for (long seed = 1; seed <= 10; seed++) {
            assertEquals(Verdict.INVALID, check(withABadRead(seed, 0)).verdict(), "seed " + seed);
        }
    }

    /**
     * Every indeterminate write stays concurrent with all that follows it, so refuting a history full of them
     * means trying every subset: the search must then stop at its bound and say unknown, not guess.
     */
    @Test
    void manyIndeterminateWritesMakeARefutationUnknownWithinTheBound() {
        var options = new LinearizabilityChecker.Options(java.time.Duration.ofHours(1), 50_000, 8, System::nanoTime);
        CheckResult r = new LinearizabilityChecker<>(RegisterModel.register(), options)
                .check(Map.of("r", withABadRead(1, 5)));
        assertEquals(Verdict.UNKNOWN, r.verdict(), r::toString);
        org.junit.jupiter.api.Assertions.assertTrue(r.error().contains("configuration bound"), r::toString);
    }
}
