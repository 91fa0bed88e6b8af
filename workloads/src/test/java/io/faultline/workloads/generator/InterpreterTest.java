package io.faultline.workloads.generator;

import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class InterpreterTest {

    /** A client that answers by op name: "ok", "info", "throw" or "null" (a broken client). */
    static Client.Factory clients(AtomicInteger opened, AtomicInteger closed) {
        return thread -> {
            opened.incrementAndGet();
            return new Client() {
                public Completion invoke(String f, OpValue value) {
                    return switch (f) {
                        case "info" -> new Completion(OpType.INFO, value, "maybe");
                        case "throw" -> throw new IllegalStateException("bug");
                        case "overflow" -> throw new StackOverflowError();
                        case "null" -> null;
                        default -> Completion.ok(value);
                    };
                }

                public void close() {
                    closed.incrementAndGet();
                }
            };
        };
    }

    static Gen ops(String... fs) {
        Gen[] gs = new Gen[fs.length];
        for (int i = 0; i < fs.length; i++) {
            gs[i] = Gens.once(Gens.op(fs[i], OpValue.None.INSTANCE));
        }
        return Gens.seq(gs);
    }

    @Test
    void recordsEveryOpAndReopensTheClientAfterInfo() throws Exception {
        AtomicInteger opened = new AtomicInteger();
        AtomicInteger closed = new AtomicInteger();
        HistoryRecorder rec = HistoryRecorder.inMemory(1);
        long n = new Interpreter(rec, clients(opened, closed)).run(ops("ok", "info", "ok", "throw", "ok", "overflow", "ok"));
        assertEquals(7, n);
        List<Op> h = rec.ops();
        assertEquals(14, h.size());
        assertEquals(List.of(OpType.INVOKE, OpType.OK, OpType.INVOKE, OpType.INFO, OpType.INVOKE, OpType.OK,
                OpType.INVOKE, OpType.INFO, OpType.INVOKE, OpType.OK, OpType.INVOKE, OpType.INFO, OpType.INVOKE, OpType.OK),
                h.stream().map(Op::type).toList());
        assertEquals(List.of(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3), h.stream().map(Op::process).toList());
        assertTrue(h.get(7).error().contains("client threw"));
        assertTrue(h.get(11).error().contains("StackOverflowError"), "an error inside a client library is the op's, not the run's");
        assertEquals(4, opened.get(), "one client per process");
        assertEquals(4, closed.get());
    }

    @Test
    void runsOpsConcurrentlyOnAllThreads() throws Exception {
        HistoryRecorder rec = HistoryRecorder.inMemory(4);
        // The first ops wait until four are in flight at once: only an interpreter that really runs one op per
        // thread concurrently gets past them (a sequential one would time out here, not pass by luck).
        var allInFlight = new java.util.concurrent.CountDownLatch(4);
        var reachedFour = new java.util.concurrent.atomic.AtomicBoolean();
        Client.Factory clients = thread -> new Client() {
            public Completion invoke(String f, OpValue value) {
                allInFlight.countDown();
                try {
                    if (allInFlight.await(10, java.util.concurrent.TimeUnit.SECONDS)) reachedFour.set(true);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return Completion.ok(value);
            }

            public void close() {
            }
        };
        new Interpreter(rec, clients).run(Gens.limit(100, Gens.repeat(Gens.op("ok", OpValue.None.INSTANCE))));
        assertEquals(200, rec.ops().size());
        assertTrue(reachedFour.get(), "four ops were in flight at the same time");
        assertEquals(4, rec.ops().stream().map(Op::process).distinct().count());
    }

    @Test
    void aBrokenWorkerStopsTheRunInsteadOfHangingIt() {
        HistoryRecorder rec = HistoryRecorder.inMemory(2);
        Interpreter in = new Interpreter(rec, clients(new AtomicInteger(), new AtomicInteger()));
        assertThrows(IllegalStateException.class, () -> in.run(ops("ok", "null", "ok")));
    }
}
