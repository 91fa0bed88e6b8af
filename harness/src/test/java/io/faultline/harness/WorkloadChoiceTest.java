package io.faultline.harness;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** `--workload` without a cluster: which are accepted, and the one-line refusals. */
class WorkloadChoiceTest {

    @Test
    void aReleaseWithoutTransactionsRefusesTheTransactionalWorkloadInOneLine() {
        var r = CliTestSupport.run("test", "--sut", "apache-kafka:0.10.2.1", "--workload", "txn-queue", "--nodes", "1");
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode(), r.err());
        assertTrue(r.err().contains("txn-queue needs transactions, which apache-kafka:0.10.2.1 does not have"), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
    }

    @Test
    void onlyTheNightlyMixsTopicsRollSegments() {
        for (String workload : new String[] {"queue", NightlyMix.WORKLOAD, "txn-queue"}) {
            var config = new TestConfig("broker-impl", 3, workload, java.util.List.of("partition"), 10, 10, 2, 1, "all",
                    true, 2, 3, false, "assign", 5, 7, 1, 1);
            var expected = NightlyMix.WORKLOAD.equals(workload)
                    ? io.faultline.workloads.queue.QueueWorkload.MULTI_SEGMENT_TOPICS : java.util.Map.of();
            assertEquals(expected, Workloads.queueConfig(config, "p", 1000).topicConfigs(), workload);
        }
    }

    @Test
    void anUnknownWorkloadNamesTheChoices() {
        var r = CliTestSupport.run("test", "--workload", "bank", "--nodes", "1");
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode(), r.err());
        assertTrue(r.err().contains("queue, offsets, offsets-stable, txn-queue"), r.err());
    }
}
