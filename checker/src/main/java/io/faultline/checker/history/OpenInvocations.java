package io.faultline.checker.history;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Closes what a history left open. A run that crashed or was interrupted can end with invocations that never
 * got a completion; as Jepsen does, each is completed as {@code info} (it may or may not have happened) at the
 * end of the history, so checkers treat its values as indeterminate rather than unexpected.
 */
public final class OpenInvocations {
    public static final String NO_COMPLETION = "no completion recorded: the run ended first";

    private OpenInvocations() {}

    /** The history with an info completion appended for every process whose last invocation is open. */
    public static List<Op> completeAsInfo(List<Op> history) {
        Map<Integer, Op> open = new LinkedHashMap<>();
        long lastIndex = -1, lastTime = 0;
        for (Op op : history) {
            lastIndex = Math.max(lastIndex, op.index());
            lastTime = Math.max(lastTime, op.time());
            if (op.process() == Op.NEMESIS) continue;
            if (op.type() == OpType.INVOKE) open.put(op.process(), op);
            else open.remove(op.process());
        }
        if (open.isEmpty()) return history;
        List<Op> out = new ArrayList<>(history);
        for (Op invoke : open.values()) {
            out.add(new Op(++lastIndex, OpType.INFO, invoke.process(), lastTime, invoke.f(), invoke.value(), NO_COMPLETION));
        }
        return out;
    }
}
