package io.faultline.harness;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.docker.DockerBacked;
import io.faultline.docker.sut.BrokerImpl;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.docker.sut.SutCluster;
import io.faultline.workloads.PhaseRunner;
import io.faultline.workloads.generator.Client;
import io.faultline.workloads.kv.KvChecker;
import io.faultline.workloads.kv.KvClient;
import io.faultline.workloads.kv.KvOps;
import io.faultline.workloads.kv.KvWorkload;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The compacted key-value workload against a real broker: keys overwritten many times, a third of the writes in
 * transactions of their own (a quarter of those aborted), the partition compacted by the broker, and the
 * read_committed read judged valid (every key's latest acknowledged value kept, nothing changed, nothing aborted).
 */
@DockerBacked
class KvWorkloadDockerTest {
    @Test
    void aCompactedTopicKeepsEveryKeysLatestValue() throws Exception {
        try (SutCluster cluster = SutCluster.start(new BrokerImpl(KafkaSettings.defaults().withReplicationFactor(1)
                .withMinInsyncReplicas(1)), 1, Duration.ofMinutes(3))) {
            var workload = KvWorkload.workload("kvt", (short) 1, 7, 4, 40, Duration.ofSeconds(8), 10_000, true, List.of(new KvChecker(true)));
            HistoryRecorder rec = HistoryRecorder.inMemory(3);
            PhaseRunner.run(workload, cluster.bootstrapServers(), rec, PhaseRunner.Faults.NONE, Duration.ZERO, PhaseRunner.Phases.NONE);
            List<Op> ops = new ArrayList<>(rec.ops());
            long acked = ops.stream().filter(o -> o.type() == OpType.OK && KvOps.WRITE.equals(o.f())).count();
            assertTrue(acked > 30, "acknowledged writes: " + acked);
            long aborted = ops.stream().filter(o -> o.type() == OpType.FAIL && KvOps.ABORTED.equals(o.error())).count();
            assertTrue(aborted > 0, "aborted transactions: " + aborted);
            CheckResult first = new KvChecker(true).check(ops);
            assertEquals(Verdict.VALID, first.verdict(), first::toString);

            // the broker compacts in the background: read again until it has (bounded), and judge that read too
            List<KvOps.Rec> compacted = new ArrayList<>();
            try (Client reader = new KvClient(cluster.bootstrapServers(), KvWorkload.topic("kvt"), 10_000, true)) {
                await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).until(() -> {
                    Client.Completion c = reader.invoke(KvOps.READ, new OpValue.Text(""));
                    if (c.type() != OpType.OK) return false;
                    compacted.clear();
                    compacted.addAll(KvOps.parseRead(c.value()));
                    return compacted.size() < acked;
                });
            }
            ops.add(new Op(ops.size(), OpType.INVOKE, 0, Long.MAX_VALUE - 1, KvOps.READ, new OpValue.Text(""), null));
            ops.add(new Op(ops.size(), OpType.OK, 0, Long.MAX_VALUE, KvOps.READ, KvOps.readResult(compacted), null));
            CheckResult r = new KvChecker(true).check(ops);
            assertEquals(Verdict.VALID, r.verdict(), r::toString);
            assertTrue(compacted.size() < acked, compacted.size() + " records left of " + acked + " written");
        }
    }
}
