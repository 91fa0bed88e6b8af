package io.faultline.workloads.txn;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Where txn-queue's leader-aimed faults aim: its key topics, and its first transactional ids' coordinators. */
class TxnFaultTargetsTest {
    @Test
    void aTransactionalIdLivesWhereKafkasCoordinatorPutsIt() {
        // Utils.abs("fl1-t0".hashCode()) % 50, as TransactionStateManager.partitionFor computes it
        int expected = org.apache.kafka.common.utils.Utils.abs("fl1-t0".hashCode()) % 50;
        assertEquals(expected, TxnQueueWorkload.coordinatorPartition("fl1-t0", 50));
        assertEquals(0, TxnQueueWorkload.coordinatorPartition("anything", 1));
    }

    @Test
    void withoutTransactionalIdsOrAReachableClusterOnlyTheTopicsAreAimedAt() {
        assertEquals(List.of("fl1-0", "fl1-1"), TxnQueueWorkload.faultTargets("127.0.0.1:1", List.of("fl1-0", "fl1-1"), List.of()));
    }
}
