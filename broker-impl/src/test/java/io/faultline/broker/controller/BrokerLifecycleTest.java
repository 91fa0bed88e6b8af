package io.faultline.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.metadata.PartitionRegistration;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Registration, heartbeats, session expiry and controlled shutdown on a manual clock. */
class BrokerLifecycleTest {

    @Test
    void registrationStartsFencedAndTheFirstHeartbeatUnfences() {
        LogicHarness h = new LogicHarness();
        long epoch = h.register(1);
        assertTrue(h.image.broker(1).orElseThrow().fenced());
        assertEquals("h1", h.image.broker(1).orElseThrow().endpoints().get("PLAINTEXT").host());
        BrokerHeartbeatResponseData hb = h.heartbeat(1);
        assertEquals(0, hb.errorCode());
        assertFalse(hb.isFenced());
        assertFalse(h.image.broker(1).orElseThrow().fenced());
        assertEquals(epoch, h.image.broker(1).orElseThrow().epoch());
    }

    private static BrokerHeartbeatResponseData heartbeatAt(LogicHarness h, ControllerLogic logic, int id, long offset) {
        var r = logic.handle(h.image, new BrokerHeartbeatRequestData().setBrokerId(id)
                .setBrokerEpoch(h.image.broker(id).orElseThrow().epoch()).setCurrentMetadataOffset(offset));
        h.commit(r.records());
        return (BrokerHeartbeatResponseData) r.response();
    }

    @Test
    void aBrokerIsCaughtUpOnlyOnceItAppliedItsOwnRegistrationEvenAfterAFailover() {
        LogicHarness h = new LogicHarness();
        h.register(1);
        long registeredAt = h.image.offset(); // the harness commits each decision as one log entry
        assertEquals(registeredAt, h.image.broker(1).orElseThrow().registeredAt());

        // One entry short: it has not seen its own registration yet.
        BrokerHeartbeatResponseData early = heartbeatAt(h, h.logic, 1, registeredAt - 1);
        assertFalse(early.isCaughtUp());
        assertTrue(early.isFenced());

        // Another controller takes over with the same committed image: it knows the same thing.
        ControllerLogic next = new ControllerLogic(h.time, h.settings);
        next.activate(h.image);
        BrokerHeartbeatResponseData stillEarly = heartbeatAt(h, next, 1, registeredAt - 1);
        assertFalse(stillEarly.isCaughtUp());
        assertTrue(h.image.broker(1).orElseThrow().fenced());

        BrokerHeartbeatResponseData caughtUp = heartbeatAt(h, next, 1, registeredAt);
        assertTrue(caughtUp.isCaughtUp());
        assertFalse(caughtUp.isFenced());
        assertFalse(h.image.broker(1).orElseThrow().fenced());
    }

    @Test
    void sessionsAreTimedByWhenAHeartbeatArrivesNotWhenTheControllerGetsToIt() {
        LogicHarness h = new LogicHarness(); // session 2000 ms
        h.brokers(1, 2);
        long epoch1 = h.image.broker(1).orElseThrow().epoch();
        long epoch2 = h.image.broker(2).orElseThrow().epoch();
        h.time.advance(1500);
        // Both send a heartbeat; 2's carries a stale epoch. The controller thread is stuck (a slow Raft write)...
        h.logic.heartbeatArrived(1, epoch1);
        h.logic.heartbeatArrived(2, epoch2 + 1);
        h.time.advance(1000);
        // ...and a queued session check runs before the queued heartbeats: 1 is alive, 2's heartbeat does not count.
        assertEquals(List.of(2), h.tick());
        // The heartbeat is decided late but counts from its arrival: 1 still expires on time without another one.
        h.heartbeat(1);
        h.time.advance(999);
        assertEquals(List.of(), h.tick());
        h.time.advance(1);
        assertEquals(List.of(1), h.tick());
    }

    @Test
    void aBrokerWhoseHeartbeatConnectionClosedIsFencedAfterTwoHeartbeatIntervalsNotTheWholeSession() {
        LogicHarness h = new LogicHarness(); // session 2000 ms, heartbeat 500 ms: grace 1000 ms
        h.brokers(1, 2);
        long epoch1 = h.image.broker(1).orElseThrow().epoch();
        h.time.advance(100);
        h.heartbeat(1);
        h.heartbeat(2);
        h.logic.connectionLost(1, epoch1); // broker 1's process died: its kernel closed the socket
        h.time.advance(999);
        assertEquals(List.of(), h.tick());
        h.time.advance(1);
        assertEquals(List.of(1), h.tick());
        assertTrue(h.image.broker(1).orElseThrow().fenced());
        assertFalse(h.image.broker(2).orElseThrow().fenced(), "2 still has its full session");
    }

    @Test
    void aBrokerThatReconnectsAndHeartbeatsKeepsItsFullSession() {
        LogicHarness h = new LogicHarness();
        h.brokers(1);
        long epoch = h.image.broker(1).orElseThrow().epoch();
        h.heartbeat(1);
        h.logic.connectionLost(1, epoch);
        h.time.advance(600);
        h.logic.heartbeatArrived(1, epoch); // on a new connection
        h.heartbeat(1);
        h.time.advance(1999);
        assertEquals(List.of(), h.tick(), "the closed connection no longer counts");
        h.time.advance(1);
        assertEquals(List.of(1), h.tick(), "silence for a whole session still fences");
    }

    @Test
    void aNewControllerGivesThePreviousControllersNodeOnlyTheLostConnectionGrace() {
        LogicHarness h = new LogicHarness();
        h.brokers(1, 2, 3);
        h.time.advance(300);
        ControllerLogic next = new ControllerLogic(h.time, h.settings);
        next.activate(h.image, 3); // 3's node led the Raft quorum before: it went silent
        h.time.advance(500);
        next.heartbeatArrived(1, h.image.broker(1).orElseThrow().epoch());
        var beat = next.handle(h.image, new BrokerHeartbeatRequestData().setBrokerId(1)
                .setBrokerEpoch(h.image.broker(1).orElseThrow().epoch()).setCurrentMetadataOffset(h.image.offset()));
        h.commit(beat.records());
        h.time.advance(499);
        assertEquals(List.of(), next.fenceExpiredBrokers(h.image).response());
        h.time.advance(1);
        var r = next.fenceExpiredBrokers(h.image);
        assertEquals(List.of(3), r.response(), "3 stayed silent for the grace; 2 still has its fresh session");
        h.commit(r.records());
        assertTrue(h.image.broker(3).orElseThrow().fenced());
        h.time.advance(1000);
        assertEquals(List.of(2), next.fenceExpiredBrokers(h.image).response(), "2's fresh session ends 2 s after activation");
    }

    @Test
    void aClosedConnectionOfAnEarlierRegistrationDoesNotShortenTheNewOnesSession() {
        LogicHarness h = new LogicHarness();
        h.brokers(1);
        long epoch = h.image.broker(1).orElseThrow().epoch();
        h.heartbeat(1);
        h.logic.connectionLost(1, epoch - 1);
        h.time.advance(1999);
        assertEquals(List.of(), h.tick());
    }

    @Test
    void retriedRegistrationKeepsTheEpochAndANewIncarnationMustWaitForTheOldSession() {
        LogicHarness h = new LogicHarness();
        long epoch = h.register(1);
        h.heartbeat(1);
        int logSize = h.log.size();
        assertEquals(epoch, h.register(1)); // same incarnation: idempotent
        assertEquals(logSize, h.log.size());

        BrokerRegistrationRequestData other = new BrokerRegistrationRequestData().setBrokerId(1)
                .setIncarnationId(Uuid.randomUuid()).setClusterId("c");
        other.listeners().add(new BrokerRegistrationRequestData.Listener().setName("PLAINTEXT").setHost("x").setPort(1));
        BrokerRegistrationResponseData dup = h.run(other);
        assertEquals(Errors.DUPLICATE_BROKER_REGISTRATION.code(), dup.errorCode());

        h.time.advance(2000); // the old process's session lapses
        BrokerRegistrationResponseData ok = h.run(other);
        assertEquals(0, ok.errorCode());
        assertTrue(ok.brokerEpoch() > epoch);
        assertTrue(h.image.broker(1).orElseThrow().fenced());
    }

    @Test
    void heartbeatWithAStaleEpochOrFromAnUnknownBrokerIsRefused() {
        LogicHarness h = new LogicHarness();
        long epoch = h.register(1);
        BrokerHeartbeatResponseData stale = h.run(new BrokerHeartbeatRequestData().setBrokerId(1).setBrokerEpoch(epoch + 7));
        assertEquals(Errors.STALE_BROKER_EPOCH.code(), stale.errorCode());
        BrokerHeartbeatResponseData unknown = h.run(new BrokerHeartbeatRequestData().setBrokerId(9).setBrokerEpoch(1));
        assertEquals(Errors.BROKER_ID_NOT_REGISTERED.code(), unknown.errorCode());
    }

    @Test
    void aSilentBrokerIsFencedAfterTheSessionTimeoutAndLosesItsLeadershipsAndIsrPlaces() {
        LogicHarness h = new LogicHarness();
        h.brokers(1, 2, 3);
        h.createTopic("t", 3, 3);
        h.time.advance(1999);
        assertEquals(List.of(), h.tick());
        h.heartbeat(1);
        h.heartbeat(2);
        h.time.advance(1);
        assertEquals(List.of(3), h.tick());
        assertTrue(h.image.broker(3).orElseThrow().fenced());
        for (int p = 0; p < 3; p++) {
            PartitionRegistration pr = h.partition("t", p);
            assertFalse(pr.isr().contains(3), "partition " + p + " " + pr);
            assertNotEquals(3, pr.leader());
            assertTrue(pr.hasLeader());
        }
        // The fenced broker heartbeats again: unfenced, but it rejoins ISRs only through the leader's AlterPartition.
        BrokerHeartbeatResponseData hb = h.heartbeat(3);
        assertFalse(hb.isFenced());
        assertFalse(h.partition("t", 0).isr().contains(3));
    }

    @Test
    void aNewlyActiveControllerGivesEveryBrokerAFreshSession() {
        LogicHarness h = new LogicHarness();
        h.brokers(1, 2);
        h.time.advance(5000);
        h.logic.activate(h.image);
        assertEquals(List.of(), h.tick());
        h.time.advance(2000);
        assertEquals(List.of(1, 2), h.tick());
    }

    @Test
    void controlledShutdownMovesEveryLeadershipAwayThenAllowsTheShutdown() {
        LogicHarness h = new LogicHarness();
        h.brokers(1, 2, 3);
        h.createTopic("t", 6, 3);
        h.createTopic("solo", 2, 1); // RF 1: some partitions can only go offline
        boolean ledSomething = h.image.topicsById().values().stream()
                .flatMap(t -> t.partitions().values().stream()).anyMatch(p -> p.leader() == 2);
        assertTrue(ledSomething);

        BrokerHeartbeatResponseData hb = h.heartbeat(2, true);
        assertFalse(hb.shouldShutDown(), "not before the broker has seen its leaderships move");
        assertFalse(hb.isFenced());
        h.image.topicsById().values().forEach(t -> t.partitions().forEach((p, pr) -> {
            assertNotEquals(2, pr.leader(), t.name() + "-" + p);
            if (pr.replicas().size() > 1) {
                assertFalse(pr.isr().contains(2), t.name() + "-" + p + " " + pr);
                assertTrue(pr.hasLeader());
            }
        }));
        assertTrue(h.image.broker(2).orElseThrow().inControlledShutdown());
        BrokerHeartbeatResponseData next = h.heartbeat(2, true); // its metadata offset is now past the move
        assertTrue(next.shouldShutDown());
        assertTrue(h.image.broker(2).orElseThrow().fenced());
    }

    @Test
    void aBrokerInControlledShutdownStaysOutOfNewPlacementsAndAFencedOneMayStopAtOnce() {
        LogicHarness h = new LogicHarness();
        h.brokers(1, 2);
        h.heartbeat(1, true);
        assertEquals(org.apache.kafka.common.protocol.Errors.INVALID_REPLICATION_FACTOR.code(), h.createTopic("t", 1, 2).errorCode());
        h.time.advance(2000);
        h.heartbeat(2);
        assertEquals(List.of(1), h.tick());
        BrokerHeartbeatResponseData fenced = h.heartbeat(1, true);
        assertTrue(fenced.shouldShutDown());
        assertTrue(fenced.isFenced());
    }

    @Test
    void aCleanlyRestartedBrokerNamingItsPreviousEpochReplacesItsLiveRegistration() {
        LogicHarness h = new LogicHarness();
        long epoch = h.register(1);
        h.heartbeat(1);
        BrokerRegistrationRequestData again = new BrokerRegistrationRequestData().setBrokerId(1)
                .setIncarnationId(Uuid.randomUuid()).setClusterId("c").setPreviousBrokerEpoch(epoch);
        again.listeners().add(new BrokerRegistrationRequestData.Listener().setName("PLAINTEXT").setHost("x").setPort(1));
        BrokerRegistrationResponseData ok = h.run(again);
        assertEquals(0, ok.errorCode());
        assertTrue(ok.brokerEpoch() > epoch);
    }

    /**
     * A controller restarted in node 1's process (kill -9, restart, elected again): node 1's registration in the
     * image belongs to the previous process, which cannot be alive since this one is node 1. Its new incarnation
     * registers at once instead of waiting out the fresh session the activation gave the old one; any other node's
     * new incarnation still waits, and so does a second new incarnation of node 1 (a duplicate process).
     */
    @Test
    void theControllersOwnNodeReplacesItsPreviousProcessAtOnceOthersWaitForTheSession() {
        LogicHarness h = new LogicHarness();
        long oldEpoch = h.register(1);
        h.register(2);
        h.heartbeat(1);
        h.heartbeat(2);

        ControllerLogic restarted = new ControllerLogic(h.time, h.settings);
        restarted.setLocalNode(1);
        restarted.activate(h.image); // every registered broker gets a fresh session
        BrokerRegistrationResponseData self = register(h, restarted, 1, new Uuid(7, 1));
        assertEquals(0, self.errorCode(), "this node's previous process is gone");
        assertTrue(self.brokerEpoch() > oldEpoch);
        assertEquals(new Uuid(7, 1), h.image.broker(1).orElseThrow().incarnationId());

        assertEquals(Errors.DUPLICATE_BROKER_REGISTRATION.code(), register(h, restarted, 2, new Uuid(7, 2)).errorCode());
        heartbeatAt(h, restarted, 1, h.image.offset());
        assertEquals(Errors.DUPLICATE_BROKER_REGISTRATION.code(), register(h, restarted, 1, new Uuid(7, 3)).errorCode(),
                "a second process claiming node 1 waits like any other");
    }

    private static BrokerRegistrationResponseData register(LogicHarness h, ControllerLogic logic, int id, Uuid incarnation) {
        BrokerRegistrationRequestData req = new BrokerRegistrationRequestData().setBrokerId(id)
                .setIncarnationId(incarnation).setClusterId("c");
        req.listeners().add(new BrokerRegistrationRequestData.Listener().setName("PLAINTEXT").setHost("h" + id).setPort(9092));
        var r = logic.handle(h.image, req);
        h.commit(r.records());
        return (BrokerRegistrationResponseData) r.response();
    }
}
