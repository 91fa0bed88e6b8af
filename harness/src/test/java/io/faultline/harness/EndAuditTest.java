package io.faultline.harness;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class EndAuditTest {
    @Test
    void onlyTheQueuesKeyPartitionsAreAuditedNotWhatRunsBesideThemNorOtherRuns() {
        var subjects = List.of("partition fl7-0-0", "partition fl7-12-0", "partition fl7-kv-0", "partition fl7-trim-0",
                "partition fl7-audit-grow-1", "partition fl8-3-0", "partition __consumer_offsets-4", "broker 2");
        assertEquals(List.of(new TopicPartition("fl7-0", 0), new TopicPartition("fl7-12", 0)),
                EndAudit.keyPartitions("fl7", subjects));
    }
}
