package io.faultline.harness;

import io.faultline.nemesis.ClusterView.PartitionRef;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A workload's fault targets: a topic means its partition 0; "topic:p" names the partition (the offsets workload's coordinator). */
class FaultTargetTest {
    @Test
    void aTopicAloneIsItsFirstPartition() {
        assertEquals(new PartitionRef("fl1-queue", 0), NemesisSchedule.primary("fl1-queue"));
    }

    @Test
    void aColonNamesThePartition() {
        assertEquals(new PartitionRef("__consumer_offsets", 7), NemesisSchedule.primary("__consumer_offsets:7"));
    }

    @Test
    void aBadPartitionIsRefused() {
        assertThrows(NumberFormatException.class, () -> NemesisSchedule.primary("t:x"));
    }
}
