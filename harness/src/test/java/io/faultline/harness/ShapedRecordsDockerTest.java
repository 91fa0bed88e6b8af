package io.faultline.harness;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.queue.TotalQueueChecker;
import io.faultline.docker.DockerBacked;
import io.faultline.docker.sut.BrokerImpl;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.docker.sut.SutCluster;
import io.faultline.workloads.queue.KafkaQueueClient;
import io.faultline.workloads.queue.QueueOps;
import io.faultline.workloads.queue.QueueWorkload;
import io.faultline.workloads.queue.QueueWorkloadConfig;
import io.faultline.workloads.queue.RecordShapes;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The queue workload with shaped records against a real broker: records of up to 80 KiB with headers, some workers
 * fetching at most 32 KiB per partition and others at least 8 KiB per fetch, all read back whole, every byte checked,
 * and the history valid.
 */
@DockerBacked
class ShapedRecordsDockerTest {
    @Test
    void recordsOfEveryShapeRoundTripThroughARealBroker() throws Exception {
        try (SutCluster cluster = SutCluster.start(new BrokerImpl(KafkaSettings.defaults().withReplicationFactor(1)
                .withMinInsyncReplicas(1)), 1, Duration.ofMinutes(3))) {
            QueueWorkloadConfig cfg = QueueWorkloadConfig.defaults(cluster.bootstrapServers(), "shaped")
                    .withRun(29, Duration.ofSeconds(8), 5, 200)
                    .withKeys(QueueOps.Options.defaults().withKeys(4, 120, QueueOps.KeyDistribution.EXPONENTIAL))
                    .withFinalTimeout(Duration.ofSeconds(60))
                    .withTopicConfigs(QueueWorkload.MULTI_SEGMENT_TOPICS)
                    .withShapedRecords(true);
            HistoryRecorder rec = HistoryRecorder.inMemory(cfg.concurrency());
            QueueWorkload.Summary s = QueueWorkload.run(cfg, rec);
            assertTrue(s.drained(), "every worker, the small fetchers too, read every acknowledged offset: " + s);
            Set<Long> large = new HashSet<>();
            long reads = 0;
            for (Op op : rec.ops()) {
                if (op.type() != OpType.OK) continue;
                for (MicroOp m : op.mops()) {
                    if (m instanceof MicroOp.Send send && send.offset() != null
                            && RecordShapes.value(send.key(), send.value()).length() > 32 * 1024) large.add(send.value());
                    if (m instanceof MicroOp.Poll p) {
                        for (var recs : p.readsOrEmpty().values()) {
                            for (var r : recs) {
                                reads++;
                                assertTrue(r.value() != KafkaQueueClient.UNPARSEABLE, "a record read back changed: " + op);
                            }
                        }
                    }
                }
            }
            assertTrue(reads > 500, "reads " + reads);
            // shapes are a pure function of key and value: key 0's 9th value (the hottest key's, sent in the first
            // second) is one of the 40-80 KiB records, so this does not depend on how far the run got
            assertTrue(!large.isEmpty(), "some acknowledged records were larger than the small fetchers' 32 KiB");
            CheckResult r = QueueWorkload.checker(cfg).check(rec.ops());
            assertEquals(Verdict.VALID, r.verdict(), r::toString);
            assertEquals(Verdict.VALID, new TotalQueueChecker().check(rec.ops()).verdict());
        }
    }
}
