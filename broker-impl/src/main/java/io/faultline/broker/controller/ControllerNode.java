package io.faultline.broker.controller;

import io.faultline.broker.metadata.MetadataDelta;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord;
import io.faultline.broker.metadata.MetadataSerde;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's member of the metadata quorum (a Ratis voter or listener) and, while it is the Raft leader, the
 * active controller. Decisions are made by {@link ControllerLogic} on one controller thread, one at a time,
 * against the image with everything committed applied; a response is sent only after its records are committed
 * and applied. Committed changes are published to {@link MetadataListener}s on one publisher thread, in order.
 */
public final class ControllerNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ControllerNode.class);

    private final ControllerNodeConfig cfg;
    private final ControllerLogic logic;
    private final MetadataStateMachine stateMachine;
    private final RaftServer server;
    private final ExecutorService controllerThread;
    private final ExecutorService publisher;
    private final Runnable cancelTicker;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    /** Publisher-thread state. */
    private final List<MetadataListener> listeners = new ArrayList<>();
    private MetadataImage lastPublished = MetadataImage.EMPTY;
    private volatile int knownLeader = -1;
    /** The Raft leader before {@link #knownLeader}: when this node takes over, most likely dead or cut off. */
    private volatile int leaderBefore = -1;
    /** The Raft term in which this node activated as controller, or -1. */
    private volatile long activeTerm = -1;
    private volatile boolean closed;
    private final AtomicBoolean tickQueued = new AtomicBoolean();

    private ControllerNode(ControllerNodeConfig cfg) throws IOException {
        this.cfg = cfg;
        this.logic = new ControllerLogic(cfg.time(), cfg.settings());
        logic.setLocalNode(cfg.nodeId());
        int id = cfg.nodeId();
        this.controllerThread = Executors.newSingleThreadExecutor(r -> daemon(r, "controller-" + id));
        this.publisher = Executors.newSingleThreadExecutor(r -> daemon(r, "metadata-publisher-" + id));
        this.stateMachine = new MetadataStateMachine(new MetadataStateMachine.Events() {
            @Override
            public void applied(MetadataImage before, MetadataImage after) {
                runOn(publisher, guarded("publishing offset " + after.offset(), () -> publish(after)));
            }

            @Override
            public void leaderChanged(RaftPeerId leader) {
                int now = RaftSetup.nodeId(leader);
                if (now >= 0 && now != knownLeader && knownLeader >= 0) leaderBefore = knownLeader;
                if (now >= 0) knownLeader = now;
                if (now != cfg.nodeId()) activeTerm = -1;
            }

            @Override
            public void leaderReady() {
                runOn(controllerThread, guarded("activation", ControllerNode.this::reconcileActivation));
            }
        });
        Files.createDirectories(cfg.metadataDir());
        this.server = RaftServer.newBuilder().setServerId(RaftSetup.peerId(id)).setGroup(RaftSetup.group(cfg))
                .setProperties(RaftSetup.properties(cfg)).setStateMachine(stateMachine)
                .setOption(RaftStorage.StartupOption.RECOVER).build();
        server.start();
        long every = Math.max(50, Math.min(250, cfg.settings().brokerHeartbeatIntervalMs() / 2));
        // At most one tick waits in the controller queue: a thread that fell behind does not pile them up.
        Runnable enqueueTick = () -> {
            if (tickQueued.compareAndSet(false, true)) runOn(controllerThread, guarded("tick", this::tick));
        };
        if (cfg.scheduler() != null) {
            ScheduledFuture<?> f = cfg.scheduler().scheduleWithFixedDelay(enqueueTick, every, every, TimeUnit.MILLISECONDS);
            this.cancelTicker = () -> f.cancel(false);
        } else {
            // The broker's scheduler seam: on a test's manual clock the session check runs as the clock moves.
            this.cancelTicker = cfg.time().scheduler().scheduleWithFixedDelay("controller-tick-" + id, enqueueTick,
                    every, every)::cancel;
        }
    }

    /** Starts this node's Raft server (recovering its snapshot and log from the metadata directory). */
    public static ControllerNode start(ControllerNodeConfig cfg) {
        try {
            return new ControllerNode(cfg);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the controller of node " + cfg.nodeId(), e);
        }
    }

    /** Hands work to one of this node's threads; after close there is nothing left to do, so it is dropped. */
    private void runOn(ExecutorService executor, Runnable work) {
        if (closed) return;
        try {
            executor.execute(work);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            LOG.debug("node {} is closing: dropped {}", cfg.nodeId(), work);
        }
    }

    /**
     * Work for this node's threads: a bug in one task is logged and the thread goes on with the next, instead of
     * reaching the process's uncaught-exception handler (which halts the broker). An Error still propagates.
     */
    static Runnable guarded(String what, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.error("controller task '{}' failed; carrying on", what, e);
            }
        };
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    public int nodeId() {
        return cfg.nodeId();
    }

    /** True while this node is the Raft leader and has applied everything committed before its term. */
    public boolean isActive() {
        if (activeTerm < 0 || closed) return false;
        try {
            RaftServer.Division d = division();
            return d.getInfo().isLeader() && d.getInfo().getCurrentTerm() == activeTerm;
        } catch (IOException e) {
            return false;
        }
    }

    /** The active controller (Raft leader) as the local Raft view knows it; also known on listeners. */
    public OptionalInt activeControllerId() {
        int id = -1;
        try {
            id = RaftSetup.nodeId(division().getInfo().getLeaderId());
        } catch (IOException e) {
            // closed or not started: fall back to the last notification
        }
        if (id < 0) id = knownLeader;
        // Without a leader in the Raft view, the last one known may be this node, deposed meanwhile (it stepped down
        // after a pause): naming itself would send this node's own requests to a controller that refuses them all.
        if (id == cfg.nodeId() && !isActive()) id = -1;
        return id < 0 ? OptionalInt.empty() : OptionalInt.of(id);
    }

    /** The latest committed image applied on this node. */
    public MetadataImage image() {
        return stateMachine.image();
    }

    /**
     * Adds a listener. It is first called with the delta from {@link MetadataImage#EMPTY} to the latest published
     * image (what this node restored from snapshot and log so far), then for every later commit, in order.
     */
    public void addListener(MetadataListener listener) {
        publisher.execute(guarded("adding a listener", () -> {
            listeners.add(listener);
            notify(listener, MetadataDelta.between(MetadataImage.EMPTY, lastPublished), lastPublished);
        }));
    }

    private void publish(MetadataImage image) {
        MetadataDelta delta = MetadataDelta.between(lastPublished, image);
        lastPublished = image;
        for (MetadataListener l : listeners) notify(l, delta, image);
    }

    private static void notify(MetadataListener l, MetadataDelta delta, MetadataImage image) {
        try {
            l.onCommit(delta, image);
        } catch (RuntimeException e) {
            LOG.error("metadata listener {} failed at offset {}", l, image.offset(), e);
        }
    }

    /**
     * Handles BrokerRegistration, BrokerHeartbeat, AlterPartition, CreateTopics, DeleteTopics, CreatePartitions,
     * IncrementalAlterConfigs, AlterConfigs, AlterClientQuotas, AlterPartitionReassignments and ElectLeaders
     * (DescribeQuorum is answered from the Raft leader's state at once). Completes with the response once its records are committed;
     * with NOT_CONTROLLER (in the response's error fields) when this node is not, or stops being, the active
     * controller. Fails with IllegalArgumentException for any other request type.
     */
    public CompletableFuture<ApiMessage> handle(RequestHeader header, ApiMessage request) {
        if (request instanceof org.apache.kafka.common.message.DescribeQuorumRequestData) {
            return CompletableFuture.completedFuture(describeQuorum(request));
        }
        if (!ControllerLogic.handles(request)) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "the controller does not handle " + request.getClass().getSimpleName()));
        }
        if (!isActive()) return CompletableFuture.completedFuture(ErrorResponses.of(request, Errors.NOT_CONTROLLER));
        if (request instanceof BrokerHeartbeatRequestData hb) logic.heartbeatArrived(hb.brokerId(), hb.brokerEpoch());
        CompletableFuture<ApiMessage> result = new CompletableFuture<>();
        try {
            controllerThread.execute(() -> {
                try {
                    result.complete(decideAndWrite(request));
                } catch (RuntimeException e) {
                    LOG.error("controller failed on {}", request.getClass().getSimpleName(), e);
                    result.complete(ErrorResponses.of(request, Errors.UNKNOWN_SERVER_ERROR));
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            result.complete(ErrorResponses.of(request, Errors.NOT_CONTROLLER));
        }
        return result;
    }

    /**
     * Any thread: the connection that carried {@code brokerId}'s heartbeats closed (see
     * {@link ControllerLogic#connectionLost}); a live broker heartbeats again on a new one within its interval.
     */
    public void connectionLost(int brokerId, long brokerEpoch) {
        logic.connectionLost(brokerId, brokerEpoch);
    }

    private ApiMessage decideAndWrite(ApiMessage request) {
        if (!isActive() || !awaitAppliedLog()) return ErrorResponses.of(request, Errors.NOT_CONTROLLER);
        ControllerResult<? extends ApiMessage> r = logic.handle(stateMachine.image(), request);
        if (r.records().isEmpty()) return r.response();
        Errors e = write(r.records());
        return e == Errors.NONE ? r.response() : ErrorResponses.of(request, e);
    }

    /** DescribeQuorum: the Raft leader's view of the quorum (it alone knows the followers' progress). */
    private ApiMessage describeQuorum(ApiMessage request) {
        try {
            RaftServer.Division d = division();
            if (!d.getInfo().isLeader()) return ErrorResponses.of(request, Errors.NOT_CONTROLLER);
            return QuorumStatus.describe(d, System.currentTimeMillis());
        } catch (IOException e) {
            return ErrorResponses.of(request, Errors.NOT_CONTROLLER);
        }
    }

    /**
     * Controller thread: (de)activate with the Raft role, then fence brokers whose session lapsed, then (when due)
     * move leaderships back to preferred replicas.
     */
    private void tick() {
        tickQueued.set(false);
        if (closed) return;
        reconcileActivation();
        if (!isActive()) return;
        if (!awaitAppliedLog()) return;
        ControllerResult<List<Integer>> r = logic.fenceExpiredBrokers(stateMachine.image());
        if (!r.records().isEmpty()) {
            // Logged once committed: a controller resumed after a pause still believes it leads until Raft tells it
            // otherwise, sees every session as lapsed and decides to fence everyone, but those records never commit.
            Errors written = write(r.records());
            if (written != Errors.NONE) {
                LOG.info("node {}: decided to fence brokers {} (session expired), not committed: {}", cfg.nodeId(),
                        r.response(), written);
                return;
            }
            LOG.info("node {}: fenced brokers {} (session expired)", cfg.nodeId(), r.response());
        }
        var moved = logic.rebalanceLeaders(stateMachine.image());
        if (moved.records().isEmpty()) return;
        LOG.info("node {}: moving leadership back to the preferred replica of {}", cfg.nodeId(), moved.response());
        write(moved.records());
    }

    private void reconcileActivation() {
        if (closed) return;
        try {
            RaftServer.Division d = division();
            boolean leaderReady = d.getInfo().isLeader() && d.getInfo().isLeaderReady();
            long term = d.getInfo().getCurrentTerm();
            if (!leaderReady) {
                activeTerm = -1;
            } else if (activeTerm != term && awaitAppliedLog()) {
                // Raft replaced the previous leader because it went silent: its broker (same node) is suspect.
                int suspect = leaderBefore != cfg.nodeId() ? leaderBefore : -1;
                logic.activate(stateMachine.image(), suspect);
                activeTerm = term;
                knownLeader = cfg.nodeId();
                LOG.info("node {}: active controller in term {} at offset {}", cfg.nodeId(), term, stateMachine.image().offset());
            }
        } catch (IOException e) {
            activeTerm = -1;
        }
    }

    /** Waits (bounded) until every entry in the local Raft log is applied, so decisions see all prior writes. */
    private boolean awaitAppliedLog() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(cfg.settings().writeTimeoutMs());
        try {
            RaftServer.Division d = division();
            while (true) {
                long last = d.getRaftLog().getLastEntryTermIndex() == null ? -1 : d.getRaftLog().getLastEntryTermIndex().getIndex();
                if (d.getInfo().getLastAppliedIndex() >= last) return true;
                if (System.nanoTime() > deadline || closed || !d.getInfo().isLeader()) return false;
                Thread.sleep(2); // only right after a failover or a failed write
            }
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Commits one batch through Raft and waits until it is applied here. */
    private Errors write(List<MetadataRecord> records) {
        byte[] batch = MetadataSerde.serializeBatch(records);
        if (batch.length > ControllerLogic.MAX_BATCH_BYTES) {
            // It could never be replicated and would wedge the log: refuse it (a bug, or an absurd cluster).
            LOG.error("node {}: refusing to write a metadata batch of {} records and {} bytes (limit {})",
                    cfg.nodeId(), records.size(), batch.length, ControllerLogic.MAX_BATCH_BYTES);
            return Errors.INVALID_REQUEST;
        }
        RaftClientRequest req = RaftClientRequest.newBuilder().setClientId(clientId)
                .setServerId(RaftSetup.peerId(cfg.nodeId())).setGroupId(RaftSetup.GROUP_ID)
                .setCallId(callIds.incrementAndGet())
                .setMessage(Message.valueOf(ByteString.copyFrom(batch)))
                .setType(RaftClientRequest.writeRequestType()).build();
        try {
            RaftClientReply reply = server.submitClientRequestAsync(req)
                    .get(cfg.settings().writeTimeoutMs(), TimeUnit.MILLISECONDS);
            if (!reply.isSuccess()) {
                LOG.info("node {}: metadata write failed: {}", cfg.nodeId(), reply.getException() == null ? "?" : reply.getException().toString());
                activeTerm = -1;
                return Errors.NOT_CONTROLLER;
            }
            String outcome = reply.getMessage().getContent().toStringUtf8();
            if (outcome.startsWith(MetadataStateMachine.REJECTED)) {
                LOG.warn("node {}: metadata batch rejected on replay ({})", cfg.nodeId(), outcome);
                return Errors.NOT_CONTROLLER;
            }
            return Errors.NONE;
        } catch (TimeoutException e) {
            return Errors.REQUEST_TIMED_OUT;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Errors.NOT_CONTROLLER;
        } catch (Exception e) {
            LOG.info("node {}: metadata write failed: {}", cfg.nodeId(), e.toString());
            activeTerm = -1;
            return Errors.NOT_CONTROLLER;
        }
    }

    private RaftServer.Division division() throws IOException {
        return server.getDivision(RaftSetup.GROUP_ID);
    }

    /** First index still in the local Raft log (entries before it were purged after a snapshot); for tests. */
    long raftLogStartIndex() throws IOException {
        return division().getRaftLog().getStartIndex();
    }

    /** Last index in the local Raft log; for tests. */
    long raftLogLastIndex() throws IOException {
        var last = division().getRaftLog().getLastEntryTermIndex();
        return last == null ? -1 : last.getIndex();
    }

    /** Takes a snapshot of the image now (normally automatic every {@code snapshotThreshold} entries). */
    public long takeSnapshot() throws IOException {
        return stateMachine.takeSnapshot();
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        activeTerm = -1;
        cancelTicker.run();
        controllerThread.shutdownNow();
        try {
            server.close();
        } catch (IOException e) {
            LOG.warn("node {}: closing the Raft server failed", cfg.nodeId(), e);
        }
        publisher.shutdown();
        try {
            controllerThread.awaitTermination(5, TimeUnit.SECONDS);
            publisher.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
