package io.faultline.harness;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpValue;
import io.faultline.nemesis.membership.MembershipNemesis;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replica moves the system refused as malformed though they were not. The membership faults reassign a partition to
 * distinct brokers of the cluster (a permutation or a subset of its replicas, or brokers the nemesis drew from the
 * cluster), which Kafka's controller accepts whatever the faults are doing (it refuses an assignment only when it is
 * empty, repeats a broker or names one that is not registered): an {@code InvalidReplicaAssignmentException} for such
 * a move is the system misjudging a valid request. Other refusals (a controller not reachable, a timeout, a topic gone)
 * are what faults cause and are not judged. Pure: reads the history's nemesis ops; never throws.
 */
final class MembershipRefusals {
    static final String CHECKER = "membership", REFUSED = "valid-reassignment-refused";
    private static final String INVALID = "InvalidReplicaAssignmentException";
    private static final Pattern REPLICAS = Pattern.compile("replicas=\\[([0-9, ]*)]");

    private MembershipRefusals() {}

    /** Null when the run made no replica move (nothing to judge). */
    static CheckResult check(List<Op> history) {
        try {
            int moves = 0;
            List<Example> refused = new ArrayList<>();
            for (Op op : history) {
                if (op.process() != Op.NEMESIS || op.type() == io.faultline.checker.history.OpType.INVOKE) continue;
                if (!MembershipNemesis.REASSIGN.equals(op.f()) && !MembershipNemesis.MOVE.equals(op.f())) continue;
                moves++;
                if (op.error() == null || !op.error().contains(INVALID)) continue;
                String value = op.value() instanceof OpValue.Text t ? t.text() : String.valueOf(op.value());
                if (MembershipNemesis.REASSIGN.equals(op.f()) && !wellFormed(value)) continue;
                refused.add(new Example(REFUSED, null, op.f() + " " + value + " was refused as malformed: " + op.error(),
                        List.of(op.index())));
            }
            if (moves == 0) return null;
            return new CheckResult(CHECKER, refused.isEmpty() ? Verdict.VALID : Verdict.INVALID,
                    refused.isEmpty() ? Map.of() : Map.of(REFUSED, (long) refused.size()), Set.of(),
                    refused.isEmpty() ? Map.of() : Map.of(REFUSED, refused), Map.of("replica-moves", moves), null);
        } catch (RuntimeException e) {
            return CheckResult.failure(CHECKER, e);
        }
    }

    /** Whether a reassignment's replica list, as its op value words it, is non-empty and repeats no broker. */
    static boolean wellFormed(String value) {
        Matcher m = REPLICAS.matcher(value);
        if (!m.find() || m.group(1).isBlank()) return false;
        List<String> ids = List.of(m.group(1).split(",\\s*"));
        return new LinkedHashSet<>(ids).size() == ids.size();
    }
}
