package io.faultline.results;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Hand-made histories and check results for report tests: deterministic, no randomness. */
final class SyntheticRun {

    static final Instant STARTED = Instant.parse("2026-11-03T10:00:00Z");
    static final long MS = 1_000_000L;
    static final long S = 1_000_000_000L;

    private final List<Op> ops = new ArrayList<>();

    /** Appends an op at {@code time} nanos; returns its index. */
    long add(OpType type, int process, long time, String f, OpValue value, String error) {
        long index = ops.size();
        ops.add(new Op(index, type, process, time, f, value, error));
        return index;
    }

    List<Op> ops() {
        return List.copyOf(ops);
    }

    /**
     * {@code seconds} seconds of 3 processes sending and polling every 100 ms, a partition from 10 s to 20 s (ops
     * fail during it), a kill from 25 s never stopped, and a clock point event. Ops at 12 s are slow.
     */
    static SyntheticRun withFaults(int seconds) {
        SyntheticRun r = new SyntheticRun();
        long value = 0;
        boolean partitionStarted = false, partitionStopped = false, killStarted = false;
        for (long t = 0; t < seconds * S; t += 100 * MS) {
            if (!partitionStarted && t >= 10 * S) {
                r.add(OpType.INFO, Op.NEMESIS, t, "start-partition", new OpValue.Text("isolate n1"), null);
                partitionStarted = true;
            }
            if (!partitionStopped && t >= 20 * S) {
                r.add(OpType.INFO, Op.NEMESIS, t, "stop-partition", new OpValue.Text("heal"), null);
                partitionStopped = true;
            }
            if (!killStarted && t >= 25 * S) {
                r.add(OpType.INFO, Op.NEMESIS, t, "start-kill", new OpValue.Text("kill n2"), null);
                r.add(OpType.INFO, Op.NEMESIS, t + MS, "bump-clock", new OpValue.Text("n3 +30s"), null);
                killStarted = true;
            }
            boolean inPartition = t >= 10 * S && t < 20 * S;
            for (int p = 0; p < 3; p++) {
                long latency = (t / S == 12 ? 400 : 5 + p) * MS;
                if (p < 2) {
                    long v = value++;
                    r.add(OpType.INVOKE, p, t + p * MS, "send", OpValue.Txn.of(MicroOp.Send.invoke(p, v)), null);
                    OpType outcome = inPartition && p == 0 ? OpType.FAIL : inPartition ? OpType.INFO : OpType.OK;
                    r.add(outcome, p, t + p * MS + latency, "send",
                            OpValue.Txn.of(outcome == OpType.OK ? new MicroOp.Send(p, v, v) : MicroOp.Send.invoke(p, v)),
                            outcome == OpType.OK ? null : "timeout");
                } else {
                    r.add(OpType.INVOKE, p, t + p * MS, "poll", OpValue.Txn.of(MicroOp.Poll.invoke()), null);
                    r.add(inPartition ? OpType.FAIL : OpType.OK, p, t + p * MS + latency, "poll",
                            OpValue.Txn.of(MicroOp.poll(Map.of(0, List.of(MicroOp.rec(value, value))))),
                            inPartition ? "not leader" : null);
                }
            }
        }
        return r;
    }

    /** An invalid queue result with two lost writes and one duplicate, naming ops of this history. */
    static Map<String, CheckResult> invalidChecks(List<Long> lostOps, List<Long> duplicateOps) {
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("lost-write", 2L);
        counts.put("duplicate", 1L);
        counts.put("unseen", 0L);
        counts.put("int-send-skip", 3L);
        Map<String, List<Example>> examples = new LinkedHashMap<>();
        examples.put("lost-write", List.of(
                new Example("lost-write", 0, "value 42 of key 0 was acknowledged at offset 42 but never read",
                        List.of(lostOps.get(0))),
                new Example("lost-write", 1, "value 43 of key 1 was acknowledged but never read",
                        List.of(lostOps.get(1)))));
        examples.put("duplicate", List.of(
                new Example("duplicate", 0, "value 7 appears at offsets 7 and 9", duplicateOps)));
        CheckResult queue = new CheckResult("queue", Verdict.INVALID, counts, Set.of("int-send-skip"), examples,
                Map.of("ops", 100), null);
        CheckResult total = new CheckResult("total-queue", Verdict.INVALID, Map.of("lost-write", 2L), Set.of(),
                Map.of(), Map.of(), null);
        Map<String, CheckResult> checks = new LinkedHashMap<>();
        checks.put("queue", queue);
        checks.put("total-queue", total);
        return checks;
    }

    static Map<String, Object> parameters() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("seed", 12345);
        p.put("acks", "all");
        p.put("nemesis", List.of("partition", "kill"));
        p.put("versions", Map.of("faultline", "0.1.0-SNAPSHOT", "kafka", "4.4.0"));
        // as TestRunner records them: phase → seconds, in order
        p.put(HtmlReport.PHASES_KEY, List.of(Map.of("phase", "cluster start", "seconds", 12.25),
                Map.of("phase", "workload", "seconds", 40.0)));
        return p;
    }
}
