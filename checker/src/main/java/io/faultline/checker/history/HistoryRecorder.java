package io.faultline.checker.history;

import com.fasterxml.jackson.core.JsonGenerator;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Thread-safe history log. Worker threads ("threads", 0..n-1) invoke and complete operations; the recorder assigns
 * each op its index and time, maps the thread to its current process, enforces Jepsen's discipline (one open
 * invocation per process, completed by that same process) and, after an {@code info} completion, retires the
 * process: the thread's next process id is {@code old + threadCount}, as in Jepsen.
 *
 * <p>When given a file, every op is appended as one JSON line and flushed before the call returns, so a run that
 * dies keeps everything recorded up to that moment (flushed to the OS, not fsynced).
 */
public final class HistoryRecorder implements AutoCloseable {
    private final int threadCount;
    private final int[] processOfThread;
    private final Op[] openInvocation;
    private final List<Op> ops = new ArrayList<>();
    private final Writer out; // null: in memory only
    private final JsonGenerator json;
    private final LongSupplier clock;
    private final long start;
    private long nextIndex;

    private HistoryRecorder(int threadCount, Writer out, LongSupplier clock) {
        if (threadCount < 1) {
            throw new IllegalArgumentException("threadCount must be ≥ 1");
        }
        this.threadCount = threadCount;
        this.processOfThread = new int[threadCount];
        for (int t = 0; t < threadCount; t++) {
            processOfThread[t] = t;
        }
        this.openInvocation = new Op[threadCount];
        this.out = out;
        this.clock = clock;
        this.start = clock.getAsLong();
        try {
            this.json = out == null ? null : HistoryJson.FACTORY.createGenerator(out);
            if (json != null) {
                json.setRootValueSeparator(null); // we end each line ourselves
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Records to memory and appends to {@code jsonl} (created or truncated). */
    public static HistoryRecorder toFile(Path jsonl, int threadCount) throws IOException {
        Path parent = jsonl.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        // A FileOutputStream, not Files.newBufferedWriter: the latter writes through an interruptible channel
        // that one interrupt of any recording thread (a worker stopped mid-call, Ctrl-C) closes for good.
        BufferedWriter w = new BufferedWriter(new java.io.OutputStreamWriter(
                new java.io.FileOutputStream(jsonl.toFile(), false), StandardCharsets.UTF_8));
        return new HistoryRecorder(threadCount, w, System::nanoTime);
    }

    public static HistoryRecorder inMemory(int threadCount) {
        return new HistoryRecorder(threadCount, null, System::nanoTime);
    }

    /** For tests: a recorder with a controllable clock (nanoseconds). */
    public static HistoryRecorder inMemory(int threadCount, LongSupplier clock) {
        return new HistoryRecorder(threadCount, null, clock);
    }

    public int threadCount() {
        return threadCount;
    }

    /** Nanoseconds since this recorder was created: the history's time base. */
    public long now() {
        return clock.getAsLong() - start;
    }

    public synchronized int processOf(int thread) {
        return processOfThread[checkThread(thread)];
    }

    /** Starts an operation on {@code thread}'s current process. */
    public synchronized Op invoke(int thread, String f, OpValue value) {
        checkThread(thread);
        if (openInvocation[thread] != null) {
            throw new IllegalStateException("thread " + thread + " already has an open invocation: "
                    + openInvocation[thread]);
        }
        Op op = new Op(nextIndex++, OpType.INVOKE, processOfThread[thread], now(), f, value, null);
        openInvocation[thread] = op;
        append(op);
        return op;
    }

    /** Completes {@code thread}'s open invocation. An {@link OpType#INFO} completion retires the process. */
    public synchronized Op complete(int thread, OpType type, OpValue value, String error) {
        checkThread(thread);
        if (type == OpType.INVOKE) {
            throw new IllegalArgumentException("a completion cannot be an invoke");
        }
        Op inv = openInvocation[thread];
        if (inv == null) {
            throw new IllegalStateException("thread " + thread + " has no open invocation");
        }
        Op op = new Op(nextIndex++, type, inv.process(), now(), inv.f(), value, error);
        openInvocation[thread] = null;
        if (type == OpType.INFO) {
            processOfThread[thread] += threadCount;
        }
        append(op);
        return op;
    }

    /**
     * Completes {@code invocation} only if it is still {@code thread}'s open invocation; returns null (and records
     * nothing) when it was abandoned meanwhile, so a late answer never completes someone else's op.
     */
    public synchronized Op completeIfOpen(int thread, Op invocation, OpType type, OpValue value, String error) {
        checkThread(thread);
        return openInvocation[thread] == invocation ? complete(thread, type, value, error) : null;
    }

    /**
     * Gives up on {@code thread}'s open invocation, if any: records it as {@code info} (it may or may not have
     * happened) and retires the process, so the thread can start afresh while the stuck call finishes on its own.
     * Returns the completion, or null when nothing was open.
     */
    public synchronized Op abandon(int thread, String why) {
        checkThread(thread);
        Op inv = openInvocation[thread];
        return inv == null ? null : complete(thread, OpType.INFO, inv.value(), why);
    }

    /** Records a fault-injection event (process {@link Op#NEMESIS}); no invoke/complete pairing is enforced. */
    public synchronized Op nemesis(OpType type, String f, OpValue value, String error) {
        Op op = new Op(nextIndex++, type, Op.NEMESIS, now(), f, value, error);
        append(op);
        return op;
    }

    /** A snapshot of everything recorded so far, in index order. */
    public synchronized List<Op> ops() {
        return List.copyOf(ops);
    }

    private void append(Op op) {
        ops.add(op);
        if (json != null) {
            try {
                HistoryJson.write(json, op);
                json.flush();
                out.write('\n');
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot append to history file", e);
            }
        }
    }

    private int checkThread(int thread) {
        if (thread < 0 || thread >= threadCount) {
            throw new IllegalArgumentException("no thread " + thread + " (threads: " + threadCount + ")");
        }
        return thread;
    }

    @Override
    public synchronized void close() throws IOException {
        if (json != null) {
            json.close();
        }
    }
}
