package io.faultline.checker.queue;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Checker;
import io.faultline.checker.history.Op;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Jepsen's Kafka queue analysis: lost writes, unseen values, divergent offsets, duplicates, aborted and
 * precommitted reads, and skips / reversals in polls and sends. See {@link QueueAnomaly} for the categories.
 *
 * <pre>
 * CheckResult r = QueueChecker.forRun(usedSubscribe).check(history);
 * </pre>
 */
public final class QueueChecker implements Checker {

    /**
     * @param allowed     categories that are reported but do not make the run invalid
     * @param maxExamples examples kept per category
     */
    public record Options(Set<QueueAnomaly> allowed, int maxExamples) {
        public Options {
            allowed = allowed.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(allowed));
            if (maxExamples < 0) {
                throw new IllegalArgumentException("maxExamples must be ≥ 0");
            }
        }
    }

    public static final int DEFAULT_MAX_EXAMPLES = 8;

    private final Options options;

    public QueueChecker(Options options) {
        this.options = options;
    }

    /**
     * The usual allowances, as in Jepsen: interleaved sends from other producers make int-send-skip normal; with
     * subscribe, a rebalance may legitimately move a consumer, so poll-skip and nonmonotonic-poll are allowed too.
     */
    public static QueueChecker forRun(boolean subscribeUsed) {
        return new QueueChecker(new Options(allowedFor(subscribeUsed), DEFAULT_MAX_EXAMPLES));
    }

    public static Set<QueueAnomaly> allowedFor(boolean subscribeUsed) {
        return allowedFor(subscribeUsed, false);
    }

    /**
     * As {@link #allowedFor(boolean)}; {@code denseLog}: the workload writes without transactions to topics that are
     * not compacted, so every offset of the log holds a record and a hole a reader steps over ({@code offset-gap})
     * is forbidden. Without that promise (transaction markers take offsets; a read_committed reader skips aborted
     * records) holes are reported but allowed.
     */
    public static Set<QueueAnomaly> allowedFor(boolean subscribeUsed, boolean denseLog) {
        Set<QueueAnomaly> out = subscribeUsed
                ? EnumSet.of(QueueAnomaly.INT_SEND_SKIP, QueueAnomaly.POLL_SKIP, QueueAnomaly.NONMONOTONIC_POLL)
                : EnumSet.of(QueueAnomaly.INT_SEND_SKIP);
        if (!denseLog) out.add(QueueAnomaly.OFFSET_GAP);
        return out;
    }

    public Options options() {
        return options;
    }

    @Override
    public String name() {
        return "queue";
    }

    @Override
    public CheckResult analyze(List<Op> history) {
        return new QueueAnalysis(history, options).run(name());
    }
}
