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
 * Did a broker serve a batch its consumer could not decode? A consumer verifies each batch's CRC (check.crcs, on by
 * default) and parses its records; a damaged batch (e.g. a torn write that recovery should have cut) fails a poll
 * with a CorruptRecordException, or, as kafka-clients 4.4 reports it once the bad batch is at the consumer's
 * position, with a KafkaException "Received exception when fetching the next record … seek past the record". A
 * broker must never serve such a batch, whatever the faults (with String deserializers nothing else raises these),
 * so a single such poll makes the run invalid ("corrupt-read"). Only the ops' error text is read.
 */
public final class CorruptReadChecker implements Checker {
    public static final String CATEGORY = "corrupt-read";
    private static final List<String> MARKS = List.of("CorruptRecordException",
            "Received exception when fetching the next record");
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
            if (op.type() == OpType.OK || op.error() == null || MARKS.stream().noneMatch(op.error()::contains)) continue;
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
