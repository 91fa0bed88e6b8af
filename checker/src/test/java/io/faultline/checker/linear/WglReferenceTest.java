package io.faultline.checker.linear;

import io.faultline.checker.Verdict;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The compact configuration cache forgets nothing and confuses nothing: on random small multi-key histories (with
 * indeterminate writes, swaps and wrong reads; fixed seeds) the search over the whole history gives the verdict of
 * a plain recursive search over all orders that respect real time, memoised on the full set of placed ops.
 */
class WglReferenceTest {

    /** Some order of all ops, each after every op that completed before it was invoked, that the model accepts. */
    static <S, I, O> boolean linearizable(Model<S, I, O> model, List<LinOp<I, O>> ops) {
        return search(model, ops, 0L, model.initial(), new HashSet<>());
    }

    private static <S, I, O> boolean search(Model<S, I, O> model, List<LinOp<I, O>> ops, long placed, S state,
                                            Set<List<Object>> failed) {
        if (placed == (1L << ops.size()) - 1) {
            return true;
        }
        if (failed.contains(List.of(placed, state))) {
            return false;
        }
        for (int x = 0; x < ops.size(); x++) {
            if ((placed >>> x & 1) != 0 || !mayGoNext(ops, placed, x)) {
                continue;
            }
            S after = model.step(state, ops.get(x).input(), ops.get(x).output());
            if (after != null && search(model, ops, placed | 1L << x, after, failed)) {
                return true;
            }
        }
        failed.add(List.of(placed, state));
        return false;
    }

    private static <I, O> boolean mayGoNext(List<LinOp<I, O>> ops, long placed, int x) {
        for (int y = 0; y < ops.size(); y++) {
            if ((placed >>> y & 1) == 0 && ops.get(y).complete() < ops.get(x).invoke()) {
                return false;
            }
        }
        return true;
    }

    @Test
    void theSearchAgreesWithAPlainSearchOnSmallHistories() {
        var model = new KeyedModel<>(RegisterModel.withCas());
        int invalid = 0;
        for (long seed = 1; seed <= 1500; seed++) {
            var ops = PartitionedCheckTest.history(seed);
            if (ops.size() > 20) {
                continue;
            }
            boolean expected = linearizable(model, ops);
            var r = new LinearizabilityChecker<>(model, LinearizabilityChecker.Options.defaults())
                    .check(Map.of("all", ops));
            long s = seed;
            assertEquals(expected ? Verdict.VALID : Verdict.INVALID, r.verdict(), () -> "seed " + s + ": " + ops);
            if (!expected) {
                invalid++;
            }
        }
        assertTrue(invalid > 300 && invalid < 1200, "both verdicts covered: invalid " + invalid);
    }
}
