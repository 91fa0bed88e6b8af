package io.faultline.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.ManualTime;
import io.faultline.broker.storage.EpochEndOffset;
import io.faultline.broker.storage.LogConfig;
import io.faultline.broker.storage.LogManager;
import io.faultline.broker.storage.PartitionLog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.UnknownLeaderEpochException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The leader's bookkeeping on a manual clock: HW, pending ISR changes, acks=all answers, follower reads. */
class LeaderStateTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final long LAG = 10_000;

    @TempDir
    Path dir;
    private final ManualTime time = new ManualTime();
    private final List<Map.Entry<IsrChangeSender.Proposal, Consumer<IsrChangeSender.Result>>> proposals = new ArrayList<>();
    private final IsrChangeSender sender = (p, cb) -> proposals.add(Map.entry(p, cb));
    private LogManager logs;
    private PartitionLog log;
    private int hwWakeups;

    @BeforeEach
    void open() throws Exception {
        logs = LogManager.open(dir, tp -> LogConfig.DEFAULT, time);
        log = logs.getOrCreateLog(TP);
    }

    @AfterEach
    void close() {
        logs.close();
    }

    private LeaderState lead(int epoch, Set<Integer> isr, int minIsr) {
        return new LeaderState(1, new LeaderState.Assignment(TP, Uuid.ONE_UUID, epoch, List.of(1, 2, 3), isr, 0, minIsr),
                ReplicaLog.of(log), time, ReplicationConfig.DEFAULT.withReplicaLagTimeMaxMs(LAG), sender,
                () -> hwWakeups++);
    }

    private long append(LeaderState l, String... values) {
        long last = log.appendAsLeader(Records.values(values), l.leaderEpoch()).lastOffset();
        l.onLeaderAppend();
        return last;
    }

    private void fetch(LeaderState l, int replica, long offset) {
        l.readForFollower(replica, offset, l.leaderEpoch(), l.leaderEpoch(), 1 << 20);
    }

    private void commitLast() {
        var e = proposals.remove(proposals.size() - 1);
        e.getValue().accept(new IsrChangeSender.Result.Committed(e.getKey().newIsr(), e.getKey().leaderEpoch(),
                e.getKey().partitionEpoch() + 1));
    }

    @Test
    void highWatermarkIsTheSmallestEndInTheIsrAndWaitsForFollowersOfANewLeadership() {
        LeaderState l = lead(0, Set.of(1, 2, 3), 2);
        append(l, "a", "b");
        assertEquals(0, log.highWatermark(), "follower ends unknown since this leadership started");
        fetch(l, 2, 2);
        assertEquals(0, log.highWatermark(), "3 has not fetched yet");
        fetch(l, 3, 1);
        assertEquals(1, log.highWatermark());
        fetch(l, 3, 2);
        assertEquals(2, log.highWatermark());
        assertTrue(hwWakeups >= 2);
        assertEquals(List.of(new io.faultline.broker.storage.LeaderEpochCache.EpochEntry(0, 0)), log.epochEntries());
        assertThrows(IllegalArgumentException.class, () -> log.updateHighWatermark(1), "a backward move throws");
    }

    @Test
    void theIsrCheckMovesTheHighWatermarkOnceARemovedFollowerStopsCountingAsCaughtUp() {
        LeaderState l = lead(0, Set.of(1, 2), 1);
        fetch(l, 2, 0);
        append(l, "a");
        fetch(l, 2, 1); // 2 caught up now, then goes silent; the controller drops it from the ISR (fenced)
        l.onCommittedIsr(Set.of(1), 1);
        long last = append(l, "b");
        assertEquals(1, log.highWatermark(), "2 counts as caught up for the lag time: the HW waits for it");
        time.advance(LAG + 1);
        int before = hwWakeups;
        l.maybeShrinkIsr();
        assertEquals(last + 1, log.highWatermark(), "no append or fetch came, and the periodic check moved the HW");
        assertTrue(hwWakeups > before, "blocked acks=all produces are woken");
    }

    @Test
    void aFencedFollowerRemovedFromTheIsrIsNotWaitedForDuringItsLagTime() {
        LeaderState l = lead(0, Set.of(1, 2, 3), 2);
        java.util.Set<Integer> fenced = new java.util.HashSet<>();
        l.setEligibleForIsr(id -> !fenced.contains(id));
        fetch(l, 2, 0);
        fetch(l, 3, 0);
        long last = append(l, "a");
        fetch(l, 3, last + 1); // 3 has it; 2 was caught up a moment ago and now is dead
        assertEquals(0, log.highWatermark(), "2 is in the ISR: the HW waits for it");
        time.advance(1_200); // the controller fences 2 and drops it from the ISR in the same decision
        fenced.add(2);
        int before = hwWakeups;
        l.onCommittedIsr(Set.of(1, 3), 1);
        assertEquals(last + 1, log.highWatermark(), "moved right after the fence, not after the lag time");
        assertTrue(hwWakeups > before, "blocked acks=all produces are woken");
        assertEquals(Optional.of(Errors.NONE), l.ackStatus(last + 1), "ISR {1,3} still meets min.insync.replicas 2");
        long next = append(l, "b");
        assertEquals(last + 1, log.highWatermark(), "3 has not fetched b yet");
        fetch(l, 3, next + 1);
        assertEquals(next + 1, log.highWatermark(), "2 is not waited for on later writes either");
    }

    @Test
    void aFencedFollowerStillInTheIsrIsProposedForRemovalAtOnceAndHoldsTheHwUntilCommitted() {
        LeaderState l = lead(0, Set.of(1, 2, 3), 2);
        java.util.Set<Integer> fenced = new java.util.HashSet<>();
        l.setEligibleForIsr(id -> !fenced.contains(id));
        fetch(l, 2, 0);
        fetch(l, 3, 0);
        long last = append(l, "a");
        fetch(l, 3, last + 1);
        assertFalse(l.maybeShrinkIsr(), "2 is within its lag time and eligible");
        fenced.add(2);
        assertTrue(l.maybeShrinkIsr(), "fenced: proposed at once, no lag time waited");
        assertEquals(Set.of(1, 3), proposals.get(0).getKey().newIsr());
        assertEquals(0, log.highWatermark(), "still a committed ISR member: it could yet be elected");
        commitLast();
        assertEquals(last + 1, log.highWatermark());
    }

    @Test
    void aFencedFollowerNeverBelowMinInsyncReplicasAcknowledges() {
        LeaderState l = lead(0, Set.of(1, 2), 2);
        java.util.Set<Integer> fenced = new java.util.HashSet<>();
        l.setEligibleForIsr(id -> !fenced.contains(id));
        fetch(l, 2, 0);
        long last = append(l, "a");
        fenced.add(2);
        l.onCommittedIsr(Set.of(1), 1);
        assertEquals(last + 1, log.highWatermark());
        assertEquals(Optional.of(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND), l.ackStatus(last + 1),
                "the ISR is below min.insync.replicas: acks=all is not acknowledged");
        assertThrows(NotEnoughReplicasException.class, () -> l.checkEnoughReplicasForAppend((short) -1));
    }

    @Test
    void aLeaderAloneInTheIsrCommitsAtOnce() {
        LeaderState l = lead(0, Set.of(1), 1);
        append(l, "a");
        assertEquals(1, log.highWatermark());
        assertEquals(Optional.of(Errors.NONE), l.ackStatus(1));
    }

    @Test
    void shrinkIsProposedAfterTheLagAndActedOnOnlyWhenCommitted() {
        LeaderState l = lead(0, Set.of(1, 2, 3), 2);
        append(l, "a");
        fetch(l, 2, 1);
        fetch(l, 3, 0);
        time.advance(LAG);
        fetch(l, 2, 1);
        assertFalse(l.maybeShrinkIsr(), "3 was caught up at the start of the leadership, exactly LAG ago");
        time.advance(1);
        fetch(l, 2, 1);
        assertTrue(l.maybeShrinkIsr());
        assertEquals(Set.of(1, 2), proposals.get(0).getKey().newIsr());
        assertInstanceOf(IsrState.PendingShrink.class, l.isrState());
        assertEquals(Set.of(1, 2, 3), l.isrState().maximalIsr());
        assertEquals(0, log.highWatermark(), "pending: 3 still holds the HW");
        assertFalse(l.maybeShrinkIsr(), "one change at a time");
        commitLast();
        assertEquals(new IsrState.Committed(Set.of(1, 2), 1), l.isrState());
        assertEquals(1, log.highWatermark(), "committed: the HW moves past 3");
    }

    @Test
    void expandWaitsUntilTheFollowerReachesTheHighWatermarkAndTheEpochStart() {
        append(lead(0, Set.of(1), 1), "old1", "old2"); // epoch 0 leaves 2 records
        LeaderState l = lead(1, Set.of(1, 2), 1);
        assertEquals(2, l.leaderEpochStartOffset());
        fetch(l, 2, 2);
        append(l, "x");
        fetch(l, 2, 3);
        assertEquals(3, log.highWatermark());
        fetch(l, 3, 1);
        assertTrue(proposals.isEmpty(), "3 is below the HW and the epoch start");
        l.setEligibleForIsr(id -> id != 3);
        fetch(l, 3, 3);
        assertTrue(proposals.isEmpty(), "3 is caught up but fenced or shutting down (KIP-841)");
        l.setEligibleForIsr(id -> true);
        fetch(l, 3, 3);
        assertEquals(Set.of(1, 2, 3), proposals.get(0).getKey().newIsr());
        assertEquals(Set.of(1, 2, 3), l.isrState().maximalIsr(), "pending expand counts for the HW");
        assertEquals(Set.of(1, 2), l.isrState().isr());
        commitLast();
        assertEquals(Set.of(1, 2, 3), l.isrState().isr());
    }

    @Test
    void rejectedChangeRevertsAndFencedOneWaitsForMetadata() {
        LeaderState l = lead(0, Set.of(1, 2), 1);
        fetch(l, 3, 0);
        proposals.remove(0).getValue().accept(new IsrChangeSender.Result.Rejected(Errors.INELIGIBLE_REPLICA));
        assertEquals(new IsrState.Committed(Set.of(1, 2), 0), l.isrState());
        fetch(l, 3, 0);
        proposals.remove(0).getValue().accept(new IsrChangeSender.Result.Rejected(Errors.FENCED_LEADER_EPOCH));
        assertTrue(l.isrState().isPending(), "stays pending until new metadata replaces the leadership");
        l.onCommittedIsr(Set.of(1, 2, 3), 5);
        assertEquals(new IsrState.Committed(Set.of(1, 2, 3), 5), l.isrState());
    }

    @Test
    void acksAllChecksMinIsrBeforeAndAfterTheAppend() {
        LeaderState l = lead(0, Set.of(1, 2), 2);
        l.checkEnoughReplicasForAppend((short) -1);
        long last = append(l, "a");
        assertEquals(Optional.empty(), l.ackStatus(last + 1), "waits for the HW");
        time.advance(LAG + 1);
        l.maybeShrinkIsr();
        commitLast();
        assertEquals(Set.of(1), l.isrState().isr());
        assertEquals(Optional.of(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND), l.ackStatus(last + 1));
        assertThrows(NotEnoughReplicasException.class, () -> l.checkEnoughReplicasForAppend((short) -1));
        l.checkEnoughReplicasForAppend((short) 1); // acks=1 does not care
    }

    @Test
    void followerReadsUpToTheLogEndAndDivergenceIsReportedWithoutRecords() {
        LeaderState l0 = lead(0, Set.of(1), 1);
        append(l0, "a", "b");
        LeaderState l = lead(2, Set.of(1, 2), 1);
        append(l, "c");
        LeaderState.FollowerRead r = l.readForFollower(2, 1, 0, 2, 1 << 20);
        assertTrue(r.divergingEpoch().isEmpty());
        assertEquals(3, r.logEndOffset());
        assertEquals(List.of(0L, 1L, 2L), offsets(r)); // the whole batch holding offset 1, then the next
        // The follower has offsets 0-2 in epoch 1, which this leader never had: epoch 0 ended at 2 here.
        LeaderState.FollowerRead d = l.readForFollower(2, 3, 1, 2, 1 << 20);
        assertEquals(Optional.of(new EpochEndOffset(0, 2)), d.divergingEpoch());
        assertTrue(d.read().isEmpty());
        assertEquals(1, l.replicaState(2).orElseThrow().logEndOffset(), "a diverging fetch does not move the follower");
        assertThrows(FencedLeaderEpochException.class, () -> l.readForFollower(2, 1, 0, 1, 100));
        assertThrows(UnknownLeaderEpochException.class, () -> l.readForFollower(2, 1, 0, 3, 100));
        assertThrows(NotLeaderOrFollowerException.class, () -> l.readForFollower(7, 1, 0, 2, 100));
        assertThrows(OffsetOutOfRangeException.class, () -> l.readForFollower(2, 4, -1, 2, 100));
    }

    private static List<Long> offsets(LeaderState.FollowerRead r) {
        List<Long> out = new ArrayList<>();
        r.read().orElseThrow().records().records().forEach(rec -> out.add(rec.offset()));
        return out;
    }

    @Test
    void highWatermarkSurvivesARestartThroughTheCheckpoint() throws Exception {
        LeaderState l = lead(0, Set.of(1), 1);
        append(l, "a", "b", "c");
        logs.close();
        logs = LogManager.open(dir, tp -> LogConfig.DEFAULT, time);
        log = logs.getOrCreateLog(TP);
        assertEquals(3, log.highWatermark());
    }
}
