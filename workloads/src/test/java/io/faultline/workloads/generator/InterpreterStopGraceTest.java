package io.faultline.workloads.generator;

import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A phase's end is bounded: ops still in flight a grace after its generator ended stay in the history as info. */
@Timeout(60)
class InterpreterStopGraceTest {
    /** "stuck" blocks until the test lets it go, then reports ok; anything else completes ok at once. */
    private static final class Clients implements Client.Factory {
        final CountDownLatch stuckClosed = new CountDownLatch(1);
        final CountDownLatch never = new CountDownLatch(1); // released by the test

        @Override
        public Client open(int thread) {
            return new Client() {
                boolean stuck;

                public Completion invoke(String f, OpValue value) {
                    if (!f.equals("stuck")) return Completion.ok(value);
                    stuck = true;
                    try {
                        never.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return Completion.ok(value); // too late: the interpreter has closed it as info already
                }

                public void close() {
                    if (stuck) stuckClosed.countDown();
                }
            };
        }
    }

    @Test
    void anOpStillRunningAfterTheGraceIsClosedAsInfoAndItsLateCompletionDropped() throws Exception {
        // the history's clock moves 10 ms per read: the grace passes without any real waiting or timing
        AtomicLong nanos = new AtomicLong();
        HistoryRecorder rec = HistoryRecorder.inMemory(2, () -> nanos.addAndGet(10_000_000));
        Clients clients = new Clients();
        Interpreter interpreter = new Interpreter(rec, clients);
        Gen gen = Gens.seq(Gens.once(Gens.op("stuck", OpValue.None.INSTANCE)), Gens.once(Gens.op("quick", OpValue.None.INSTANCE)));

        long completed = interpreter.run(gen, Duration.ofSeconds(1));

        assertEquals(2, completed);
        List<Op> h = rec.ops();
        Op stuckInvoke = h.stream().filter(o -> o.f().equals("stuck") && o.type() == OpType.INVOKE).findFirst().orElseThrow();
        Op stuckDone = h.stream().filter(o -> o.f().equals("stuck") && o.type() != OpType.INVOKE).findFirst().orElseThrow();
        assertEquals(OpType.INFO, stuckDone.type(), "indeterminate, not dropped");
        assertEquals(stuckInvoke.process(), stuckDone.process());
        assertTrue(stuckDone.error().contains("1000 ms after"), stuckDone.error());
        assertTrue(h.stream().anyMatch(o -> o.f().equals("quick") && o.type() == OpType.OK));

        // the stuck call returns "ok" late: that must not reach the history, and the worker then ends and closes its client
        clients.never.countDown();
        assertTrue(clients.stuckClosed.await(30, TimeUnit.SECONDS), "the abandoned worker ended and closed its client");
        assertEquals(4, rec.ops().size());

        // the abandoned thread serves the next phase as a fresh process
        interpreter.run(Gens.onThreads(List.of(stuckDone.process() % 2), Gens.once(Gens.op("quick", OpValue.None.INSTANCE))));
        Op next = rec.ops().get(rec.ops().size() - 1);
        assertEquals(OpType.OK, next.type());
        assertNotEquals(stuckInvoke.process(), next.process());
    }

    @Test
    void theEndHookRunsAtOnceBesideTheOpsInFlightAndAnOpItFreesCompletesForReal() throws Exception {
        // a send stuck behind a partition: only the heal (the hook) frees it, and then it is acknowledged
        var healed = new CountDownLatch(1);
        Client.Factory clients = thread -> new Client() {
            public Completion invoke(String f, OpValue value) {
                try {
                    healed.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return Completion.ok(value);
            }

            public void close() {}
        };
        HistoryRecorder rec = HistoryRecorder.inMemory(1, () -> 0L); // the clock stands still: the grace never ends
        long n = new Interpreter(rec, clients).run(Gens.once(Gens.op("send", OpValue.None.INSTANCE)),
                Duration.ofSeconds(1), healed::countDown);
        assertEquals(1, n);
        assertEquals(List.of(OpType.INVOKE, OpType.OK), rec.ops().stream().map(Op::type).toList());
    }

    @Test
    void withoutAGraceTheInterpreterWaitsForTheOpsItStarted() throws Exception {
        HistoryRecorder rec = HistoryRecorder.inMemory(1);
        var release = new CountDownLatch(1);
        Client.Factory slow = thread -> new Client() {
            public Completion invoke(String f, OpValue value) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return Completion.ok(value);
            }

            public void close() {}
        };
        var run = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new Interpreter(rec, slow).run(Gens.once(Gens.op("slow", OpValue.None.INSTANCE)));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        release.countDown();
        assertEquals(1L, run.get());
        assertEquals(OpType.OK, rec.ops().get(1).type());
    }
}
