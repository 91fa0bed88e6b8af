package io.faultline.workloads.queue;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.HistoryReader;
import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.queue.TotalQueueChecker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole runner — generator, interpreter, recorder, final drain, checker — against an in-memory queue. */
class QueueWorkloadTest {

    static QueueWorkloadConfig config() {
        return QueueWorkloadConfig.defaults("unused", "mem")
                .withRun(17, Duration.ofSeconds(2), 4, 400)
                .withKeys(QueueOps.Options.defaults().withKeys(4, 50, QueueOps.KeyDistribution.EXPONENTIAL)
                        .withMix(3, 0.5, 1.0 / 32, 1.0 / 200))
                .withFinalTimeout(Duration.ofSeconds(20));
    }

    static long count(List<Op> ops, String f, OpType type) {
        return ops.stream().filter(o -> o.f().equals(f) && o.type() == type).count();
    }

    @Test
    void cleanQueueGivesAValidVerdictWithNothingUnseen(@TempDir Path dir) throws Exception {
        QueueWorkloadConfig cfg = config();
        Path file = dir.resolve("history.jsonl");
        QueueWorkload.Summary s;
        List<Op> ops;
        try (HistoryRecorder rec = HistoryRecorder.toFile(file, cfg.concurrency())) {
            s = QueueWorkload.run(cfg, rec, new InMemoryQueue().clients());
            ops = rec.ops();
        }
        assertTrue(s.drained(), "final drain should reach every target: " + s);
        assertTrue(count(ops, Op.SEND, OpType.OK) > 100, "sends: " + count(ops, Op.SEND, OpType.OK));
        assertTrue(count(ops, Op.POLL, OpType.OK) > 100);
        assertTrue(count(ops, Op.CRASH, OpType.INFO) > 0, "crashes should happen at 1/200");
        assertTrue(s.targets().size() > 4, "keys should have retired: " + s.targets());
        CheckResult r = QueueWorkload.checker(cfg).check(ops);
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        assertEquals(0L, r.count("unseen"));
        assertEquals(Verdict.VALID, new TotalQueueChecker().check(ops).verdict());
        assertEquals(ops, HistoryReader.readStrict(file), "the JSONL file holds exactly the recorded history");
        // A process that got info never appears again; its thread carries on as a higher process id.
        java.util.Set<Integer> retired = new java.util.HashSet<>();
        int[] latest = new int[cfg.concurrency()];
        for (Op o : ops) {
            assertFalse(retired.contains(o.process()), () -> "retired process reused: " + o);
            int t = o.process() % cfg.concurrency();
            assertTrue(o.process() >= latest[t], () -> "process ids go backwards: " + o);
            latest[t] = o.process();
            if (o.type() == OpType.INFO) {
                retired.add(o.process());
            }
        }
        assertTrue(retired.size() > 0);
    }

    @Test
    void aQueueThatLosesAnAcknowledgedWriteIsCaught() throws Exception {
        QueueWorkloadConfig cfg = config();
        HistoryRecorder rec = HistoryRecorder.inMemory(cfg.concurrency());
        QueueWorkload.run(cfg, rec, new InMemoryQueue(0, 5).clients()); // key 0 is the hottest key
        CheckResult r = QueueWorkload.checker(cfg).check(rec.ops());
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(1L, r.count("lost-write"), r::toString);
        assertTrue(r.examples("lost-write").get(0).explanation().contains("at offset 4"));
    }

    @Test
    void allowancesFollowTheSettings() {
        QueueSettings strict = QueueSettings.defaults();
        assertEquals(java.util.Set.of(io.faultline.checker.queue.QueueAnomaly.INT_SEND_SKIP),
                QueueWorkload.allowedAnomalies(strict));
        var sub = QueueWorkload.allowedAnomalies(strict.withConsumer(QueueSettings.ConsumerMode.SUBSCRIBE,
                "read_committed"));
        assertTrue(sub.contains(io.faultline.checker.queue.QueueAnomaly.POLL_SKIP));
        assertTrue(sub.contains(io.faultline.checker.queue.QueueAnomaly.NONMONOTONIC_POLL));
        var atLeastOnce = QueueWorkload.allowedAnomalies(strict.withAcks("1", false));
        assertTrue(atLeastOnce.contains(io.faultline.checker.queue.QueueAnomaly.DUPLICATE));
        assertFalse(atLeastOnce.contains(io.faultline.checker.queue.QueueAnomaly.LOST_WRITE),
                "acks=1 still promises acknowledged writes survive");
        assertTrue(QueueWorkload.allowedAnomalies(strict.withAcks("0", false))
                .contains(io.faultline.checker.queue.QueueAnomaly.UNSEEN));
    }

    @Test
    void sameSeedSameMainPhaseOpMix() {
        // The generator alone is deterministic; the interleaving with real threads is not, so compare the generator.
        QueueWorkloadConfig cfg = config();
        var a = QueueOpsTest.drive(QueueOps.create(cfg.keys(), cfg.seed(), 4), 4, 300);
        var b = QueueOpsTest.drive(QueueOps.create(cfg.keys(), cfg.seed(), 4), 4, 300);
        assertEquals(a, b);
        assertTrue(a.stream().anyMatch(i -> i.value() instanceof io.faultline.checker.history.OpValue.Txn t
                && t.mops().stream().anyMatch(m -> m instanceof MicroOp.Send)));
    }
}
