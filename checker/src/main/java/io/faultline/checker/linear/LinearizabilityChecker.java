package io.faultline.checker.linear;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Knossos-style linearizability: each key is its own object (P-compositionality: a history is linearizable iff
 * each object's sub-history is), checked by {@link Wgl} against a pure {@link Model}. Bounded in time (one
 * deadline for the whole check, from an injected clock) and in memo entries per key: past either bound a key is
 * unknown, with the reason. An empty history is linearizable (valid), as in Porcupine and Knossos. Never throws.
 *
 * <pre>
 * CheckResult r = new LinearizabilityChecker&lt;&gt;(RegisterModel.register(), options).check(opsByKey);
 * </pre>
 * The bounds ({@link Options}) are time, configurations explored and cache bytes per key ("memo entries" above);
 * a key stopped by one is unknown, and {@code error} and {@code stats.bounds} name the bound.
 */
public final class LinearizabilityChecker<S, I, O> {

    /**
     * @param timeLimit      for the whole check
     * @param maxConfigs     configurations explored per key before giving up
     * @param maxExamples    keys explained (and drawn) at most
     * @param nanoClock      time source (System::nanoTime in production, a manual clock in tests)
     * @param maxCacheBytes  bytes the configuration cache of one key may take (16 bytes a configuration at up to 64
     *                       concurrent ops, 8 more per further 64, at most 3/4 full); keys are checked one at a time
     */
    public record Options(Duration timeLimit, long maxConfigs, int maxExamples, LongSupplier nanoClock,
                          long maxCacheBytes) {
        /** The default cache bound: a quarter of the heap, at most 1 GiB. */
        public static long defaultCacheBytes() {
            return Math.min(1L << 30, Runtime.getRuntime().maxMemory() / 4);
        }

        public Options(Duration timeLimit, long maxConfigs, int maxExamples, LongSupplier nanoClock) {
            this(timeLimit, maxConfigs, maxExamples, nanoClock, defaultCacheBytes());
        }

        public static Options defaults() {
            return new Options(Duration.ofSeconds(60), 50_000_000, 8, System::nanoTime, defaultCacheBytes());
        }
    }

    private final Model<S, I, O> model;
    private final Options options;

    public LinearizabilityChecker(Model<S, I, O> model, Options options) {
        this.model = model;
        this.options = options;
    }

    public String name() {
        return "linearizable";
    }

    public CheckResult check(Map<String, List<LinOp<I, O>>> opsByKey) {
        try {
            return analyze(opsByKey);
        } catch (Throwable t) { // a verdict must come back, whatever the input
            return CheckResult.failure(name(), t);
        }
    }

    private CheckResult analyze(Map<String, List<LinOp<I, O>>> opsByKey) {
        long deadline = options.nanoClock().getAsLong() + options.timeLimit().toNanos();
        long bad = 0;
        long unknown = 0;
        long total = 0;
        Map<String, List<Example>> examples = new LinkedHashMap<>();
        List<Map<String, Object>> timelines = new ArrayList<>();
        List<String> gaveUp = new ArrayList<>();
        Map<String, Long> bounds = new LinkedHashMap<>();
        for (Map.Entry<String, List<LinOp<I, O>>> e : opsByKey.entrySet()) {
            List<LinOp<I, O>> ops = e.getValue();
            total += ops.size();
            var limits = new Wgl.Limits(options.nanoClock(), deadline, options.maxConfigs(), options.maxCacheBytes());
            Wgl.Outcome out = new Wgl<>(model, ops, limits).run();
            if (out instanceof Wgl.NotLinearizable nl) {
                bad++;
                if (timelines.size() < options.maxExamples()) {
                    timelines.add(timeline(e.getKey(), ops, nl));
                    List<Long> ids = new ArrayList<>();
                    nl.prefix().forEach(i -> ids.add(ops.get(i).id()));
                    ids.add(ops.get(nl.stuck()).id());
                    examples.computeIfAbsent("nonlinearizable", c -> new ArrayList<>())
                            .add(new Example("nonlinearizable", null, explain(e.getKey(), ops, nl), ids));
                }
            } else if (out instanceof Wgl.GaveUp g) {
                unknown++;
                bounds.merge(g.bound().text, 1L, Long::sum);
                if (gaveUp.size() < options.maxExamples()) {
                    gaveUp.add("key " + e.getKey() + " (" + ops.size() + " ops): " + g.reason());
                }
            }
        }
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("nonlinearizable", bad);
        counts.put("unknown", unknown);
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("keys", (long) opsByKey.size());
        stats.put("ops", total);
        if (!bounds.isEmpty()) {
            stats.put("bounds", bounds); // keys given up on, by the bound that stopped them
        }
        if (!timelines.isEmpty()) {
            stats.put("timelines", timelines);
        }
        // An empty history (no keys, or keys without ops) is linearizable, as Porcupine and Knossos have it: the
        // empty sequence is a legal linearization. Whether a run that did nothing proves anything is the caller's
        // question (the offsets workload's checker asks it).
        Verdict v = bad > 0 ? Verdict.INVALID : unknown > 0 ? Verdict.UNKNOWN : Verdict.VALID;
        String why = v != Verdict.UNKNOWN ? null : "gave up on " + String.join("; ", gaveUp);
        return new CheckResult(name(), v, counts, Set.of(), examples, stats, why);
    }

    private String explain(String key, List<LinOp<I, O>> ops, Wgl.NotLinearizable nl) {
        LinOp<I, O> stuck = ops.get(nl.stuck());
        StringBuilder sb = new StringBuilder("key " + key + ": ");
        if (nl.prefix().isEmpty()) {
            sb.append("no op can be linearized first");
        } else {
            sb.append("after linearizing ").append(nl.prefix().size()).append(" op(s), ending with op ")
                    .append(ops.get(nl.prefix().get(nl.prefix().size() - 1)).id());
        }
        sb.append(" (state ").append(stateText(nl.state())).append("), op ").append(stuck.id()).append(" (process ")
                .append(stuck.process()).append(", ").append(model.describe(stuck.input(), stuck.output()))
                .append(") cannot be placed before it returned");
        return sb.toString();
    }

    private static String stateText(Object state) {
        return RegisterModel.EMPTY.equals(state) ? "empty" : String.valueOf(state);
    }

    /** The data a Porcupine-style drawing needs: every op of the key, the prefix and the op that cannot be placed. */
    private Map<String, Object> timeline(String key, List<LinOp<I, O>> ops, Wgl.NotLinearizable nl) {
        List<Map<String, Object>> drawn = new ArrayList<>(ops.size());
        for (LinOp<I, O> o : ops) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", o.id());
            m.put("process", o.process());
            m.put("invoke", o.invoke());
            m.put("complete", o.indeterminate() ? null : o.complete());
            m.put("text", model.describe(o.input(), o.output()));
            drawn.add(m);
        }
        List<Long> prefix = new ArrayList<>();
        nl.prefix().forEach(i -> prefix.add(ops.get(i).id()));
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("key", key);
        t.put("ops", drawn);
        t.put("prefix", prefix);
        t.put("stuck", ops.get(nl.stuck()).id());
        t.put("state", stateText(nl.state()));
        return t;
    }
}
