package io.faultline.harness;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The workload and system-under-test registries: the only lists of names, and their one-line refusals. */
class RegistryTest {
    private static TestConfig config(String sut, String workload) {
        return new TestConfig(sut, 3, workload, List.of("partition"), 10, 10, 2, 2, "all", true, 2, 3, false,
                "assign", 5, 7, 1, 1);
    }

    @Test
    void everyWorkloadBuildsItsCheckersWithoutACluster() {
        for (String w : Workloads.NAMES) {
            var workload = Workloads.of(config("apache-kafka", w), "fl1");
            assertEquals(w, workload.name());
            assertFalse(workload.checkers().isEmpty(), w);
        }
        assertEquals(List.of("queue", "total-queue", "corrupt-read"),
                Workloads.checkers(config("apache-kafka", "queue")).stream().map(c -> c.name()).toList());
        // the nightly shape: the queue's checks, the offsets registers', the topics' and the compacted topic's beside them
        assertEquals(List.of("queue", "total-queue", "corrupt-read", "linearizable", "topics", "compaction", "trimmed-log"),
                Workloads.checkers(config("apache-kafka", NightlyMix.WORKLOAD)).stream().map(c -> c.name()).toList());
    }

    @Test
    void unknownNamesListTheKnownOnesInOneLine() {
        var w = assertThrows(IllegalArgumentException.class, () -> config("apache-kafka", "bank"));
        assertEquals("--workload must be one of queue, offsets, offsets-stable, txn-queue, queue-nightly, got bank", w.getMessage());
        var s = assertThrows(IllegalArgumentException.class, () -> config("redis", "queue"));
        assertEquals("--sut must be apache-kafka or broker-impl, got redis (or apache-kafka:VERSION, e.g. "
                + "apache-kafka:0.11.0.3, or file:PATH of a broker descriptor)", s.getMessage());
        assertEquals("a, b or c", Workloads.either(List.of("a", "b", "c")));
    }

    @Test
    void aWorkloadThatNeedsTransactionsIsRefusedBySystemsWithout() {
        assertTrue(Workloads.named("txn-queue").needsTransactions());
        var e = assertThrows(IllegalArgumentException.class, () -> config("apache-kafka:0.10.2.1", "txn-queue"));
        assertEquals("--workload txn-queue needs transactions, which apache-kafka:0.10.2.1 does not have: use --sut "
                + "apache-kafka or broker-impl", e.getMessage());
        assertEquals("apache-kafka", TestRunner.systemUnderTest(config("apache-kafka", "txn-queue")).name());
        assertEquals("broker-impl", TestRunner.systemUnderTest(config("broker-impl", "txn-queue")).name());
    }
}
