package io.faultline.nemesis;

import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;

import java.util.List;

/**
 * Where fault ops are recorded: each op once when it starts and once when it ends, so a report can draw a band
 * from the fault to its heal. {@link #toHistory} writes them into the test's history as Jepsen does: two
 * {@code info} entries of process nemesis, the first with the requested value, the second with what was done.
 */
@FunctionalInterface
public interface FaultLog {
    void record(FaultEvent event);

    enum Phase { START, END }

    /**
     * @param timeNanos time on the context's clock (the history's time base when recording into a history)
     * @param value     the requested value at START, the description of what was done at END
     */
    record FaultEvent(Phase phase, String packageName, String f, String value, long timeNanos, String error) {}

    FaultLog NONE = event -> {};

    static FaultLog toHistory(HistoryRecorder recorder) {
        return event -> recorder.nemesis(OpType.INFO, event.f(), new OpValue.Text(event.value()), event.error());
    }

    /** Records into every given log, in order. */
    static FaultLog all(List<FaultLog> logs) {
        List<FaultLog> copy = List.copyOf(logs);
        return event -> copy.forEach(l -> l.record(event));
    }
}
