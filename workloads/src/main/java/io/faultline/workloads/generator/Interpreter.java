package io.faultline.workloads.generator;

import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Runs a generator against clients, as Jepsen's interpreter does: one dispatcher (the calling thread) owns the
 * generator; one worker thread per client executes ops and records them through the {@link HistoryRecorder}.
 * After an {@code info} completion the worker closes its client and opens a fresh one: the recorder has retired
 * the process, and the new process must not inherit the old one's state.
 */
public final class Interpreter {
    /** Longest the dispatcher sleeps before asking a pending generator again (time-based wrappers need this). */
    private static final long IDLE_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** Tells a worker to close its client and exit; compared by identity. */
    private static final Invocation STOP = new Invocation(-1, 0, "stop", io.faultline.checker.history.OpValue.None.INSTANCE);

    private final HistoryRecorder recorder;
    private final Client.Factory clients;

    /** How long stopping waits, in all, for workers to finish their ops before interrupting them. */
    private static final java.time.Duration STOP_WAIT = java.time.Duration.ofSeconds(30);
    /** How long it then waits, in all, for the interrupted ones. */
    private static final java.time.Duration INTERRUPTED_WAIT = java.time.Duration.ofSeconds(5);

    public Interpreter(HistoryRecorder recorder, Client.Factory clients) {
        this.recorder = recorder;
        this.clients = clients;
    }

    /**
     * One worker's claim on its thread: once the dispatcher has abandoned it, the worker must not start another op
     * (guarded by the instance, so an op is either invoked before the abandonment, and closed by it, or not at all).
     */
    private static final class Claim {
        boolean abandoned;

        synchronized boolean isAbandoned() {
            return abandoned;
        }
    }

    /** A completion handed back to the dispatcher; {@code failure} is set if the worker itself broke. */
    private record Done(int thread, Op op, Throwable failure) {
    }

    /** Runs {@code gen} to exhaustion and waits for every op it started. Returns the number of ops completed. */
    public long run(Gen gen) throws InterruptedException {
        return run(gen, null);
    }

    /** {@link #run(Gen, java.time.Duration, AtEnd)} with nothing to do when the generator ends. */
    public long run(Gen gen, java.time.Duration stopGrace) throws InterruptedException {
        try {
            return run(gen, stopGrace, null);
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e); // no hook, nothing else throws
        }
    }

    /** Run by the dispatcher once, as soon as the generator has ended, while ops may still be in flight. */
    @FunctionalInterface
    public interface AtEnd {
        void run() throws Exception;
    }

    /**
     * Runs {@code gen} to exhaustion; then runs {@code atEnd} (if given) at once, while the ops still in flight go
     * on, and gives those ops at most {@code stopGrace} more (null: as long as they take). An op still running after
     * that stays in the history, completed as {@code info}: it may or may not take effect, as with a client timeout;
     * its worker's late completion is dropped and its thread starts a fresh process in the next phase. So a phase
     * with a time limit ends within {@code atEnd} plus the grace, whatever the clients' own timeouts are; and an op
     * stuck behind a fault that {@code atEnd} heals still completes for real. Returns the number of ops completed
     * (abandoned ones included).
     */
    public long run(Gen gen, java.time.Duration stopGrace, AtEnd atEnd) throws Exception {
        int threads = recorder.threadCount();
        BlockingQueue<Done> completions = new LinkedBlockingQueue<>();
        List<BlockingQueue<Invocation>> inboxes = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        List<Claim> claims = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            BlockingQueue<Invocation> inbox = new LinkedBlockingQueue<>();
            inboxes.add(inbox);
            Claim claim = new Claim();
            claims.add(claim);
            int thread = t;
            Thread w = new Thread(() -> work(thread, inbox, completions, claim), "faultline-worker-" + t);
            w.setDaemon(true);
            workers.add(w);
            w.start();
        }
        TreeSet<Integer> free = new TreeSet<>();
        for (int t = 0; t < threads; t++) {
            free.add(t);
        }
        long[] completed = {0};
        long doneAt = -1; // when the generator was first seen finished with ops still running
        try {
            while (true) {
                // Fold in everything that has completed so far, in completion order.
                for (Done d = completions.poll(); d != null; d = completions.poll()) {
                    gen = absorb(gen, d, free, threads, completed);
                }
                Context ctx = context(free, threads);
                Step step = gen.next(ctx);
                if (step instanceof Step.Done) {
                    if (atEnd != null) {
                        AtEnd hook = atEnd;
                        atEnd = null; // once: a generator may go on reporting done
                        hook.run();
                        continue; // fold in what completed meanwhile; the grace counts from here
                    }
                    if (free.size() == threads) {
                        return completed[0];
                    }
                    if (doneAt < 0) doneAt = ctx.time();
                    if (stopGrace != null && ctx.time() - doneAt >= stopGrace.toNanos()) {
                        abandonBusy(free, claims, stopGrace, completed);
                        return completed[0];
                    }
                    step = Step.PENDING; // finished, but ops are still running: wait for them
                } else {
                    doneAt = -1;
                    if (free.isEmpty()) step = Step.PENDING;
                }
                long waitNanos = IDLE_POLL_NANOS;
                if (step instanceof Step.Emit e) {
                    long wait = e.op().time() - ctx.time();
                    if (wait <= 0) {
                        int t = e.op().thread();
                        if (!free.remove(t)) {
                            throw new IllegalStateException("generator emitted an op for busy thread " + t + ": "
                                    + e.op());
                        }
                        gen = e.next();
                        inboxes.get(t).add(e.op());
                        continue;
                    }
                    // Not yet: sleep until then unless something completes first; either way, ask again.
                    waitNanos = Math.min(wait, IDLE_POLL_NANOS * 10);
                }
                Done d = completions.poll(waitNanos, TimeUnit.NANOSECONDS);
                if (d != null) {
                    gen = absorb(gen, d, free, threads, completed);
                }
            }
        } finally {
            // Ask politely first, so clients close cleanly; interrupt only a worker that does not stop in time.
            for (BlockingQueue<Invocation> inbox : inboxes) {
                inbox.add(STOP);
            }
            // A worker whose op is abandoned already (closed as info) ends on its own once its call returns (bounded
            // by the client's timeouts) and closes its client then; interrupting it would cut that close short.
            List<Integer> waited = new ArrayList<>();
            for (int t = 0; t < workers.size(); t++) if (!claims.get(t).isAbandoned()) waited.add(t);
            // One deadline for all of them, not one per worker: ten workers stuck in client calls once held an
            // interrupted run in its workload phase for minutes (30 s each, one after another).
            joinAll(workers, waited, STOP_WAIT);
            for (int t : waited) workers.get(t).interrupt(); // a no-op for the ones that stopped
            joinAll(workers, waited, INTERRUPTED_WAIT);
            for (int t : waited) {
                if (workers.get(t).isAlive()) {
                    // Still stuck in a client call: its op may or may not happen. Close it as info so the next
                    // phase can use this thread; the stuck call's late completion is dropped.
                    recorder.abandon(t, "worker did not stop: abandoned as indeterminate");
                }
            }
        }
    }

    /** Waits until every listed worker has ended or {@code bound} has passed, whichever is first. */
    private static void joinAll(List<Thread> workers, List<Integer> which, java.time.Duration bound)
            throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        for (int t : which) {
            long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (leftMs <= 0) return;
            workers.get(t).join(leftMs);
        }
    }

    /** Closes every op still running as info and abandons its thread (see {@link #run(Gen, java.time.Duration)}). */
    private void abandonBusy(TreeSet<Integer> free, List<Claim> claims, java.time.Duration grace, long[] completed) {
        for (int t = 0; t < claims.size(); t++) {
            if (free.contains(t)) continue;
            synchronized (claims.get(t)) {
                claims.get(t).abandoned = true;
                recorder.abandon(t, "still running " + grace.toMillis() + " ms after the phase's generator ended: indeterminate");
            }
            completed[0]++; // closed as info here, or completed just now and not yet handed back
        }
    }

    private Gen absorb(Gen gen, Done d, TreeSet<Integer> free, int threads, long[] completed) {
        if (d.failure() != null) {
            // E.g. the history file cannot be written: carrying on would produce a history we cannot trust.
            throw new IllegalStateException("worker " + d.thread() + " failed", d.failure());
        }
        free.add(d.thread());
        completed[0]++;
        return gen.update(context(free, threads), d.op());
    }

    private Context context(TreeSet<Integer> free, int threads) {
        return new Context(recorder.now(), threads, new ArrayList<>(free));
    }

    private void work(int thread, BlockingQueue<Invocation> inbox, BlockingQueue<Done> completions, Claim claim) {
        Client client = null;
        try {
            while (true) {
                Invocation inv = inbox.take();
                if (inv == STOP) {
                    return;
                }
                if (client == null) {
                    client = openQuietly(thread);
                }
                Op invoked;
                synchronized (claim) {
                    if (claim.abandoned) return; // dispatched, never invoked: the phase has moved on without it
                    invoked = recorder.invoke(thread, inv.f(), inv.value());
                }
                Client.Completion c;
                if (client == null) {
                    c = new Client.Completion(OpType.FAIL, inv.value(), "client could not be opened");
                } else {
                    try {
                        c = client.invoke(inv.f(), inv.value());
                    } catch (RuntimeException | StackOverflowError | LinkageError | AssertionError ex) {
                        // a client's bug, ours or its library's (kafka-clients overflowed its stack chaining the
                        // futures of a batch the broker made it split again and again): we cannot know what happened.
                        // Other errors (out of memory) leave nothing to trust, and stop the run.
                        c = new Client.Completion(OpType.INFO, inv.value(), "client threw: " + ex);
                    }
                }
                Op done = recorder.completeIfOpen(thread, invoked, c.type(), c.value(), c.error());
                if (done == null) {
                    return; // abandoned while stuck: the run has moved on without this worker
                }
                if (c.type() == OpType.INFO && client != null) {
                    closeQuietly(client);
                    client = null; // reopened lazily, for the new process
                }
                completions.add(new Done(thread, done, null));
            }
        } catch (InterruptedException stop) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error broken) {
            completions.add(new Done(thread, null, broken));
        } finally {
            if (client != null) {
                closeQuietly(client);
            }
        }
    }

    private Client openQuietly(int thread) {
        try {
            return clients.open(thread);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static void closeQuietly(Client c) {
        try {
            c.close();
        } catch (RuntimeException ignored) {
            // closing a broken client may fail; the fresh one does not depend on it
        }
    }
}
