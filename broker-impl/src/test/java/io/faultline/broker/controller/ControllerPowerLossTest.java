package io.faultline.broker.controller;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.Time;
import io.faultline.lazyfs.HostFuse;
import io.faultline.lazyfs.LazyFs;
import io.faultline.lazyfs.LazyFsMain;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Correlated power loss of the whole metadata quorum, on lazyfs (the project's FUSE layer that forgets every write
 * and every directory operation no fsync covered): metadata the quorum committed must be there after the restart.
 * Ratis forces its log segments but never a directory, so without the controller's directory fsync the creation of
 * the open segment (and the renames of segments and of raft-meta) were forgotten and the log came back empty.
 */
class ControllerPowerLossTest {
    private static final Duration PATIENCE = Duration.ofSeconds(90);

    static {
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.ratis", "warn");
    }

    private Path dir;
    private Path backing;
    private Path mount;
    private LazyFs fs;
    private final Map<Integer, ControllerNode> nodes = new LinkedHashMap<>();
    private final Map<Integer, InetSocketAddress> voters = new LinkedHashMap<>();
    /** Small segments and frequent snapshots, so the run rolls segments and renames files. */
    private final ControllerSettings settings = ControllerSettings.DEFAULTS.withSessionTimeout(600_000, 500)
            .withRaft(500, 1000, 40).withRaftSegmentBytes(64 << 10);

    /** Once per class: provisions libfuse2 when it can, else fails with one line saying what to install. */
    @BeforeAll
    static void fuseOnThisHost() {
        HostFuse.ensureAvailable();
    }

    @BeforeEach
    void mountLazyFs() throws IOException {
        dir = Files.createTempDirectory("controller-power");
        backing = Files.createDirectories(dir.resolve("backing"));
        mount = Files.createDirectories(dir.resolve("mount"));
        fs = mountFs();
    }

    private LazyFs mountFs() throws IOException {
        LazyFs f = new LazyFs(backing);
        f.mountInBackground(mount, LazyFsMain.mountOptions(), 30_000);
        return f;
    }

    @AfterEach
    void tearDown() throws IOException {
        nodes.values().forEach(ControllerNode::close);
        nodes.clear();
        if (fs != null) fs.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (isMounted() && System.nanoTime() < deadline) sleep(20);
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    private boolean isMounted() throws IOException {
        return Files.readAllLines(Path.of("/proc/mounts")).stream().anyMatch(l -> l.contains(" " + mount + " fuse"));
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void startAll() {
        for (int id : voters.keySet()) {
            nodes.put(id, ControllerNode.start(new ControllerNodeConfig(id, voters, Map.of(),
                    mount.resolve("node-" + id), Time.SYSTEM, settings, null)));
        }
    }

    /** Power off every node at once: the disk forgets, then the processes die (kill -9 is close, here). */
    private void powerOffAll() throws IOException {
        LazyFs.Forgotten f = fs.forget(true);
        assertTrue(f.fenced());
        nodes.values().forEach(ControllerNode::close);
        nodes.clear();
        fs.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (isMounted()) {
            assertTrue(System.nanoTime() < deadline, "lazyfs did not unmount");
            sleep(20);
        }
        fs = mountFs();
    }

    @Test
    void committedMetadataSurvivesEveryVoterLosingPowerAtOnce() throws Exception {
        for (int id = 1; id <= 3; id++) voters.put(id, new InetSocketAddress("127.0.0.1", freePort()));
        startAll();
        for (int b = 1; b <= 3; b++) registerBroker(b);
        List<String> created = new ArrayList<>();
        // ~7 KB per batch of 100 partitions: several 64 KiB segments roll (a rename each) and snapshots are taken.
        for (int i = 0; i < 12; i++) {
            createTopic("t-" + i, 100);
            created.add("t-" + i);
        }
        long committed = active().orElseThrow().image().offset();

        powerOffAll();
        startAll();
        await().atMost(PATIENCE).until(() -> active().isPresent());
        ControllerNode leader = active().orElseThrow();
        // Active means every entry of its log is applied, and the new leader's log holds every committed entry.
        assertTrue(leader.image().offset() >= committed,
                "the quorum came back at offset " + leader.image().offset() + ", below the committed " + committed);
        for (String t : created) assertTrue(leader.image().topic(t).isPresent(), "topic " + t + " vanished");
        for (int b = 1; b <= 3; b++) assertTrue(leader.image().broker(b).isPresent(), "broker " + b + " vanished");
        // And the quorum still works: a write after the power loss commits.
        createTopic("after", 1);
        await().atMost(PATIENCE).until(() -> active().map(a -> a.image().topic("after").isPresent()).orElse(false));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private Optional<ControllerNode> active() {
        return nodes.values().stream().filter(ControllerNode::isActive).findFirst();
    }

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

    private void createTopic(String name, int partitions) {
        CreateTopicsRequestData req = new CreateTopicsRequestData();
        req.topics().add(new CreateTopicsRequestData.CreatableTopic().setName(name).setNumPartitions(partitions)
                .setReplicationFactor((short) 3));
        CreateTopicsResponseData r = send(ApiKeys.CREATE_TOPICS, req,
                x -> Errors.forCode(x.topics().iterator().next().errorCode()));
        short code = r.topics().iterator().next().errorCode();
        assertTrue(code == Errors.NONE.code() || code == Errors.TOPIC_ALREADY_EXISTS.code(), Errors.forCode(code).toString());
    }
}
