package io.faultline.workloads.queue;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.checker.queue.QueueChecker;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;
import io.faultline.workloads.generator.Interpreter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Writes after the heal turn a lost acknowledged tail into reused offsets, which the checker proves without a drain. */
class TopUpTest {
    private static Gen sends(int key, int n) {
        List<Gen> out = new ArrayList<>();
        for (int v = 1; v <= n; v++) {
            out.add(Gens.once(Gens.op(Op.SEND, new OpValue.Txn(List.of(MicroOp.Send.invoke(key, v))))));
        }
        return Gens.seq(out.toArray(Gen[]::new));
    }

    private static CheckResult run(Path file, boolean loseTail) throws Exception {
        var queue = new InMemoryQueue();
        try (HistoryRecorder rec = HistoryRecorder.toFile(file, 2)) {
            var interpreter = new Interpreter(rec, queue.clients());
            interpreter.run(sends(0, 5));
            if (loseTail) queue.truncate(0, 2); // offsets 2..4 were acknowledged, then lost
            interpreter.run(QueueWorkload.topUp(Set.of(0), 3, 100));
            interpreter.run(FinalDrain.forAllThreads(FinalDrain.targetsFrom(rec.ops()), java.time.Duration.ofSeconds(20).toNanos()));
            List<Op> ops = rec.ops();
            long topUps = ops.stream().filter(o -> o.type() == OpType.OK && o.f().equals(Op.SEND)
                    && ((OpValue.Txn) o.value()).mops().stream().anyMatch(m -> ((MicroOp.Send) m).value() > 100)).count();
            assertEquals(3, topUps, "three acknowledged top-up writes, values above the main phase's");
            return QueueChecker.forRun(false).check(ops);
        }
    }

    @Test
    void aLostAcknowledgedTailShowsAsInconsistentOffsets(@TempDir Path dir) throws Exception {
        CheckResult lost = run(dir.resolve("lost.jsonl"), true);
        assertEquals(Verdict.INVALID, lost.verdict(), lost::toString);
        assertTrue(lost.count("inconsistent-offsets") >= 3, lost::toString);
        CheckResult kept = run(dir.resolve("kept.jsonl"), false);
        assertEquals(Verdict.VALID, kept.verdict(), kept::toString);
    }

    @Test
    void theFinalWritesGoToEveryKeyWrittenBeforeAcknowledgedOrNot() {
        var rec = HistoryRecorder.inMemory(2, new java.util.concurrent.atomic.AtomicLong()::incrementAndGet);
        // key 0: an acknowledged send; key 1: every send refused; key 2: a send that ended info; no key 3
        rec.invoke(0, Op.SEND, new OpValue.Txn(List.of(MicroOp.Send.invoke(0, 1))));
        rec.complete(0, OpType.OK, new OpValue.Txn(List.of(MicroOp.Send.invoke(0, 1).withOffset(0L))), null);
        var refused = rec.invoke(1, Op.SEND, new OpValue.Txn(List.of(MicroOp.Send.invoke(1, 2))));
        rec.complete(1, OpType.FAIL, refused.value(), "InvalidRecordException");
        var unsure = rec.invoke(0, Op.SEND, new OpValue.Txn(List.of(MicroOp.Send.invoke(2, 3))));
        rec.complete(0, OpType.INFO, unsure.value(), "timeout");
        assertEquals(Set.of(0, 1, 2), QueueWorkload.topUpKeys(rec.ops()),
                "a cluster that refused every write to a key is still asked after the heal, so liveness can judge it");
    }

    @Test
    void noFinalWriteStartsAfterTheBoundWhenTheClusterTakesNone() throws Exception {
        var clock = new java.util.concurrent.atomic.AtomicLong();
        var rec = HistoryRecorder.inMemory(2, clock::get);
        var sendsStarted = new java.util.concurrent.atomic.AtomicInteger();
        // every send waits out a 15 s delivery timeout on the run's clock and ends unknown
        io.faultline.workloads.generator.Client.Factory dead = thread -> new io.faultline.workloads.generator.Client() {
            @Override
            public Completion invoke(String f, OpValue value) {
                sendsStarted.incrementAndGet();
                clock.addAndGet(java.time.Duration.ofSeconds(15).toNanos());
                return new Completion(OpType.INFO, value, "TimeoutException");
            }

            @Override
            public void close() {
            }
        };
        new Interpreter(rec, dead).run(QueueWorkload.topUp(Set.of(0, 1, 2, 3, 4, 5, 6, 7), 20, 100,
                java.time.Duration.ofSeconds(60)));
        assertTrue(sendsStarted.get() >= 60 / 15, "writes go on until the bound: " + sendsStarted.get());
        assertTrue(sendsStarted.get() <= 60 / 15 + 2, "160 writes asked; only those started within 60 s (and "
                + "one per worker already under way) were made: " + sendsStarted.get());
        List<Integer> keys = rec.ops().stream().filter(o -> o.type() == OpType.INVOKE)
                .map(o -> ((MicroOp.Send) ((OpValue.Txn) o.value()).mops().get(0)).key()).toList();
        assertEquals(keys.size(), Set.copyOf(keys).size(), "the first round goes key by key: " + keys);
    }
}
