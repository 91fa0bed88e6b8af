package io.faultline.checker.queue;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Checker;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Did a broker serve data that fails its own checksum? A consumer verifies each batch's CRC (check.crcs, on by
 * default) and a poll then fails with a CorruptRecordException: the broker kept a damaged batch (e.g. a torn write
 * that recovery should have cut) and handed it out. A broker must never serve one, whatever the faults, so a single
 * such poll makes the run invalid ("corrupt-read"). The client's error text names the cause (see the workload's
 * ErrorClassifier), which is all this checker reads.
 */
public final class CorruptReadChecker implements Checker {
    public static final String CATEGORY = "corrupt-read";
    private static final String MARK = "CorruptRecordException";
    private final int maxExamples;

    public CorruptReadChecker(int maxExamples) {
        if (maxExamples < 0) throw new IllegalArgumentException("maxExamples must be >= 0");
        this.maxExamples = maxExamples;
    }

    @Override
    public String name() {
        return "corrupt-read";
    }

    @Override
    public CheckResult analyze(List<Op> history) {
        long n = 0;
        long polls = 0;
        List<Example> examples = new ArrayList<>();
        for (Op op : history) {
            if (op.type() == OpType.INVOKE || !Op.POLL.equals(op.f())) continue;
            polls++;
            if (op.type() == OpType.OK || op.error() == null || !op.error().contains(MARK)) continue;
            n++;
            if (examples.size() < maxExamples) {
                examples.add(new Example(CATEGORY, null, "process " + op.process() + ": a poll failed its checksum: "
                        + op.error(), List.of(op.index())));
            }
        }
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put(CATEGORY, n);
        Map<String, List<Example>> ex = examples.isEmpty() ? Map.of() : Map.of(CATEGORY, List.copyOf(examples));
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("completed-polls", polls);
        Verdict v = n > 0 ? Verdict.INVALID : polls > 0 ? Verdict.VALID : Verdict.UNKNOWN;
        return new CheckResult(name(), v, counts, Set.of(), ex, stats, null);
    }
}
