package io.faultline.harness;

import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The progress line of a run: phase, elapsed and remaining time, client ops ok/fail/info so far, and the faults
 * in force. Printed every few seconds from its own daemon thread.
 */
final class Progress implements AutoCloseable {
    private final RunLog log;
    private final long startNanos = System.nanoTime();
    private final AtomicReference<String> phase = new AtomicReference<>("provision");
    private final AtomicReference<HistoryRecorder> recorder = new AtomicReference<>();
    private final Supplier<List<String>> activeFaults;
    private final long plannedSeconds;
    private final Thread thread;
    private volatile boolean closed;

    Progress(RunLog log, long plannedSeconds, Supplier<List<String>> activeFaults, long periodMillis) {
        this.log = log;
        this.plannedSeconds = plannedSeconds;
        this.activeFaults = activeFaults;
        this.thread = new Thread(() -> {
            while (!closed) {
                try {
                    Thread.sleep(periodMillis);
                } catch (InterruptedException e) {
                    return;
                }
                if (!closed) log.line(line());
            }
        }, "faultline-progress");
        thread.setDaemon(true);
        thread.start();
    }

    void phase(String name) {
        phase.set(name);
        log.line("phase " + name + " (" + elapsedSeconds() + " s elapsed)");
    }

    String phase() {
        return phase.get();
    }

    void recorder(HistoryRecorder r) {
        recorder.set(r);
    }

    long elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1_000_000_000L;
    }

    String line() {
        long ok = 0, fail = 0, info = 0;
        HistoryRecorder r = recorder.get();
        if (r != null) {
            for (Op op : r.ops()) {
                if (op.process() == Op.NEMESIS) continue;
                if (op.type() == OpType.OK) ok++;
                else if (op.type() == OpType.FAIL) fail++;
                else if (op.type() == OpType.INFO) info++;
            }
        }
        long elapsed = elapsedSeconds();
        List<String> faults = activeFaults.get();
        return String.format("[%s] %ds elapsed, ~%ds left | ops ok %d fail %d info %d | faults: %s",
                phase.get(), elapsed, Math.max(0, plannedSeconds - elapsed), ok, fail, info,
                faults.isEmpty() ? "none" : String.join(", ", faults));
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
