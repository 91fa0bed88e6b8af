package io.faultline.broker.server;

import io.faultline.broker.api.BrokerContext;
import io.faultline.broker.api.TopicManager;
import io.faultline.broker.config.BrokerConfig;
import io.faultline.broker.api.ApiVersionsApi;
import io.faultline.broker.api.ConfigApis;
import io.faultline.broker.api.FetchApi;
import io.faultline.broker.api.KafkaApis;
import io.faultline.broker.api.OffsetApis;
import io.faultline.broker.api.ProduceApi;
import io.faultline.broker.api.ProducerIdApi;
import io.faultline.broker.api.SupportedApis;
import io.faultline.broker.api.TopicApis;
import io.faultline.broker.common.Scheduler;
import io.faultline.broker.common.Time;
import io.faultline.broker.metadata.TopicInfo;
import io.faultline.broker.metadata.TopicRegistry;
import io.faultline.broker.network.RequestChannel;
import io.faultline.broker.network.RequestHandlerPool;
import io.faultline.broker.network.SocketServer;
import io.faultline.broker.partition.LogStore;
import io.faultline.broker.partition.PartitionManager;
import io.faultline.broker.replication.ReplicaManager;
import io.faultline.broker.partition.ProducerIdManager;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One broker node: wires storage, partitions, the API handlers and the network layer; starts and stops them. */
public final class KafkaBroker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KafkaBroker.class);

    private final BrokerConfig config;
    private final Time time;
    private PartitionManager partitions;
    private ReplicaManager replication;
    private SocketServer socketServer;
    private RequestHandlerPool handlerPool;
    private Scheduler.Cancellable maintenanceTask;
    private BrokerContext context;
    private Runnable extraShutdown = () -> { };
    private volatile boolean closed;

    public KafkaBroker(BrokerConfig config, Time time) {
        this.config = config;
        this.time = time;
    }

    public synchronized KafkaBroker start() throws IOException {
        Path dir = config.logDir();
        Files.createDirectories(dir);
        String clusterId = clusterId(dir);
        TopicRegistry topics = new TopicRegistry(dir);
        LogStore logs = LogStore.open(config.logDirs(), tp -> config.defaultLogConfig().with(
                topics.byName(tp.topic()).map(TopicInfo::configs).orElse(Map.of())), time);
        partitions = new PartitionManager(config.nodeId(), logs, dir, time);
        replication = ReplicationWiring.wire(config, time, partitions, ReplicationWiring.NO_CONTROLLER);
        TopicManager topicManager = new TopicManager(config, topics, partitions);
        topicManager.start();

        RequestChannel channel = new RequestChannel(config.queuedMaxRequests());
        socketServer = new SocketServer(new SocketServer.Settings(config.listenerHost(), config.listenerPort(),
                config.numNetworkThreads(), config.socketRequestMaxBytes(), config.maxConnections(),
                config.connectionsMaxIdleMs()), channel, time, SupportedApis::isSupported);
        int advertisedPort = config.advertisedPort() == 0 ? socketServer.boundPort() : config.advertisedPort();
        String advertisedHost = config.advertisedHost().equals("0.0.0.0") ? localHostName() : config.advertisedHost();
        context = new BrokerContext(config, clusterId, advertisedHost, advertisedPort, channel, topics, topicManager,
                partitions, time, replication);

        KafkaApis apis = new KafkaApis(context);
        TopicApis topicApis = new TopicApis(context);
        OffsetApis offsetApis = new OffsetApis(context);
        apis.register(ApiKeys.API_VERSIONS, new ApiVersionsApi(context)::handle)
                .register(ApiKeys.METADATA, topicApis::metadata)
                .register(ApiKeys.CREATE_TOPICS, topicApis::createTopics)
                .register(ApiKeys.DELETE_TOPICS, topicApis::deleteTopics)
                .register(ApiKeys.DESCRIBE_CLUSTER, topicApis::describeCluster)
                .register(ApiKeys.DESCRIBE_CONFIGS, new ConfigApis(context)::describeConfigs)
                .register(ApiKeys.PRODUCE, new ProduceApi(context)::handle)
                .register(ApiKeys.FETCH, new FetchApi(context)::handle)
                .register(ApiKeys.LIST_OFFSETS, offsetApis::listOffsets)
                .register(ApiKeys.OFFSET_FOR_LEADER_EPOCH, offsetApis::offsetForLeaderEpoch)
                .register(ApiKeys.INIT_PRODUCER_ID, new ProducerIdApi(context, new ProducerIdManager(dir))::handle);
        extraShutdown = GroupWiring.wire(context, apis);

        handlerPool = new RequestHandlerPool(config.numIoThreads(), channel, apis);
        maintenanceTask = time.scheduler().scheduleWithFixedDelay("log-maintenance", this::maintenance,
                config.maintenanceIntervalMs(), config.maintenanceIntervalMs());
        socketServer.start();
        log.info("Broker {} of cluster {} started, advertising {}:{}", config.nodeId(), clusterId, advertisedHost,
                advertisedPort);
        return this;
    }

    /** Like Kafka, a wildcard listener without advertised.listeners advertises this machine's host name. */
    private static String localHostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "127.0.0.1";
        }
    }

    private void maintenance() {
        try {
            partitions.maintenance();
        } catch (RuntimeException e) {
            log.warn("Log maintenance failed: {}", e.toString());
        }
    }

    public int boundPort() {
        return socketServer.boundPort();
    }

    public BrokerContext context() {
        return context;
    }

    /** The cluster id is made once per data directory and kept in meta.properties, like Kafka's. */
    private String clusterId(Path dir) throws IOException {
        Path meta = dir.resolve("meta.properties");
        Properties p = new Properties();
        if (Files.exists(meta)) {
            try (Reader r = Files.newBufferedReader(meta)) {
                p.load(r);
            }
            String id = p.getProperty("cluster.id");
            if (id != null) return id;
        }
        p.setProperty("cluster.id", Uuid.randomUuid().toString());
        p.setProperty("node.id", Integer.toString(config.nodeId()));
        p.setProperty("version", "1");
        try (Writer w = Files.newBufferedWriter(meta)) {
            p.store(w, "Faultline broker");
        }
        return p.getProperty("cluster.id");
    }

    /** Clean shutdown: stop accepting, drain the I/O threads, then flush and close the logs (clean marker). */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        log.info("Broker {} shutting down", config.nodeId());
        if (socketServer != null) socketServer.close();
        if (handlerPool != null) handlerPool.close();
        if (maintenanceTask != null) maintenanceTask.cancel();
        extraShutdown.run();
        if (replication != null) replication.close();
        if (partitions != null) partitions.close();
        log.info("Broker {} shut down cleanly", config.nodeId());
    }
}
