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
    void everyQueueWorkloadsTopicsRollSegmentsAndThePlainAndNightlyQueuesShapeTheirRecords() {
        for (String workload : new String[] {"queue", NightlyMix.WORKLOAD, "txn-queue"}) {
            var config = new TestConfig("broker-impl", 3, workload, java.util.List.of("partition"), 10, 10, 2, 1, "all",
                    true, 2, 3, false, "assign", 5, 7, 1, 1);
            var queue = Workloads.queueConfig(config, "p", 1000);
            assertEquals(io.faultline.workloads.queue.QueueWorkload.MULTI_SEGMENT_TOPICS, queue.topicConfigs(), workload);
            assertEquals(!"txn-queue".equals(workload), queue.shapedRecords(), workload);
        }
        // a release the 3.9.1 client line drives rolls segments too, with bare numbers for records
        var old = new TestConfig("apache-kafka:0.10.2.1", 3, "queue", java.util.List.of("partition"), 10, 10, 2, 1, "all",
                false, 2, 3, false, "assign", 5, 7, 1, 1);
        assertEquals(io.faultline.workloads.queue.QueueWorkload.MULTI_SEGMENT_TOPICS, Workloads.queueConfig(old, "p", 1000).topicConfigs());
        assertEquals(false, Workloads.queueConfig(old, "p", 1000).shapedRecords());
    }

    private static java.util.List<String> checkerNames(TestConfig config) {
        return Workloads.checkers(config).stream().map(io.faultline.checker.Checker::name).toList();
    }

    @Test
    void thePlainQueueRunsWithCompanyByDefaultAndAsStoredOtherwise() {
        var standard = new TestOptions();
        standard.shape.sut = "broker-impl";
        TestConfig config = standard.toConfig();
        assertTrue(config.besidesInEffect());
        var names = checkerNames(config);
        assertEquals(java.util.List.of("queue", "total-queue", "corrupt-read", "linearizable", "topics", "compaction", "trimmed-log"), names,
                "the queue's checks and the company's: " + names);
        // a run stored before the queue had company is judged by the queue's checks alone
        var params = new java.util.LinkedHashMap<>(config.asMap());
        params.remove("besides");
        TestConfig stored = TestConfig.fromMap(params);
        assertEquals(false, stored.besides());
        assertEquals(java.util.List.of("queue", "total-queue", "corrupt-read"), checkerNames(stored));
        assertEquals(checkerNames(stored), checkerNames(config.withBesides(false)), "--besides false");
        // the company needs stable offset reads (from 2.5): an older release runs the queue alone
        var beforeStable = new TestOptions();
        beforeStable.shape.sut = "apache-kafka:2.4.1";
        assertEquals(false, beforeStable.toConfig().besidesInEffect());
        var old = new TestOptions();
        old.shape.sut = "apache-kafka:0.10.2.1";
        old.idempotence = false;
        assertEquals(false, old.toConfig().besidesInEffect());
    }

    @Test
    void anUnknownWorkloadNamesTheChoices() {
        var r = CliTestSupport.run("test", "--workload", "bank", "--nodes", "1");
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode(), r.err());
        assertTrue(r.err().contains("queue, offsets, offsets-stable, txn-queue"), r.err());
    }
}
