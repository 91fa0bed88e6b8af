package io.faultline.broker.server;

import io.faultline.broker.common.Scheduler;
import io.faultline.broker.common.Time;
import io.faultline.broker.metadata.BrokerRegistration;
import io.faultline.broker.metadata.Endpoint;
import io.faultline.broker.metadata.MetadataImage;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's side of its lifecycle with the controller (Kafka's BrokerLifecycleManager): registers with a fresh
 * incarnation id and its listeners, then heartbeats every broker.heartbeat.interval.ms on the scheduler seam, asking
 * to stay fenced until its own metadata has caught up with its registration. A lost registration (stale epoch,
 * unknown broker) registers again. For a controlled shutdown it heartbeats with wantShutDown until the controller
 * answers shouldShutDown.
 */
final class BrokerLifecycle implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BrokerLifecycle.class);

    private final int nodeId;
    private final String clusterId;
    private final Time time;
    private final ControllerChannel controller;
    private final Supplier<MetadataImage> image;
    private final Map<String, Endpoint> endpoints;
    private final int heartbeatIntervalMs;
    private final String rack;
    private final Uuid incarnationId = Uuid.randomUuid();
    private final AtomicBoolean inFlight = new AtomicBoolean();
    private final CompletableFuture<Void> caughtUp = new CompletableFuture<>();
    private final CompletableFuture<Void> shutdownAllowed = new CompletableFuture<>();
    private final CompletableFuture<Void> unfenced = new CompletableFuture<>();
    /** While fenced (starting up), heartbeats go this often so the broker is unfenced soon after it catches up. */
    private static final long FENCED_RETRY_MS = 50;
    private volatile long epoch = -1;
    private volatile boolean fenced = true;
    private volatile boolean wantShutDown;
    /** Set during a round trip: run the next one after this many ms instead of waiting for the period (-1: no). */
    private volatile long retickMs = -1;
    private Scheduler.Cancellable ticker;
    /** False while the request handlers are stalled: no heartbeat goes out, so the controller fences this node. */
    private volatile java.util.function.BooleanSupplier handlersProgressing = () -> true;

    BrokerLifecycle(int nodeId, String clusterId, Time time, ControllerChannel controller,
                    Supplier<MetadataImage> image, Map<String, Endpoint> endpoints, int heartbeatIntervalMs, String rack) {
        this.nodeId = nodeId;
        this.rack = rack;
        this.clusterId = clusterId;
        this.time = time;
        this.controller = controller;
        this.image = image;
        this.endpoints = Map.copyOf(endpoints);
        this.heartbeatIntervalMs = heartbeatIntervalMs;
    }

    /** See {@link io.faultline.broker.network.RequestHandlerWatchdog}: sampled before each heartbeat. */
    void stopHeartbeatsWhileStalled(java.util.function.BooleanSupplier progressing) {
        this.handlersProgressing = progressing;
    }

    synchronized void start() {
        ticker = time.scheduler().scheduleWithFixedDelay("broker-heartbeat", this::tick, 0, heartbeatIntervalMs);
    }

    /** Completes once the controller registered this broker and this node's metadata shows the registration. */
    CompletableFuture<Void> caughtUp() {
        return caughtUp;
    }

    /** Completes the first time the controller answers that this broker is unfenced. */
    CompletableFuture<Void> unfenced() {
        return unfenced;
    }

    long brokerEpoch() {
        return epoch;
    }

    boolean fenced() {
        return fenced;
    }

    private boolean seesOwnRegistration() {
        long e = epoch;
        BrokerRegistration b = image.get().brokers().get(nodeId);
        return e >= 0 && b != null && b.epoch() == e && b.incarnationId().equals(incarnationId);
    }

    /** One registration or heartbeat at a time; the next tick retries whatever failed. */
    void tick() {
        if (!inFlight.compareAndSet(false, true)) return;
        if (epoch < 0) register();
        else heartbeat();
    }

    private void register() {
        BrokerRegistrationRequestData req = new BrokerRegistrationRequestData().setBrokerId(nodeId)
                .setClusterId(clusterId).setIncarnationId(incarnationId).setRack(rack).setIsMigratingZkBroker(false);
        endpoints.forEach((name, e) -> req.listeners().add(new BrokerRegistrationRequestData.Listener().setName(name)
                .setHost(e.host()).setPort(e.port()).setSecurityProtocol(SecurityProtocol.PLAINTEXT.id)));
        controller.send(ApiKeys.BROKER_REGISTRATION, ApiKeys.BROKER_REGISTRATION.latestVersion(), req)
                .whenComplete((resp, e) -> {
                    try {
                        if (e != null) {
                            log.info("Registration of broker {} not answered yet: {}", nodeId, e.getMessage());
                            return;
                        }
                        BrokerRegistrationResponseData r = (BrokerRegistrationResponseData) resp;
                        if (r.errorCode() != Errors.NONE.code()) {
                            log.info("Registration of broker {} refused: {}", nodeId, Errors.forCode(r.errorCode()));
                            return;
                        }
                        epoch = r.brokerEpoch();
                        log.info("Broker {} registered with epoch {} (incarnation {})", nodeId, epoch, incarnationId);
                        retickMs = 0; // heartbeat at once: the broker is fenced until then
                    } finally {
                        done();
                    }
                });
    }

    /** Ends the round trip in flight, then runs the next one early if it asked to. */
    private void done() {
        long d = retickMs;
        retickMs = -1;
        inFlight.set(false);
        if (d >= 0) time.scheduler().schedule("early-heartbeat", this::tick, d);
    }

    private void heartbeat() {
        // A node that answers no request must not look alive; a controlled shutdown still gets its answers.
        if (!handlersProgressing.getAsBoolean() && !wantShutDown) {
            done();
            return;
        }
        boolean sees = seesOwnRegistration();
        if (sees && !caughtUp.isDone()) caughtUp.complete(null);
        BrokerHeartbeatRequestData req = new BrokerHeartbeatRequestData().setBrokerId(nodeId).setBrokerEpoch(epoch)
                .setCurrentMetadataOffset(image.get().offset()).setWantFence(!sees).setWantShutDown(wantShutDown);
        controller.send(ApiKeys.BROKER_HEARTBEAT, ApiKeys.BROKER_HEARTBEAT.latestVersion(), req)
                .whenComplete((resp, e) -> {
                    try {
                        if (e != null) {
                            log.debug("Heartbeat of broker {} not answered: {}", nodeId, e.getMessage());
                            return;
                        }
                        BrokerHeartbeatResponseData r = (BrokerHeartbeatResponseData) resp;
                        Errors err = Errors.forCode(r.errorCode());
                        if (err == Errors.STALE_BROKER_EPOCH || err == Errors.BROKER_ID_NOT_REGISTERED) {
                            log.warn("Broker {} lost its registration ({}): registering again", nodeId, err);
                            epoch = -1;
                            fenced = true;
                            return;
                        }
                        if (err != Errors.NONE) return;
                        if (fenced != r.isFenced()) log.info("Broker {} is now {}", nodeId, r.isFenced() ? "fenced" : "unfenced");
                        fenced = r.isFenced();
                        if (!fenced) unfenced.complete(null);
                        if (wantShutDown && r.shouldShutDown()) shutdownAllowed.complete(null);
                        if ((fenced && !wantShutDown) || (wantShutDown && !r.shouldShutDown())) retickMs = FENCED_RETRY_MS;
                    } finally {
                        done();
                    }
                });
    }

    /**
     * Controlled shutdown: asks the controller to move this broker's leaderships away and waits (at most
     * {@code timeoutMs}) until it says the broker may stop. Returns whether it did.
     */
    boolean controlledShutdown(long timeoutMs) {
        if (epoch < 0) return false;
        wantShutDown = true;
        retickMs = 0; // if a round trip is in flight, the next one follows it at once
        time.scheduler().schedule("controlled-shutdown-heartbeat", this::tick, 0);
        try {
            shutdownAllowed.get(timeoutMs, TimeUnit.MILLISECONDS);
            return true;
        } catch (Exception e) {
            log.warn("Controlled shutdown of broker {} not confirmed in {} ms; stopping anyway", nodeId, timeoutMs);
            return false;
        }
    }

    @Override
    public synchronized void close() {
        if (ticker != null) ticker.cancel();
    }
}
