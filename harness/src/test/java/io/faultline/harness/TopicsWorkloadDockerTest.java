package io.faultline.harness;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.linear.LinearizabilityChecker;
import io.faultline.docker.DockerBacked;
import io.faultline.docker.sut.BrokerImpl;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.docker.sut.SutCluster;
import io.faultline.workloads.PhaseRunner;
import io.faultline.workloads.topics.TopicChecker;
import io.faultline.workloads.topics.TopicOps;
import io.faultline.workloads.topics.TopicWorkload;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The topics workload against a real broker: topics created, grown and deleted by several workers, judged valid. */
@DockerBacked
class TopicsWorkloadDockerTest {
    @Test
    void topicsThatComeAndGoAndGrowOnAHealthyBrokerAreLinearizable() throws Exception {
        try (SutCluster cluster = SutCluster.start(new BrokerImpl(KafkaSettings.defaults().withReplicationFactor(1)
                .withMinInsyncReplicas(1)), 1, Duration.ofMinutes(3))) {
            TopicChecker checker = new TopicChecker("tw", LinearizabilityChecker.Options.defaults());
            var workload = TopicWorkload.workload("tw", (short) 1, 5, 3, 20, Duration.ofSeconds(10), 10_000, List.of(checker));
            HistoryRecorder rec = HistoryRecorder.inMemory(3);
            PhaseRunner.run(workload, cluster.bootstrapServers(), rec, PhaseRunner.Faults.NONE, Duration.ZERO, PhaseRunner.Phases.NONE);
            List<Op> ops = rec.ops();
            long created = ops.stream().filter(o -> o.type() == OpType.OK && TopicOps.CREATE.equals(o.f())).count();
            long deleted = ops.stream().filter(o -> o.type() == OpType.OK && TopicOps.DELETE.equals(o.f())).count();
            long grown = ops.stream().filter(o -> o.type() == OpType.OK && TopicOps.GROW.equals(o.f())).count();
            long described = ops.stream().filter(o -> o.type() == OpType.OK && TopicOps.DESCRIBE.equals(o.f())).count();
            assertTrue(created >= 2 && deleted >= 2 && grown >= 2, created + " created, " + deleted + " deleted, " + grown + " grown");
            assertEquals(3 + io.faultline.workloads.Workload.FinalReads.ATTEMPTS, described,
                    "each topic described after the run, and those the creation after the heal may have made");
            assertTrue(ops.stream().anyMatch(o -> o.type() == OpType.OK && TopicOps.CREATE.equals(o.f())
                    && TopicOps.KeyValue.parse(o.value()).key() == 3), "the creation after the heal was acknowledged");
            CheckResult r = checker.check(ops);
            assertEquals(Verdict.VALID, r.verdict(), r::toString);
        }
    }
}
