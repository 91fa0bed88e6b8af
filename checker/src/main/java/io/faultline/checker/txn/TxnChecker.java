package io.faultline.checker.txn;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Checker;
import io.faultline.checker.history.Op;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Elle-style analysis of transactional queue histories: version order per key from offsets, ww / wr / rw
 * dependencies plus process and realtime order, cycles through strongly connected components with a shortest
 * cycle in each, classified as G0, G1c, G-single, G2-item (and their -process / -realtime forms), plus aborted
 * (G1a) and intermediate (G1b) reads. Each cycle is explained in words and kept as data for drawing.
 *
 * <pre>
 * CheckResult r = TxnChecker.forKafka().check(history);   // never throws
 * </pre>
 */
public final class TxnChecker implements Checker {

    /**
     * @param wwDeps      infer ww edges from offset order (Jepsen's :ww-deps)
     * @param rwDeps      infer rw (anti-dependency) edges: a read of a key that ended just before another
     *                    transaction's write
     * @param allowed     categories that are reported but do not make the history invalid
     * @param maxExamples examples kept per category
     * @param maxTriesPerComponent start edges tried per component and search, bounding the search on huge tangles
     */
    public record Options(boolean wwDeps, boolean rwDeps, Set<String> allowed, int maxExamples,
                          int maxTriesPerComponent) {
        public Options {
            allowed = Set.copyOf(allowed);
            if (maxExamples < 0 || maxTriesPerComponent < 1) {
                throw new IllegalArgumentException("maxExamples ≥ 0 and maxTriesPerComponent ≥ 1");
            }
        }
    }

    public static final int DEFAULT_MAX_EXAMPLES = 8;

    private final Options options;

    public TxnChecker(Options options) {
        this.options = options;
    }

    /** Every edge kind, nothing allowed: the strict reading (serializable, strict where realtime edges count). */
    public static TxnChecker strict() {
        return new TxnChecker(new Options(true, true, Set.of(), DEFAULT_MAX_EXAMPLES, 16));
    }

    /**
     * Kafka's promises as Jepsen's kafka checker reads them: writes are not isolated (ww cycles, G0, allowed),
     * polls are bounded so a read ending early proves nothing (no rw edges; G-single and G2-item allowed), a
     * poll may stop inside another transaction's writes (G1b allowed); aborted reads and, without ww edges,
     * circular information flow (G1c) are forbidden.
     */
    public static TxnChecker forKafka(boolean wwDeps) {
        Set<String> allowed = new HashSet<>();
        for (String suffix : List.of("", "-process", "-realtime")) {
            allowed.add("G0" + suffix);
            allowed.add("G-single" + suffix);
            allowed.add("G2-item" + suffix);
            if (wwDeps) {
                allowed.add("G1c" + suffix);
            }
        }
        allowed.add(TxnAnomaly.G1B);
        return new TxnChecker(new Options(wwDeps, false, allowed, DEFAULT_MAX_EXAMPLES, 16));
    }

    public Options options() {
        return options;
    }

    @Override
    public String name() {
        return "txn";
    }

    @Override
    public CheckResult analyze(List<Op> history) {
        return new TxnAnalysis(history, options).run(name());
    }
}
