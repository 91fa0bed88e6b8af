package io.faultline.results;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each rule reads its own wording (broker-impl's and Apache Kafka's) and nothing else: one line a rule. */
class StateEventsTest {
    private static final Instant AT = Instant.parse("2026-12-07T12:00:00Z");

    private static List<String> kinds(String line) {
        return StateEvents.parse("n1", AT, line).stream().map(e -> e.kind() + " " + e.partition() + " " + e.to()).toList();
    }

    @Test
    void brokerImplWording() {
        assertEquals(List.of("LEADER fl-1-0 null"), kinds("fl-1-0: leader in epoch 2 from offset 243 (ISR [3])"));
        assertEquals(List.of("FOLLOWER fl-1-0 null"), kinds("fl-1-0: follower of 3 in epoch 2"));
        assertEquals(List.of("FOLLOWER fl-1-0 null", "TRUNCATE fl-1-0 100"),
                kinds("fl-1-0: follower of 3 in epoch 2; truncating to our high watermark 100"));
        assertEquals(List.of("TRUNCATE fl-1-0 120"),
                kinds("fl-1-0: diverging epoch 4 ending at 120 from leader 2; truncating from 130 to 120"));
        assertEquals(List.of("TRUNCATE fl-1-0 120"), kinds("Truncating fl-1-0 from 130 to 120"));
        assertEquals(List.of("TRUNCATE fl-1-0 77"), kinds("Truncating fl-1-0 fully and starting at 77"));
        assertEquals(List.of("ISR fl-1-0 null"), kinds("fl-1-0: ISR is now [3, 1] (partition epoch 5)"));
        assertEquals(List.of("FENCED null null"), kinds("Broker 2 is now fenced"));
        assertEquals(List.of("UNFENCED null null"), kinds("Broker 2 is now unfenced"));
    }

    @Test
    void apacheKafkaWording() {
        assertEquals(List.of("LEADER fl-0 null"), kinds("[Partition fl-0 broker=1] Leader fl-0 with topic id Some(x1) starts at"
                + " leader epoch 3 from offset 55 with partition epoch 4, high watermark 50, ISR [1,2,3], adding replicas []"));
        assertEquals(List.of("FOLLOWER fl-0 null"), kinds("[Partition fl-0 broker=2] Follower fl-0 starts at leader epoch 3 from"
                + " offset 55 with partition epoch 4 and high watermark 50. Current leader is 1. Previous leader Some(1)"));
        assertEquals(List.of("ISR fl-0 null"), kinds("[Partition fl-0 broker=1] ISR updated to 1,2 and version updated to 5"));
        assertEquals(List.of("TRUNCATE fl-0 50"), kinds("[ReplicaFetcher replicaId=2, leaderId=1, fetcherId=0] Truncating"
                + " partition fl-0 with TruncationState(offset=50, completed=true) due to leader epoch and offset EpochEndOffset"));
        assertEquals(List.of("TRUNCATE fl-0 40"), kinds("Truncating partition fl-0 to local high watermark 40"));
        assertEquals(List.of("TRUNCATE fl-0 40"), kinds("[UnifiedLog partition=fl-0, dir=/data] Truncating to offset 40"));
        assertEquals(List.of(), kinds("[UnifiedLog partition=fl-0, dir=/data] Truncating to 40 has no effect as the largest offset is 39"));
        assertEquals(List.of("UNCLEAN_ELECTION fl-0 null"), kinds("Unclean leader election for fl-0 chose broker 2"));
        assertEquals(List.of("UNCLEAN_ELECTION fl-0 null"), kinds("Partition fl-0: performing UNCLEAN election of broker 2"));
        assertEquals(List.of("ISR fl-0 null"), kinds("Skipped the become-leader state change for fl-0 with topic id x1 and"
                + " partition state LeaderAndIsrPartitionState(leader=1, isr=[1, 2])"));
        assertEquals(List.of("FENCED null null"), kinds("Replayed BrokerRegistrationChangeRecord record"
                + " BrokerRegistrationChangeRecord(brokerId=3, brokerEpoch=5, fenced=1, inControlledShutdown=0)"));
        assertEquals(List.of("FENCED null null"), kinds("Fencing broker 3 at epoch 7 because its session has timed out."));
    }

    @Test
    void linesWithoutAnAnchorMakeNoEvent() {
        assertTrue(kinds("[RaftManager id=1] Completed transition to FollowerState(fetchTimeoutMs=2000, epoch=4)").isEmpty());
        assertTrue(kinds("fl-1-0: leader epoch cache holds 3 entries").isEmpty());
    }
}
