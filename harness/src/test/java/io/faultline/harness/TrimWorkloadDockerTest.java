package io.faultline.harness;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.docker.DockerBacked;
import io.faultline.docker.sut.BrokerImpl;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.docker.sut.SutCluster;
import io.faultline.workloads.PhaseRunner;
import io.faultline.workloads.trim.TrimChecker;
import io.faultline.workloads.trim.TrimOps;
import io.faultline.workloads.trim.TrimWorkload;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The trimmed-log workload against a real 3-node broker: DeleteRecords acknowledged while the partition is written and
 * read, the final read starting where the cuts left it (above 0, no deleted record read again), and every
 * acknowledged write above the cuts kept.
 */
@DockerBacked
class TrimWorkloadDockerTest {
    @Test
    void aLogCutWhileWrittenKeepsEverythingAboveTheCuts() throws Exception {
        try (SutCluster cluster = SutCluster.start(new BrokerImpl(KafkaSettings.defaults()), 3, Duration.ofMinutes(3))) {
            var workload = TrimWorkload.workload("trt", (short) 3, 11, 40, Duration.ofSeconds(8), 10_000, List.of(new TrimChecker(true)));
            HistoryRecorder rec = HistoryRecorder.inMemory(3);
            PhaseRunner.run(workload, cluster.bootstrapServers(), rec, PhaseRunner.Faults.NONE, Duration.ZERO, PhaseRunner.Phases.NONE);
            List<Op> ops = rec.ops();
            long deletes = ops.stream().filter(o -> o.type() == OpType.OK && TrimOps.DELETE.equals(o.f())).count();
            assertTrue(deletes > 0, "acknowledged DeleteRecords: " + deletes);
            CheckResult r = new TrimChecker(true).check(ops);
            assertEquals(Verdict.VALID, r.verdict(), r::toString);
            assertEquals(0L, r.count(TrimChecker.RESURRECTED), r::toString);
            assertTrue((Long) r.stats().get("final-log-start") > 0, r::toString);
            assertTrue((Long) r.stats().get("writes-judged") > 0, r::toString);
        }
    }
}
