package io.faultline.broker.server;

import io.faultline.broker.api.ApiVersionsApi;
import io.faultline.broker.api.BrokerContext;
import io.faultline.broker.api.ConfigApis;
import io.faultline.broker.api.ControllerApis;
import io.faultline.broker.api.FeatureApis;
import io.faultline.broker.api.FetchApi;
import io.faultline.broker.api.KafkaApis;
import io.faultline.broker.api.LogAdminApis;
import io.faultline.broker.api.OffsetApis;
import io.faultline.broker.api.ProduceApi;
import io.faultline.broker.api.ProducerIdApi;
import io.faultline.broker.api.QuotaApis;
import io.faultline.broker.api.SecurityApis;
import io.faultline.broker.api.SupportedApis;
import io.faultline.broker.api.TopicApis;
import io.faultline.broker.common.Scheduler;
import io.faultline.broker.common.Time;
import io.faultline.broker.config.BrokerConfig;
import io.faultline.broker.config.Listener;
import io.faultline.broker.controller.ControllerNode;
import io.faultline.broker.controller.ControllerNodeConfig;
import io.faultline.broker.controller.ControllerSettings;
import io.faultline.broker.controller.QuorumVoters;
import io.faultline.broker.metadata.Endpoint;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.network.RequestChannel;
import io.faultline.broker.network.RequestDispatcher;
import io.faultline.broker.network.RequestHandlerPool;
import io.faultline.broker.network.RequestHandlerWatchdog;
import io.faultline.broker.network.SocketServer;
import io.faultline.broker.partition.LogStore;
import io.faultline.broker.partition.PartitionManager;
import io.faultline.broker.replication.ReplicaManager;
import io.faultline.broker.partition.ProducerIdManager;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node: its metadata quorum member (ControllerNode), storage and partitions driven by committed metadata, the API
 * handlers of every broker listener, the controller listener, and the broker's lifecycle with the active controller.
 */
public final class KafkaBroker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KafkaBroker.class);
    /** How long start() waits for the broker to be registered, caught up and unfenced before returning anyway. */
    static final long STARTUP_WAIT_MS = 60_000;
    /** How long a controller round trip may take, retries after NOT_CONTROLLER included. */
    static final int CONTROLLER_REQUEST_TIMEOUT_MS = 10_000;

    private final BrokerConfig config;
    private final Time time;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final Map<String, SocketServer> servers = new LinkedHashMap<>();
    private PartitionManager partitions;
    private ReplicaManager replication;
    private ControllerNode controller;
    private ControllerChannel controllerChannel;
    private NodeMetadata metadata;
    private BrokerLifecycle lifecycle;
    private GroupWiring groups;
    private TxnWiring txns;
    private BrokerContext context;
    private Scheduler.Cancellable maintenanceTask;
    /** One budget for request bytes of every listener, and for the memory produce validation needs. */
    private io.faultline.broker.network.MemoryPool requestMemory;
    private volatile boolean closed;

    public KafkaBroker(BrokerConfig config, Time time) {
        this.config = config;
        this.time = time;
    }

    public synchronized KafkaBroker start() throws IOException {
        StartupStages stages = new StartupStages(config.nodeId(), time);
        for (Path d : config.logDirs()) Files.createDirectories(d);
        requestMemory = new io.faultline.broker.network.MemoryPool(config.queuedMaxRequestBytes());
        Path dir = config.logDir();
        String clusterId = ClusterId.of(config, dir);
        // The Raft server starts while the logs are opened and recovered: neither needs the other until the metadata
        // listener is added below, and on a restart after kill -9 both take a while.
        CompletableFuture<ControllerNode> controllerStart = new CompletableFuture<>();
        Thread starter = new Thread(() -> {
            try {
                controllerStart.complete(ControllerNode.start(controllerConfig()));
            } catch (Throwable e) {
                controllerStart.completeExceptionally(e);
            }
        }, "controller-start-" + config.nodeId());
        starter.setDaemon(true);
        starter.start();
        Map<String, RequestChannel> channels = new LinkedHashMap<>();
        Map<String, Endpoint> advertised = new LinkedHashMap<>();
        Listener controllerListener = config.listeners().controllerListener().orElse(null);
        RequestChannel controllerRequests = null;
        try {
            // A log is created while its topic's change is applied: the partition manager already holds the new image.
            // Static defaults, then the dynamic broker configs (cluster-wide, then this broker's), then the topic's own.
            LogStore logs = LogStore.open(config.logDirs(), tp -> config.defaultLogConfig()
                    .with(io.faultline.broker.controller.BrokerConfigs.topicDefaults(partitionImage(), config.nodeId()))
                    .with(partitionImage().topicConfig(tp.topic())), time, config.bugs());
            partitions = new PartitionManager(config.nodeId(), logs, dir, time, config.bugs());
            stages.done("opening and recovering the logs", "data dirs " + config.logDirs());
            if (!config.bugs().isEmpty()) log.warn("Broker {} runs with SEEDED BUGS {} (faultline.bugs.allowed=true)",
                    config.nodeId(), config.bugs());

            // Bind every listener first: registration advertises the bound ports.
            // A fixed port is bound only when the broker is ready (a client that can connect gets answers); an
            // ephemeral one (tests) must be bound now to learn the port that registration advertises.
            for (Listener l : config.listeners().brokerListeners()) {
                RequestChannel ch = new RequestChannel(config.queuedMaxRequests());
                channels.put(l.name(), ch);
                int port = l.port() == 0 ? bind(l, ch, SupportedApis::isSupported).boundPort() : l.port();
                advertised.put(l.name(), advertisedEndpoint(l, port));
            }
            if (controllerListener != null) {
                controllerRequests = new RequestChannel(config.queuedMaxRequests());
                bind(controllerListener, controllerRequests, ControllerApis::isSupported);
            }
        } catch (IOException | RuntimeException | Error e) {
            controllerStart.thenAccept(ControllerNode::close); // not left running behind a failed start
            throw e;
        }
        controller = awaitControllerStart(controllerStart);
        toClose.add(controller);
        stages.done("starting the metadata quorum member", "begun beside the logs; local Raft log replayed to"
                + " metadata offset " + controller.image().offset());
        controllerChannel = new ControllerChannel(config.nodeId(), time, controller, config.cluster().voters(),
                CONTROLLER_REQUEST_TIMEOUT_MS);
        // Before any metadata is applied: replication follows every role the partition manager gives.
        replication = ReplicationWiring.wire(config, time, partitions, req -> controllerChannel.send(
                ApiKeys.ALTER_PARTITION, ApiKeys.ALTER_PARTITION.latestVersion(false), req)
                .thenApply(r -> (org.apache.kafka.common.message.AlterPartitionResponseData) r));
        metadata = new NodeMetadata(time, controller, controllerChannel, List.of(
                partitions::applyDelta,
                // After the roles: leaders stop waiting for (and drop from the ISR) followers fenced just now.
                (delta, img) -> {
                    if (!delta.changedBrokers().isEmpty()) replication.onBrokersChanged();
                },
                (delta, img) -> {
                    GroupWiring g = groups;
                    if (g != null) g.onMetadata(delta);
                }));

        Path producerIds = dir;
        ProducerIdManager ids = new ProducerIdManager(producerIds, config.nodeId());
        for (Map.Entry<String, RequestChannel> e : channels.entrySet()) {
            BrokerContext ctx = new BrokerContext(config, clusterId, e.getKey(), e.getValue(), metadata, partitions, time,
                    replication, requestMemory);
            if (context == null) {
                context = ctx;
                groups = new GroupWiring(ctx);
                txns = new TxnWiring(ctx, groups.store(), ids);
            }
            KafkaApis apis = apis(ctx, ids);
            groups.register(ctx, apis);
            txns.register(ctx, apis);
            startHandlers(config.numIoThreads(), e.getValue(), apis);
        }
        if (controllerRequests != null) startHandlers(2, controllerRequests, new ControllerApis(controllerRequests, controller));

        controller.addListener(metadata);
        lifecycle = new BrokerLifecycle(config.nodeId(), clusterId, time, controllerChannel, metadata::image,
                advertised, config.cluster().brokerHeartbeatIntervalMs(), config.rack());
        RequestHandlerWatchdog watchdog = new RequestHandlerWatchdog(time, config.requestStallTimeoutMs());
        channels.forEach(watchdog::watch);
        if (controllerRequests != null) watchdog.watch(controllerListener.name(), controllerRequests);
        lifecycle.stopHeartbeatsWhileStalled(watchdog::progressing);
        maintenanceTask = time.scheduler().scheduleWithFixedDelay("log-maintenance", this::maintenance,
                config.maintenanceIntervalMs(), config.maintenanceIntervalMs());
        // The controller listener serves at once (other brokers register through it); the broker listeners only once
        // this broker is registered, caught up, unfenced and has loaded its groups, so clients never see it half up.
        if (controllerListener != null) servers.get(controllerListener.name()).start();
        lifecycle.start();
        awaitUnfenced(stages);
        groups.load();
        groups.ensureOffsetsTopic();
        txns.start();
        stages.done("loading the group coordinator state", "offsets partitions led here");
        if (config.cluster().standalone()) {
            // Alone, this node creates it now, so the first FindCoordinator already finds a coordinator.
            try {
                metadata.await(img -> img.topic(org.apache.kafka.common.internals.Topic.GROUP_METADATA_TOPIC_NAME)
                        .isPresent(), 10_000).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                log.warn("{} not created yet: {}", org.apache.kafka.common.internals.Topic.GROUP_METADATA_TOPIC_NAME,
                        e.toString());
            }
        }
        for (Listener l : config.listeners().brokerListeners()) {
            SocketServer s = servers.containsKey(l.name()) ? servers.get(l.name())
                    : bind(l, channels.get(l.name()), SupportedApis::isSupported);
            s.start();
        }
        stages.done("binding the client listeners", "ready");
        log.info("Broker {} of cluster {} started in {} ms, advertising {}", config.nodeId(), clusterId,
                stages.sinceStartMs(), advertised);
        return this;
    }

    private static ControllerNode awaitControllerStart(CompletableFuture<ControllerNode> start) throws IOException {
        try {
            return start.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            start.thenAccept(ControllerNode::close);
            throw new IOException("interrupted while the metadata quorum member started", e);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new IOException("the metadata quorum member did not start", e.getCause());
        }
    }

    private KafkaApis apis(BrokerContext ctx, ProducerIdManager ids) {
        KafkaApis apis = new KafkaApis(ctx);
        TopicApis topicApis = new TopicApis(ctx);
        OffsetApis offsetApis = new OffsetApis(ctx);
        ConfigApis configApis = new ConfigApis(ctx);
        apis.register(ApiKeys.API_VERSIONS, new ApiVersionsApi(ctx)::handle)
                .register(ApiKeys.METADATA, topicApis::metadata)
                .register(ApiKeys.CREATE_TOPICS, topicApis::createTopics)
                .register(ApiKeys.DELETE_TOPICS, topicApis::deleteTopics)
                .register(ApiKeys.CREATE_PARTITIONS, topicApis::createPartitions)
                .register(ApiKeys.DESCRIBE_CLUSTER, topicApis::describeCluster)
                .register(ApiKeys.DESCRIBE_CONFIGS, configApis::describeConfigs)
                .register(ApiKeys.INCREMENTAL_ALTER_CONFIGS, configApis::alterConfigs)
                .register(ApiKeys.ALTER_CONFIGS, configApis::alterConfigs)
                .register(ApiKeys.PRODUCE, new ProduceApi(ctx)::handle)
                .register(ApiKeys.FETCH, new FetchApi(ctx)::handle)
                .register(ApiKeys.LIST_OFFSETS, offsetApis::listOffsets)
                .register(ApiKeys.OFFSET_FOR_LEADER_EPOCH, offsetApis::offsetForLeaderEpoch)
                .register(ApiKeys.INIT_PRODUCER_ID, new ProducerIdApi(ctx, ids)::handle);
        LogAdminApis logAdmin = new LogAdminApis(ctx);
        new io.faultline.broker.api.ReplicaAdminApis(ctx).registerWith(apis);
        apis.register(ApiKeys.DELETE_RECORDS, logAdmin::deleteRecords)
                .register(ApiKeys.DESCRIBE_LOG_DIRS, logAdmin::describeLogDirs);
        QuotaApis quotas = new QuotaApis(ctx);
        apis.register(ApiKeys.DESCRIBE_CLIENT_QUOTAS, quotas::describeClientQuotas)
                .register(ApiKeys.ALTER_CLIENT_QUOTAS, quotas::alterClientQuotas)
                .register(ApiKeys.DESCRIBE_ACLS, r -> SecurityApis.acls(ctx, r))
                .register(ApiKeys.CREATE_ACLS, r -> SecurityApis.acls(ctx, r))
                .register(ApiKeys.DELETE_ACLS, r -> SecurityApis.acls(ctx, r))
                .register(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, r -> SecurityApis.describeUserScramCredentials(ctx, r))
                .register(ApiKeys.UPDATE_FEATURES, new FeatureApis(ctx)::updateFeatures);
        return apis;
    }

    private SocketServer bind(Listener l, RequestChannel ch, BiPredicate<ApiKeys, Short> supported) throws IOException {
        SocketServer s = new SocketServer(new SocketServer.Settings(l.bindHost(), l.port(), config.numNetworkThreads(),
                config.socketRequestMaxBytes(), config.maxConnections(), config.connectionsMaxIdleMs(),
                config.queuedMaxRequestBytes()), ch, time, supported,
                io.faultline.broker.common.FatalErrorHandler.halting(), requestMemory);
        servers.put(l.name(), s);
        return s;
    }

    private void startHandlers(int threads, RequestChannel ch, RequestDispatcher dispatcher) {
        toClose.add(0, new RequestHandlerPool(threads, ch, dispatcher));
    }

    /** Like Kafka, a wildcard listener without advertised.listeners advertises this machine's host name. */
    private Endpoint advertisedEndpoint(Listener bound, int boundPort) {
        Listener a = config.listeners().advertised().getOrDefault(bound.name(), bound);
        String host = a.wildcard() ? localHostName() : a.host();
        return new Endpoint(host, a.port() == 0 ? boundPort : a.port());
    }

    private static String localHostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "127.0.0.1";
        }
    }

    /**
     * The quorum: the voters of controller.quorum.voters (Raft port = controller port + 1000) and the listed
     * non-voters; without voters, a one-voter quorum of this node alone on an ephemeral loopback port.
     */
    private ControllerNodeConfig controllerConfig() {
        ControllerSettings settings = ControllerSettings.DEFAULTS
                .withSessionTimeout(config.cluster().brokerSessionTimeoutMs(), config.cluster().brokerHeartbeatIntervalMs())
                .withDefaults(config.cluster().defaultReplicationFactor(), config.numPartitions())
                // Validated before any work: a request cannot make the cluster create more than a broker can open.
                .withPartitionLimits(io.faultline.broker.common.TopicLimits.MAX_PARTITIONS_PER_TOPIC,
                        io.faultline.broker.common.TopicLimits.MAX_PARTITIONS_PER_REQUEST,
                        io.faultline.broker.common.TopicLimits.MAX_PARTITIONS_PER_BROKER)
                .withBugs(config.bugs())
                .withUncleanLeaderElection(config.cluster().uncleanLeaderElection())
                .withLeaderRebalance(config.cluster().autoLeaderRebalance(),
                        config.cluster().leaderImbalanceCheckIntervalMs(), config.cluster().leaderImbalancePerBrokerPercentage());
        int election = config.cluster().quorumElectionTimeoutMs();
        if (election > 0) {
            settings = settings.withRaft(election, 2 * election, settings.snapshotThreshold());
        } else if (config.cluster().standalone()) {
            // A one-voter quorum has no one to wait for: elect at once, so a restart is not held up by it.
            settings = settings.withRaft(100, 200, settings.snapshotThreshold());
        }
        int offset = QuorumVoters.DEFAULT_RAFT_PORT_OFFSET;
        Map<Integer, InetSocketAddress> voters = config.cluster().standalone()
                ? Map.of(config.nodeId(), InetSocketAddress.createUnresolved("127.0.0.1", 0))
                : QuorumVoters.shiftPorts(config.cluster().voters(), offset);
        return new ControllerNodeConfig(config.nodeId(), voters,
                QuorumVoters.shiftPorts(config.cluster().quorumListeners(), offset), config.metadataDir(), time,
                settings, null);
    }

    private void awaitUnfenced(StartupStages stages) {
        try {
            int id = config.nodeId();
            long deadline = time.hiResMillis() + STARTUP_WAIT_MS;
            lifecycle.caughtUp().get(STARTUP_WAIT_MS, TimeUnit.MILLISECONDS);
            stages.done("registering with the controller and catching up to the registration",
                    "broker epoch " + lifecycle.brokerEpoch() + ", active controller "
                            + controller.activeControllerId().orElse(-1) + ", metadata offset " + metadata.image().offset());
            lifecycle.unfenced().get(Math.max(1, deadline - time.hiResMillis()), TimeUnit.MILLISECONDS);
            // Unfenced by the controller, and seen so in this node's own metadata (what its answers come from): this
            // registration's epoch, not an older one still unfenced in a snapshot being replayed.
            metadata.await(img -> img.broker(id).map(b -> !b.fenced() && b.epoch() == lifecycle.brokerEpoch())
                            .orElse(false), STARTUP_WAIT_MS)
                    .get(Math.max(1, deadline - time.hiResMillis()), TimeUnit.MILLISECONDS);
            stages.done("being unfenced", "metadata offset " + metadata.image().offset());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("Broker {} not registered and caught up after {} ms; serving anyway", config.nodeId(), STARTUP_WAIT_MS);
        }
    }

    private MetadataImage partitionImage() {
        PartitionManager p = partitions;
        return p == null ? MetadataImage.EMPTY : p.image();
    }

    private void maintenance() {
        try {
            partitions.maintenance();
        } catch (RuntimeException e) {
            log.warn("Log maintenance failed: {}", e.toString());
        }
    }

    public int boundPort() {
        return servers.get(config.listeners().clientListener().name()).boundPort();
    }

    /** The bound port of a listener by name (tests bind port 0). */
    public int boundPort(String listenerName) {
        return servers.get(listenerName).boundPort();
    }

    /** The client listener's server (its request memory pool, for tests). */
    public SocketServer socketServer() {
        return servers.get(config.listeners().clientListener().name());
    }

    /** Records of {@code __consumer_offsets} that loading skipped because they could not be parsed. */
    public long groupStoreMalformedRecords() {
        GroupWiring g = groups;
        return g == null ? 0 : g.malformedRecords();
    }

    public BrokerContext context() {
        return context;
    }

    public ControllerNode controller() {
        return controller;
    }

    /**
     * Clean shutdown: a controlled shutdown first (the controller moves this broker's leaderships away, bounded by
     * the session timeout), then stop accepting, drain the I/O threads, flush and close the logs (clean marker).
     */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        log.info("Broker {} shutting down", config.nodeId());
        boolean alone = metadata != null
                && metadata.image().brokers().keySet().equals(java.util.Set.of(config.nodeId()));
        if (lifecycle != null) {
            // Alone, no other broker could take the leaderships over: a controlled shutdown would only take them
            // offline and slow the restart down.
            if (!alone) lifecycle.controlledShutdown(config.cluster().brokerSessionTimeoutMs());
            lifecycle.close();
        }
        for (SocketServer s : servers.values()) s.close();
        if (maintenanceTask != null) maintenanceTask.cancel();
        if (controllerChannel != null) controllerChannel.close();
        for (AutoCloseable c : toClose) {
            try {
                c.close();
            } catch (Exception e) {
                log.warn("Error closing {}: {}", c, e.toString());
            }
        }
        if (txns != null) txns.close();
        if (groups != null) groups.close();
        if (replication != null) replication.close();
        if (partitions != null) partitions.close();
        log.info("Broker {} shut down cleanly", config.nodeId());
    }
}
