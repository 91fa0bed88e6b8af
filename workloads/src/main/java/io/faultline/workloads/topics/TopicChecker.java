package io.faultline.workloads.topics;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Checker;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.linear.LinOp;
import io.faultline.checker.linear.LinearizabilityChecker;
import io.faultline.checker.linear.TopicModel;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The topics history judged per topic by the linearizability checker with {@link TopicModel}: acknowledged
 * creations, deletions and growths must form one order the controller could have applied, and the descriptions made
 * after the heal must show where it led. An indeterminate op may take effect at any time after its invocation, or
 * never; failed descriptions tell nothing. A history in which no creation was acknowledged tested nothing: unknown.
 */
public final class TopicChecker implements Checker {
    /** Prefix of this checker's anomaly names: {@code topic-nonlinearizable}. */
    public static final String ANOMALY_PREFIX = "topic-";
    private final String prefix;
    private final LinearizabilityChecker<Integer, TopicModel.Op, Object> linear;

    public TopicChecker(String prefix, LinearizabilityChecker.Options options) {
        this.prefix = prefix;
        this.linear = new LinearizabilityChecker<>(new TopicModel(), options);
    }

    @Override
    public String name() {
        return "topics";
    }

    @Override
    public CheckResult analyze(List<Op> history) {
        Map<String, List<LinOp<TopicModel.Op, Object>>> topics = topics(history, prefix);
        boolean anyCreated = topics.values().stream().flatMap(List::stream)
                .anyMatch(o -> o.input() instanceof TopicModel.Op.Create && o.output() != null);
        if (!anyCreated) {
            Map<String, Long> counts = new LinkedHashMap<>();
            counts.put(ANOMALY_PREFIX + "nonlinearizable", 0L);
            return new CheckResult(name(), Verdict.UNKNOWN, counts, Set.of(), Map.of(), Map.of("topics", (long) topics.size()),
                    "nothing to judge: no topic creation was acknowledged");
        }
        CheckResult r = linear.check(topics);
        // named apart from the offsets registers' "nonlinearizable" in the same run
        Map<String, Long> counts = new LinkedHashMap<>();
        r.counts().forEach((k, v) -> counts.put(ANOMALY_PREFIX + k, v));
        Map<String, List<io.faultline.checker.Example>> examples = new LinkedHashMap<>();
        r.examples().forEach((k, v) -> examples.put(ANOMALY_PREFIX + k, v));
        Set<String> allowed = new java.util.HashSet<>();
        r.allowed().forEach(a -> allowed.add(ANOMALY_PREFIX + a));
        return new CheckResult(name(), r.verdict(), counts, allowed, examples, r.stats(), r.error());
    }

    /** Per topic name, its ops in completion order. Throws on a malformed value. */
    public static Map<String, List<LinOp<TopicModel.Op, Object>>> topics(List<Op> history, String prefix) {
        Map<Integer, Op> pending = new HashMap<>();
        Map<Integer, List<LinOp<TopicModel.Op, Object>>> byKey = new TreeMap<>();
        for (Op op : history) {
            if (op.process() < 0 || !TopicOps.ALL.contains(op.f())) continue;
            if (op.type() == OpType.INVOKE) {
                pending.put(op.process(), op);
                continue;
            }
            Op inv = pending.remove(op.process());
            if (inv == null) continue;
            TopicOps.KeyValue asked = TopicOps.KeyValue.parse(inv.value());
            TopicModel.Op input = TopicOps.input(op.f(), asked);
            boolean read = TopicOps.DESCRIBE.equals(op.f());
            LinOp<TopicModel.Op, Object> lin = switch (op.type()) {
                case OK -> new LinOp<>(op.index(), op.process(), inv.time(), op.time(), input,
                        read ? (Object) TopicOps.KeyValue.parse(op.value()).partitions() : TopicModel.OK);
                case INFO -> read ? null : new LinOp<>(op.index(), op.process(), inv.time(), LinOp.NEVER, input, null);
                default -> null;
            };
            if (lin != null) byKey.computeIfAbsent(asked.key(), k -> new ArrayList<>()).add(lin);
        }
        Map<String, List<LinOp<TopicModel.Op, Object>>> named = new LinkedHashMap<>();
        byKey.forEach((k, ops) -> named.put(TopicOps.topic(prefix, k), ops));
        return named;
    }
}
