package io.faultline.broker.controller;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.Time;
import io.faultline.broker.metadata.MetadataImage;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Three Ratis voters and one listener in this JVM on 127.0.0.1: failover, restart from snapshot + log. */
class ControllerQuorumTest {
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    static {
        // Ratis logs every election and connection attempt at INFO; keep the test output readable.
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.ratis", "warn");
    }

    @TempDir
    Path dir;
    private final Map<Integer, ControllerNode> nodes = new LinkedHashMap<>();
    private Map<Integer, InetSocketAddress> voters;
    private Map<Integer, InetSocketAddress> listeners;

    @AfterEach
    void closeAll() {
        nodes.values().forEach(ControllerNode::close);
    }

    private ControllerNode startNode(int id) {
        return startNode(id, Time.SYSTEM, 600_000);
    }

    private ControllerNode startNode(int id, Time time, int sessionTimeoutMs) {
        return startNode(id, time, ControllerSettings.DEFAULTS.withSessionTimeout(sessionTimeoutMs, 500).withRaft(500, 1000, 5));
    }

    private ControllerNode startNode(int id, Time time, ControllerSettings settings) {
        ControllerNode n = ControllerNode.start(new ControllerNodeConfig(id, voters, listeners, dir.resolve("node-" + id),
                time, settings, null));
        nodes.put(id, n);
        return n;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private Optional<ControllerNode> active() {
        return nodes.values().stream().filter(ControllerNode::isActive).findFirst();
    }

    /** Sends to whichever node is active, retrying through elections until a non-NOT_CONTROLLER answer. */
    private <T extends ApiMessage> T send(ApiKeys key, ApiMessage request, java.util.function.Function<T, Errors> error) {
        List<T> out = new ArrayList<>();
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(50)).until(() -> {
            Optional<ControllerNode> a = active();
            if (a.isEmpty()) return false;
            @SuppressWarnings("unchecked")
            T resp = (T) a.get().handle(new RequestHeader(key, key.latestVersion(), "test", 1), request)
                    .get(30, TimeUnit.SECONDS);
            Errors e = error.apply(resp);
            if (e == Errors.NOT_CONTROLLER || e == Errors.REQUEST_TIMED_OUT) return false;
            out.add(resp);
            return true;
        });
        return out.get(0);
    }

    private void registerBroker(int id) {
        BrokerRegistrationRequestData reg = new BrokerRegistrationRequestData().setBrokerId(id).setClusterId("c")
                .setIncarnationId(new Uuid(7, id));
        reg.listeners().add(new BrokerRegistrationRequestData.Listener().setName("PLAINTEXT").setHost("127.0.0.1").setPort(9000 + id));
        BrokerRegistrationResponseData r = send(ApiKeys.BROKER_REGISTRATION, reg, x -> Errors.forCode(x.errorCode()));
        assertEquals(Errors.NONE.code(), r.errorCode());
        BrokerHeartbeatResponseData hb = send(ApiKeys.BROKER_HEARTBEAT, new BrokerHeartbeatRequestData().setBrokerId(id)
                .setBrokerEpoch(r.brokerEpoch()).setCurrentMetadataOffset(Long.MAX_VALUE), x -> Errors.forCode(x.errorCode()));
        assertFalse(hb.isFenced());
    }

    private void createTopic(String name) {
        createTopic(name, 2);
    }

    private void createTopic(String name, int partitions) {
        createTopic(name, partitions, (short) 3);
    }

    private void createTopic(String name, int partitions, short replicationFactor) {
        CreateTopicsRequestData req = new CreateTopicsRequestData();
        req.topics().add(new CreateTopicsRequestData.CreatableTopic().setName(name).setNumPartitions(partitions)
                .setReplicationFactor(replicationFactor));
        CreateTopicsResponseData r = send(ApiKeys.CREATE_TOPICS, req,
                x -> Errors.forCode(x.topics().iterator().next().errorCode()));
        short code = r.topics().iterator().next().errorCode();
        // A retried request whose first attempt committed is answered "already exists": that is success too.
        assertTrue(code == Errors.NONE.code() || code == Errors.TOPIC_ALREADY_EXISTS.code(), Errors.forCode(code).toString());
    }

    private void awaitConverged() {
        await().atMost(PATIENCE).untilAsserted(() -> {
            MetadataImage first = nodes.values().iterator().next().image();
            for (ControllerNode n : nodes.values()) assertEquals(first, n.image(), "node " + n.nodeId());
        });
    }

    @Test
    void failoverKeepsWritesGoingAndRestartedAndListeningNodesConverge() throws Exception {
        voters = new LinkedHashMap<>();
        for (int id = 1; id <= 3; id++) voters.put(id, new InetSocketAddress("127.0.0.1", freePort()));
        listeners = Map.of(4, new InetSocketAddress("127.0.0.1", freePort()));
        for (int id = 1; id <= 4; id++) startNode(id);
        List<String> seenByListener = new CopyOnWriteArrayList<>();
        nodes.get(4).addListener((delta, image) -> delta.createdTopics().values().forEach(t -> seenByListener.add(t.name())));

        await().atMost(PATIENCE).until(() -> active().isPresent());
        assertFalse(nodes.get(4).isActive());
        ControllerNode follower = nodes.values().stream().filter(n -> !n.isActive()).findFirst().orElseThrow();
        CreateTopicsRequestData misdirected = new CreateTopicsRequestData();
        misdirected.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("x").setNumPartitions(1).setReplicationFactor((short) 1));
        CreateTopicsResponseData refused = (CreateTopicsResponseData) follower.handle(
                new RequestHeader(ApiKeys.CREATE_TOPICS, (short) 7, "test", 1), misdirected).get(30, TimeUnit.SECONDS);
        assertEquals(Errors.NOT_CONTROLLER.code(), refused.topics().find("x").errorCode());
        for (int b = 1; b <= 3; b++) registerBroker(b);
        for (int i = 0; i < 4; i++) createTopic("before-" + i);
        createTopic("widest", ControllerSettings.DEFAULTS.maxPartitionsPerRequest()); // the biggest batch there can be
        awaitConverged();
        assertEquals(5, nodes.get(4).image().topicsById().size());
        assertEquals(List.of("before-0", "before-1", "before-2", "before-3", "widest"), seenByListener);

        // Kill the active controller: another voter takes over and writes continue.
        ControllerNode old = active().orElseThrow();
        int oldId = old.nodeId();
        old.close();
        nodes.remove(oldId);
        await().atMost(PATIENCE).until(() -> active().isPresent());
        int newId = active().orElseThrow().nodeId();
        assertNotEquals(oldId, newId);
        await().atMost(PATIENCE).until(() -> nodes.get(4).activeControllerId().orElse(-1) == newId);
        // The old controller's node is gone with its broker: the new controller fences that broker after two
        // heartbeat intervals (not its 10-minute session), so new topics fit on the two brokers left.
        await().atMost(PATIENCE).until(() -> active().orElseThrow().image().broker(oldId).orElseThrow().fenced());
        for (int i = 0; i < 4; i++) createTopic("after-" + i, 2, (short) 2);
        awaitConverged();
        assertEquals(9, nodes.get(4).image().topicsById().size());
        assertTrue(seenByListener.containsAll(List.of("after-0", "after-3")));

        // Restart the old leader on its directory: it holds a snapshot and recovers to the same image.
        try (Stream<Path> files = Files.walk(dir.resolve("node-" + oldId))) {
            assertTrue(files.anyMatch(p -> p.getFileName().toString().startsWith("snapshot.")), "a snapshot was taken");
        }
        ControllerNode restarted = startNode(oldId);
        awaitConverged();
        List<String> restored = new CopyOnWriteArrayList<>();
        restarted.addListener((delta, image) -> delta.createdTopics().values().forEach(t -> restored.add(t.name())));
        await().atMost(PATIENCE).until(() -> restored.size() == 9);
        registerBroker(oldId); // the restarted node's broker heartbeats again and is unfenced
        createTopic("last");
        awaitConverged();
        assertTrue(nodes.get(oldId).image().topic("last").isPresent());
    }

    @Test
    void aSingleVoterIsItsOwnActiveControllerAndKeepsItsMetadataAcrossRestarts() throws Exception {
        voters = Map.of(1, new InetSocketAddress("127.0.0.1", freePort()));
        listeners = Map.of();
        startNode(1);
        await().atMost(PATIENCE).until(() -> active().isPresent());
        assertEquals(1, nodes.get(1).activeControllerId().orElse(-1));
        registerBroker(1);
        CreateTopicsRequestData rf3 = new CreateTopicsRequestData();
        rf3.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("too-wide").setNumPartitions(1).setReplicationFactor((short) 3));
        CreateTopicsResponseData refused = send(ApiKeys.CREATE_TOPICS, rf3, x -> Errors.forCode(x.topics().find("too-wide").errorCode()));
        assertEquals(Errors.INVALID_REPLICATION_FACTOR.code(), refused.topics().find("too-wide").errorCode());
        assertTrue(nodes.get(1).image().topic("too-wide").isEmpty());
        CreateTopicsRequestData rf1 = new CreateTopicsRequestData();
        rf1.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("kept").setNumPartitions(3).setReplicationFactor((short) 1));
        CreateTopicsResponseData ok = send(ApiKeys.CREATE_TOPICS, rf1, x -> Errors.forCode(x.topics().find("kept").errorCode()));
        assertEquals(Errors.NONE.code(), ok.topics().find("kept").errorCode());
        MetadataImage before = nodes.get(1).image();
        nodes.remove(1).close();
        ControllerNode again = startNode(1);
        await().atMost(PATIENCE).untilAsserted(() -> assertEquals(before, again.image()));
        await().atMost(PATIENCE).until(again::isActive);
    }

    @Test
    void brokerSessionsExpireOnTheInjectedClockAndTheFencingIsCommitted() throws Exception {
        voters = Map.of(1, new InetSocketAddress("127.0.0.1", freePort()));
        listeners = Map.of();
        io.faultline.broker.common.ManualTime clock = new io.faultline.broker.common.ManualTime();
        ControllerNode node = startNode(1, clock, 2000);
        await().atMost(PATIENCE).until(node::isActive);
        registerBroker(1);
        registerBroker(2);
        CreateTopicsRequestData req = new CreateTopicsRequestData();
        req.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("s2").setNumPartitions(4).setReplicationFactor((short) 2));
        send(ApiKeys.CREATE_TOPICS, req, (CreateTopicsResponseData x) -> Errors.forCode(x.topics().find("s2").errorCode()));
        long epoch2 = node.image().broker(2).orElseThrow().epoch();
        for (int step = 0; step < 3; step++) {
            clock.advance(1000); // broker 1 goes silent; broker 2 keeps heartbeating
            send(ApiKeys.BROKER_HEARTBEAT, new BrokerHeartbeatRequestData().setBrokerId(2).setBrokerEpoch(epoch2)
                    .setCurrentMetadataOffset(Long.MAX_VALUE), (BrokerHeartbeatResponseData x) -> Errors.forCode(x.errorCode()));
        }
        await().atMost(PATIENCE).until(() -> node.image().broker(1).orElseThrow().fenced());
        assertFalse(node.image().broker(2).orElseThrow().fenced());
        node.image().topic("s2").orElseThrow().partitions().values().forEach(p -> {
            assertEquals(2, p.leader());
            assertEquals(List.of(2), p.isr());
        });
    }

    @Test
    void aVoterThatMissedPurgedEntriesCatchesUpFromTheLeadersSnapshot() throws Exception {
        voters = new LinkedHashMap<>();
        for (int id = 1; id <= 3; id++) voters.put(id, new InetSocketAddress("127.0.0.1", freePort()));
        listeners = Map.of();
        ControllerSettings small = ControllerSettings.DEFAULTS.withSessionTimeout(600_000, 500).withRaft(500, 1000, 3)
                .withRaftSegmentBytes(64 << 10);
        for (int id = 1; id <= 3; id++) startNode(id, Time.SYSTEM, small);
        await().atMost(PATIENCE).until(() -> active().isPresent());
        for (int b = 1; b <= 3; b++) registerBroker(b);
        ControllerNode follower = nodes.values().stream().filter(n -> !n.isActive()).findFirst().orElseThrow();
        int followerId = follower.nodeId();
        long missedFrom = follower.raftLogLastIndex() + 1;
        follower.close();
        nodes.remove(followerId);
        // ~7 KB per batch: enough closed 64 KB segments for the leader to purge past what the follower has.
        int i = 0;
        while (active().map(n -> {
            try {
                return n.raftLogStartIndex() <= missedFrom;
            } catch (IOException e) {
                return true;
            }
        }).orElse(true)) {
            createTopic("bulk-" + i++, 100);
            assertTrue(i < 200, "the leader never purged its log");
        }
        ControllerNode back = startNode(followerId, Time.SYSTEM, small);
        awaitConverged();
        assertTrue(back.image().topic("bulk-0").isPresent());
    }
}
