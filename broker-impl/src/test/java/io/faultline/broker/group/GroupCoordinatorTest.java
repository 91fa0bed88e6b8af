package io.faultline.broker.group;

import io.faultline.broker.common.ManualTime;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The classic group state machine, driven by a manual clock. */
class GroupCoordinatorTest {
    private final ManualTime time = new ManualTime();
    private final GroupCoordinator gc = new GroupCoordinator(time, 100, 60_000, 0);

    @AfterEach
    void close() {
        gc.close();
    }

    private static Map<String, byte[]> protocols(byte meta) {
        Map<String, byte[]> m = new LinkedHashMap<>();
        m.put("range", new byte[] {meta});
        return m;
    }

    private AtomicReference<GroupCoordinator.JoinResult> join(String member, int sessionMs, int rebalanceMs) {
        AtomicReference<GroupCoordinator.JoinResult> ref = new AtomicReference<>();
        gc.join("g", member, null, "client", "host", sessionMs, rebalanceMs, "consumer", protocols((byte) 1), true,
                ref::set);
        return ref;
    }

    /** MEMBER_ID_REQUIRED, then a real join; returns the member id. */
    private String newMember(int sessionMs, int rebalanceMs) {
        GroupCoordinator.JoinResult first = join("", sessionMs, rebalanceMs).get();
        assertEquals(Errors.MEMBER_ID_REQUIRED, first.error());
        assertTrue(first.memberId().startsWith("client-"));
        return first.memberId();
    }

    private Errors sync(String member, int generation, Map<String, byte[]> assignments,
                        AtomicReference<GroupCoordinator.SyncResult> out) {
        gc.sync("g", member, generation, "consumer", "range", assignments, out::set);
        return out.get() == null ? null : out.get().error();
    }

    @Test
    void singleMemberJoinsSyncsAndHeartbeats() {
        String a = newMember(1000, 5000);
        GroupCoordinator.JoinResult r = join(a, 1000, 5000).get();
        assertEquals(Errors.NONE, r.error());
        assertEquals(1, r.generationId());
        assertEquals(a, r.leaderId());
        assertEquals(1, r.members().size(), "the leader gets the member list");
        AtomicReference<GroupCoordinator.SyncResult> s = new AtomicReference<>();
        assertEquals(Errors.NONE, sync(a, 1, Map.of(a, new byte[] {9}), s));
        assertEquals(9, s.get().assignment()[0]);
        assertEquals("Stable", gc.describe("g").orElseThrow().state());
        assertEquals(Errors.NONE, gc.heartbeat("g", a, 1));
        assertEquals(Errors.ILLEGAL_GENERATION, gc.heartbeat("g", a, 0));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, gc.heartbeat("g", "stranger", 1));
    }

    @Test
    void rebalanceWaitsForKnownMembersAndFollowersWaitForTheLeadersAssignment() {
        String a = newMember(1000, 5000);
        join(a, 1000, 5000);
        gc.sync("g", a, 1, "consumer", "range", Map.of(a, new byte[] {1}), x -> { });
        String b = newMember(1000, 5000);
        AtomicReference<GroupCoordinator.JoinResult> bJoin = join(b, 1000, 5000);
        assertNull(bJoin.get(), "b waits until the known member a rejoins");
        assertEquals(Errors.REBALANCE_IN_PROGRESS, gc.heartbeat("g", a, 1), "a learns of the rebalance");
        AtomicReference<GroupCoordinator.JoinResult> aJoin = join(a, 1000, 5000);
        assertEquals(Errors.NONE, aJoin.get().error());
        assertEquals(2, aJoin.get().generationId());
        assertEquals(a, bJoin.get().leaderId(), "the leader is kept");
        assertEquals(0, bJoin.get().members().size(), "followers do not get the member list");
        AtomicReference<GroupCoordinator.SyncResult> bSync = new AtomicReference<>();
        assertNull(sync(b, 2, Map.of(), bSync), "a follower's sync waits for the leader");
        AtomicReference<GroupCoordinator.SyncResult> aSync = new AtomicReference<>();
        sync(a, 2, Map.of(a, new byte[] {1}, b, new byte[] {2}), aSync);
        assertEquals(2, bSync.get().assignment()[0]);
        assertEquals(1, aSync.get().assignment()[0]);
    }

    @Test
    void membersThatDoNotRejoinWithinTheRebalanceTimeoutAreRemoved() {
        String a = newMember(10_000, 3000);
        join(a, 10_000, 3000);
        gc.sync("g", a, 1, "consumer", "range", Map.of(), x -> { });
        String b = newMember(10_000, 3000);
        AtomicReference<GroupCoordinator.JoinResult> bJoin = join(b, 10_000, 3000);
        time.advance(2000);
        assertNull(bJoin.get());
        time.advance(1500); // past the rebalance timeout, a never rejoined
        assertEquals(Errors.NONE, bJoin.get().error());
        assertEquals(b, bJoin.get().leaderId());
        assertEquals(1, gc.describe("g").orElseThrow().members().size());
        assertEquals(Errors.UNKNOWN_MEMBER_ID, gc.heartbeat("g", a, 1));
    }

    @Test
    void expiredSessionsTriggerARebalanceAndLeavingEmptiesTheGroup() {
        String a = newMember(1000, 5000);
        join(a, 1000, 5000);
        gc.sync("g", a, 1, "consumer", "range", Map.of(), x -> { });
        time.advance(800);
        assertEquals(Errors.NONE, gc.heartbeat("g", a, 1));
        time.advance(800);
        assertEquals("Stable", gc.describe("g").orElseThrow().state(), "heartbeats keep the session alive");
        time.advance(1200);
        assertEquals("Empty", gc.describe("g").orElseThrow().state(), "silent member expired");
        String b = newMember(1000, 5000);
        join(b, 1000, 5000);
        assertEquals(Errors.NONE, gc.leave("g", b));
        assertEquals("Empty", gc.describe("g").orElseThrow().state());
        assertEquals(Errors.UNKNOWN_MEMBER_ID, gc.leave("g", b));
    }

    @Test
    void pendingMemberIdsExpireAndBadSessionTimeoutsAreRejected() {
        String a = newMember(1000, 5000);
        time.advance(1500);
        assertEquals(Errors.UNKNOWN_MEMBER_ID, join(a, 1000, 5000).get().error(), "the id was not claimed in time");
        AtomicReference<GroupCoordinator.JoinResult> r = new AtomicReference<>();
        gc.join("g", "", null, "c", "h", 50, 5000, "consumer", protocols((byte) 1), true, r::set);
        assertEquals(Errors.INVALID_SESSION_TIMEOUT, r.get().error());
    }

    @Test
    void offsetCommitsAreCheckedAgainstMemberAndGeneration() {
        assertEquals(Errors.NONE, gc.validateOffsetCommit("other", "", -1), "simple commit without a group");
        String a = newMember(1000, 5000);
        join(a, 1000, 5000);
        assertEquals(Errors.REBALANCE_IN_PROGRESS, gc.validateOffsetCommit("g", a, 1), "while completing");
        gc.sync("g", a, 1, "consumer", "range", Map.of(), x -> { });
        assertEquals(Errors.NONE, gc.validateOffsetCommit("g", a, 1));
        assertEquals(Errors.ILLEGAL_GENERATION, gc.validateOffsetCommit("g", a, 0));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, gc.validateOffsetCommit("g", "x", 1));
    }

    @Test
    void illegalStateTransitionsThrow() {
        ClassicGroup g = new ClassicGroup("x");
        assertThrows(IllegalStateException.class, () -> g.transitionTo(GroupState.STABLE));
        assertThrows(IllegalStateException.class, () -> g.transitionTo(GroupState.COMPLETING_REBALANCE));
        g.transitionTo(GroupState.PREPARING_REBALANCE);
        assertThrows(IllegalStateException.class, () -> g.transitionTo(GroupState.STABLE));
        g.transitionTo(GroupState.COMPLETING_REBALANCE);
        g.transitionTo(GroupState.STABLE);
        g.transitionTo(GroupState.DEAD);
        assertEquals(GroupState.DEAD, g.state());
    }

    @Test
    void aPersistedStableGroupIsRestoredWithItsGenerationAndMembers() {
        java.util.List<GroupRecord> persisted = new java.util.ArrayList<>();
        gc.setPersister(persisted::add);
        String a = newMember(1000, 5000);
        join(a, 1000, 5000);
        gc.sync("g", a, 1, "consumer", "range", Map.of(a, new byte[] {7}), x -> { });
        assertEquals(1, persisted.size(), "persisted when it became Stable");
        GroupRecord rec = persisted.get(0);
        assertEquals(1, rec.generationId());
        assertEquals(a, rec.leaderId());

        GroupCoordinator restarted = new GroupCoordinator(time, 100, 60_000, 0);
        try {
            restarted.restore(rec);
            assertEquals(Errors.NONE, restarted.heartbeat("g", a, 1), "the member keeps its generation");
            GroupCoordinator.GroupSummary s = restarted.describe("g").orElseThrow();
            assertEquals("Stable", s.state());
            assertEquals(7, s.members().get(0).assignment()[0]);
            AtomicReference<GroupCoordinator.SyncResult> sync = new AtomicReference<>();
            restarted.sync("g", a, 1, "consumer", "range", Map.of(), sync::set);
            assertEquals(7, sync.get().assignment()[0]);
            time.advance(1500);
            assertEquals("Empty", restarted.describe("g").orElseThrow().state(), "a dead member still expires");
        } finally {
            restarted.close();
        }
    }

    @Test
    void aPendingMemberHoldsTheRebalanceUntilTheTimeoutAndCanStillJoinAfterwards() {
        String a = newMember(10_000, 3000);
        join(a, 10_000, 3000);
        gc.sync("g", a, 1, "consumer", "range", Map.of(), x -> { });
        String b = newMember(10_000, 3000); // told its id, not back yet
        String c = newMember(10_000, 3000);
        AtomicReference<GroupCoordinator.JoinResult> cJoin = join(c, 10_000, 3000);
        AtomicReference<GroupCoordinator.JoinResult> aJoin = join(a, 10_000, 3000);
        assertNull(aJoin.get(), "everyone known has rejoined, but b is still pending");
        time.advance(3100);
        assertEquals(2, aJoin.get().generationId());
        assertEquals(Errors.NONE, cJoin.get().error());
        AtomicReference<GroupCoordinator.JoinResult> bJoin = join(b, 10_000, 3000);
        assertNull(bJoin.get(), "b's late join starts the next rebalance instead of failing");
        assertEquals("PreparingRebalance", gc.describe("g").orElseThrow().state());
    }
}
