package io.faultline.workloads.offsets;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Checker;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.linear.LinOp;
import io.faultline.checker.linear.LinearizabilityChecker;
import io.faultline.checker.linear.RegisterModel;
import io.faultline.checker.linear.RegisterHistories;
import io.faultline.checker.linear.RegisterOp;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The offsets history as registers, judged by the linearizability checker per (group, partition). From each
 * invoke/completion pair: an ok write is a write of its value; an info write may take effect any time after its
 * invocation or never; an ok read returned its value ("nil": nothing committed yet, the register's empty state);
 * failed ops and info reads tell nothing and are left out. Ops of other kinds (nemesis) are ignored. A history
 * with no completed write or read is unknown here (nothing was tested), though the linearizability checker itself
 * calls an empty history linearizable.
 */
public final class OffsetChecker implements Checker {
    private final String groupPrefix;
    private final LinearizabilityChecker<Long, RegisterOp, Object> linear;

    public OffsetChecker(String groupPrefix, LinearizabilityChecker.Options options) {
        this.groupPrefix = groupPrefix;
        this.linear = new LinearizabilityChecker<>(RegisterModel.register(), options);
    }

    @Override
    public String name() {
        return linear.name();
    }

    @Override
    public CheckResult analyze(List<Op> history) {
        // Writes cut off by a fault are indeterminate; the unread ones are dropped (exact for a plain register), or a
        // few hundred NOT_COORDINATOR answers during a partition make the search give up.
        Map<String, List<LinOp<RegisterOp, Object>>> registers = new java.util.LinkedHashMap<>();
        registers(history, groupPrefix).forEach((k, ops) -> registers.put(k, RegisterHistories.withoutUnreadIndeterminateWrites(ops)));
        if (registers.values().stream().allMatch(List::isEmpty)) {
            // Linearizable, but vacuously: a run in which no write or read completed (as Jepsen's stats checker
            // says) must not pass as valid.
            Map<String, Long> counts = new java.util.LinkedHashMap<>();
            counts.put("nonlinearizable", 0L);
            counts.put("unknown", 0L);
            Map<String, Object> stats = new java.util.LinkedHashMap<>();
            stats.put("keys", (long) registers.size());
            stats.put("ops", 0L);
            return new CheckResult(name(), Verdict.UNKNOWN, counts, Set.of(), Map.of(), stats,
                    "nothing to judge: no offsets write or read completed");
        }
        return linear.check(registers);
    }

    /** Per register name ("prefix-g0/1"), its ops in completion order. Throws on a malformed value. */
    public static Map<String, List<LinOp<RegisterOp, Object>>> registers(List<Op> history, String groupPrefix) {
        Map<Integer, Op> pending = new HashMap<>();
        Map<Integer, List<LinOp<RegisterOp, Object>>> byKey = new TreeMap<>();
        for (Op op : history) {
            if (op.process() < 0 || !(OffsetOps.WRITE.equals(op.f()) || OffsetOps.READ.equals(op.f()))) continue;
            if (op.type() == OpType.INVOKE) {
                pending.put(op.process(), op);
                continue;
            }
            Op inv = pending.remove(op.process());
            if (inv == null) continue; // a completion without its invocation (a torn history start): nothing to pair
            OffsetOps.KeyValue asked = OffsetOps.KeyValue.parse(inv.value());
            LinOp<RegisterOp, Object> lin = switch (op.type()) {
                case OK -> OffsetOps.WRITE.equals(op.f())
                        ? new LinOp<>(op.index(), op.process(), inv.time(), op.time(), new RegisterOp.Write(asked.value()), "ok")
                        : new LinOp<>(op.index(), op.process(), inv.time(), op.time(), RegisterOp.READ, readValue(op));
                case INFO -> OffsetOps.WRITE.equals(op.f())
                        ? new LinOp<>(op.index(), op.process(), inv.time(), LinOp.NEVER, new RegisterOp.Write(asked.value()), null)
                        : null;
                default -> null;
            };
            if (lin != null) byKey.computeIfAbsent(asked.key(), k -> new ArrayList<>()).add(lin);
        }
        Map<String, List<LinOp<RegisterOp, Object>>> named = new java.util.LinkedHashMap<>();
        byKey.forEach((k, ops) -> named.put(OffsetOps.keyName(groupPrefix, k), ops));
        return named;
    }

    private static Object readValue(Op completion) {
        Long v = OffsetOps.KeyValue.parse(completion.value()).value();
        return v == null ? RegisterModel.EMPTY : v;
    }
}
