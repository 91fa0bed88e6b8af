package io.faultline.checker.linear;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.bench.MultiKeyRegisterHistory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * P-compositionality, checked against the definition: splitting a multi-key history per key gives the verdict of
 * one search over the whole history with a model of all keys at once, on random small histories (fixed seeds).
 */
class PartitionedCheckTest {
    static final LinearizabilityChecker.Options OPTIONS = LinearizabilityChecker.Options.defaults();

    /** A correct history over a few keys, then some reads and swaps made to return something else. */
    static List<LinOp<Keyed<RegisterOp>, Object>> history(long seed) {
        List<LinOp<Keyed<RegisterOp>, Object>> ops = new ArrayList<>();
        MultiKeyRegisterHistory.generate(seed, 3, 5, 1 + (int) (seed % 3), 4, true,
                (key, op) -> ops.add(new LinOp<>(op.id(), op.process(), op.invoke(), op.complete(),
                        new Keyed<>(key, op.input()), op.output())));
        Random rnd = new Random(seed * 7919);
        if (seed % 4 != 0) {
            for (int i = 0; i < ops.size(); i++) {
                LinOp<Keyed<RegisterOp>, Object> o = ops.get(i);
                Object out = o.output();
                if (o.input().input() instanceof RegisterOp.Read && rnd.nextInt(5) == 0) {
                    out = rnd.nextInt(4) == 0 ? (Object) (-42L) : (Object) (long) (1 + rnd.nextInt(ops.size()));
                } else if (o.input().input() instanceof RegisterOp.Cas && out != null && rnd.nextInt(5) == 0) {
                    out = !(Boolean) out;
                }
                ops.set(i, new LinOp<>(o.id(), o.process(), o.invoke(), o.complete(), o.input(), out));
            }
        }
        return ops;
    }

    static CheckResult partitioned(List<LinOp<Keyed<RegisterOp>, Object>> ops) {
        return new LinearizabilityChecker<>(RegisterModel.withCas(), OPTIONS).check(KeyedModel.partition(ops));
    }

    static CheckResult whole(List<LinOp<Keyed<RegisterOp>, Object>> ops) {
        return new LinearizabilityChecker<>(new KeyedModel<>(RegisterModel.withCas()), OPTIONS)
                .check(Map.of("all", ops));
    }

    @Test
    void partitionedAndWholeHistoryVerdictsAgree() {
        int invalid = 0;
        int multiKey = 0;
        for (long seed = 1; seed <= 500; seed++) {
            var ops = history(seed);
            CheckResult whole = whole(ops);
            CheckResult parts = partitioned(ops);
            assertNotEquals(Verdict.UNKNOWN, whole.verdict(), "small histories are decided");
            long s = seed;
            assertEquals(whole.verdict(), parts.verdict(), () -> "seed " + s + ": " + ops);
            if (whole.verdict() == Verdict.INVALID) {
                invalid++;
                if (KeyedModel.partition(ops).size() > 1) {
                    multiKey++;
                }
            }
        }
        assertTrue(invalid > 100 && invalid < 450 && multiKey > 50,
                "both verdicts covered, on multi-key histories: invalid " + invalid + ", multi-key " + multiKey);
    }

    @Test
    void theNonLinearizableKeyIsNamed() {
        List<LinOp<Keyed<RegisterOp>, Object>> ops = new ArrayList<>();
        MultiKeyRegisterHistory.generate(3, 4, 300, 5, 0, false,
                (key, op) -> ops.add(new LinOp<>(op.id(), op.process(), op.invoke(), op.complete(),
                        new Keyed<>(key, op.input()), op.output())));
        assertEquals(Verdict.VALID, partitioned(ops).verdict());
        int bad = -1;
        for (int i = ops.size() / 2; bad < 0; i++) {
            if (ops.get(i).input().key().equals("k3") && ops.get(i).input().input() instanceof RegisterOp.Read) {
                bad = i;
            }
        }
        LinOp<Keyed<RegisterOp>, Object> o = ops.get(bad);
        ops.set(bad, new LinOp<>(o.id(), o.process(), o.invoke(), o.complete(), o.input(), -42L));
        CheckResult r = partitioned(ops);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(1L, r.count("nonlinearizable"));
        assertEquals(5L, r.stats().get("keys"));
        String why = r.examples("nonlinearizable").get(0).explanation();
        assertTrue(why.startsWith("key k3: ") && why.contains("op " + o.id() + " (process " + o.process()
                + ", read → -42) cannot be placed"), why);
        @SuppressWarnings("unchecked")
        var timeline = ((List<Map<String, Object>>) r.stats().get("timelines")).get(0);
        assertEquals("k3", timeline.get("key"));
        assertEquals(o.id(), timeline.get("stuck"));
    }
}
