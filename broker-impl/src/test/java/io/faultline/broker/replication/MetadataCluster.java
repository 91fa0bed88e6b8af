package io.faultline.broker.replication;

import io.faultline.broker.common.ManualTime;
import io.faultline.broker.controller.ControllerLogic;
import io.faultline.broker.controller.ControllerResult;
import io.faultline.broker.controller.ControllerSettings;
import io.faultline.broker.metadata.BrokerRegistration;
import io.faultline.broker.metadata.MetadataDelta;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord;
import io.faultline.broker.metadata.PartitionRegistration;
import io.faultline.broker.metadata.TopicImage;
import io.faultline.broker.partition.LogStore;
import io.faultline.broker.partition.Partition;
import io.faultline.broker.partition.PartitionManager;
import io.faultline.broker.storage.LogConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Brokers and the controller in one JVM, wired as in a cluster but without sockets: the controller's pure logic
 * decides, its records are committed at once into the metadata image, and every live broker applies each change
 * through {@link PartitionManager#applyDelta} (which tells its {@link ReplicaManager}). ISR changes go to the
 * controller as AlterPartition requests; followers fetch over {@link LoopbackEndpoint}s in the wire format. Time
 * is a {@link ManualTime}: heartbeats, session expiry and the ISR-shrink task run as the test advances it.
 */
final class MetadataCluster implements AutoCloseable {
    final ManualTime time = new ManualTime();
    final ControllerLogic controller;
    MetadataImage image = MetadataImage.EMPTY;
    final Map<Integer, Broker> brokers = new LinkedHashMap<>();
    private final Path root;
    private final ReplicationConfig config;
    private final io.faultline.broker.common.SeededBugs bugs;
    private int incarnations;

    final class Broker {
        final int id;
        final Map<Integer, LoopbackEndpoint> links = new HashMap<>();
        PartitionManager partitions;
        ReplicaManager replicas;
        boolean alive;
        /** Stopped (SIGSTOP): no heartbeats, no metadata, no fetching, unreachable; state kept in memory. */
        boolean paused;
        /** The metadata this broker last applied (it misses the changes committed while it is paused). */
        MetadataImage applied = MetadataImage.EMPTY;

        Broker(int id) {
            this.id = id;
        }

        void start() {
            Path dir = root.resolve("broker-" + id);
            try {
                LogStore logs = LogStore.open(dir, tp -> LogConfig.DEFAULT, time);
                partitions = new PartitionManager(id, logs, dir, time, bugs);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            ReplicaFetcherManager fetchers = new ReplicaFetcherManager(id, time, config, this::link, false);
            AlterPartitionSender isr = new AlterPartitionSender(id,
                    () -> image.broker(id).map(BrokerRegistration::epoch).orElse(-1L), b -> -1L,
                    req -> CompletableFuture.completedFuture(run(req)));
            replicas = new ReplicaManager(id, time, fetchers, isr, topicId -> image.topic(topicId).map(TopicImage::name), 1);
            replicas.setEligibleForIsr(b -> image.broker(b).map(BrokerRegistration::isActive).orElse(false));
            partitions.setRoleChangeListener(replicas);
            replicas.startup();
            alive = true;
            BrokerRegistrationRequestData reg = new BrokerRegistrationRequestData().setBrokerId(id)
                    .setIncarnationId(new Uuid(99, ++incarnations)).setClusterId("c");
            reg.listeners().add(new BrokerRegistrationRequestData.Listener().setName("REPLICATION").setHost("b" + id)
                    .setPort(9092));
            BrokerRegistrationResponseData r = run(reg);
            if (r.errorCode() != 0) throw new AssertionError("registration of " + id + ": " + Errors.forCode(r.errorCode()));
            partitions.applyDelta(MetadataDelta.between(MetadataImage.EMPTY, image), image);
            applied = image;
            heartbeat();
        }

        /** SIGSTOP. */
        void pause() {
            paused = true;
        }

        /** SIGCONT: applies the metadata committed meanwhile, as its metadata fetch would, then carries on. */
        void resume() {
            paused = false;
            partitions.applyDelta(MetadataDelta.between(applied, image), image);
            applied = image;
        }

        boolean running() {
            return alive && !paused;
        }

        void heartbeat() {
            long epoch = image.broker(id).orElseThrow().epoch();
            run(new BrokerHeartbeatRequestData().setBrokerId(id).setBrokerEpoch(epoch)
                    .setCurrentMetadataOffset(image.offset()));
        }

        LoopbackEndpoint link(int source) {
            return links.computeIfAbsent(source, s -> new LoopbackEndpoint(() -> {
                Broker b = brokers.get(s);
                return b.running() ? b.replicas.requestHandler() : null;
            }));
        }

        /** kill -9: the process and its fetchers stop; written data stays on disk. */
        void crash() {
            replicas.close();
            partitions.close();
            alive = false;
        }

        Partition partition(TopicPartition tp) {
            return partitions.get(tp).orElseThrow();
        }

        List<String> values(TopicPartition tp) {
            return Records.valuesOf(partition(tp).log());
        }
    }

    MetadataCluster(Path root, int n, ReplicationConfig config) {
        this(root, n, config, io.faultline.broker.common.SeededBugs.NONE);
    }

    /** With these seeded bugs on every broker (partitions and replication). */
    MetadataCluster(Path root, int n, ReplicationConfig config, io.faultline.broker.common.SeededBugs bugs) {
        this.bugs = bugs;
        config = config.withBugs(bugs);
        this.root = root;
        this.config = config;
        this.controller = new ControllerLogic(time, ControllerSettings.DEFAULTS.withSessionTimeout(2000, 500),
                () -> new Uuid(0, 77));
        controller.activate(image);
        for (int i = 1; i <= n; i++) brokers.put(i, new Broker(i));
        for (Broker b : brokers.values()) b.start();
    }

    /** Runs a controller request and commits its records at once (the metadata quorum is not under test here). */
    @SuppressWarnings("unchecked")
    synchronized <T extends ApiMessage> T run(ApiMessage request) {
        ControllerResult<? extends ApiMessage> r = controller.handle(image, request);
        commit(r.records());
        return (T) r.response();
    }

    private void commit(List<MetadataRecord> records) {
        if (records.isEmpty()) return;
        MetadataImage before = image;
        image = image.apply(image.offset() + 1, records);
        MetadataDelta delta = MetadataDelta.between(before, image);
        for (Broker b : brokers.values()) {
            if (!b.running()) continue;
            b.partitions.applyDelta(delta, image);
            b.applied = image;
        }
    }

    TopicPartition createTopic(String name, int rf, int minIsr) {
        CreateTopicsRequestData req = new CreateTopicsRequestData();
        CreateTopicsRequestData.CreatableTopic t = new CreateTopicsRequestData.CreatableTopic().setName(name)
                .setNumPartitions(1).setReplicationFactor((short) rf);
        t.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("min.insync.replicas")
                .setValue(Integer.toString(minIsr)));
        req.topics().add(t);
        CreateTopicsResponseData resp = run(req);
        short err = resp.topics().iterator().next().errorCode();
        if (err != 0) throw new AssertionError("create " + name + ": " + Errors.forCode(err));
        return new TopicPartition(name, 0);
    }

    PartitionRegistration registration(TopicPartition tp) {
        return image.topic(tp.topic()).orElseThrow().partition(tp.partition());
    }

    Broker leaderOf(TopicPartition tp) {
        return brokers.get(registration(tp).leader());
    }

    /** Moves time in heartbeat steps: live brokers heartbeat, silent ones get fenced, scheduled tasks run. */
    void tick(long ms) {
        for (long done = 0; done < ms; done += 250) {
            time.advance(Math.min(250, ms - done));
            for (Broker b : brokers.values()) if (b.running()) b.heartbeat();
            ControllerResult<List<Integer>> fenced;
            synchronized (this) {
                fenced = controller.fenceExpiredBrokers(image);
                commit(fenced.records());
            }
        }
    }

    void replicate(int rounds) {
        for (int i = 0; i < rounds; i++) {
            for (Broker b : brokers.values()) if (b.running()) b.replicas.fetchers().doWorkOnce();
        }
    }

    @Override
    public void close() {
        for (Broker b : brokers.values()) if (b.alive) b.crash();
    }
}
