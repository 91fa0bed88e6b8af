package io.faultline.broker.controller;

import io.faultline.broker.common.Time;
import io.faultline.broker.metadata.BrokerRegistration;
import io.faultline.broker.metadata.Endpoint;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord.ControlledShutdownRecord;
import io.faultline.broker.metadata.MetadataRecord.FenceBrokerRecord;
import io.faultline.broker.metadata.MetadataRecord.RegisterBrokerRecord;
import io.faultline.broker.metadata.MetadataRecord.UnfenceBrokerRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * Broker membership (Kafka's ClusterControlManager + BrokerHeartbeatManager): registration with an incarnation
 * id and a fresh broker epoch, heartbeats, session expiry, fencing/unfencing and controlled shutdown. Heartbeat
 * times live only in memory on the active controller, on the injected clock, taken when a heartbeat arrives
 * ({@link #heartbeatArrived}) rather than when the controller thread gets to it; a newly active controller gives
 * every registered broker a fresh session ({@link #activate}).
 *
 * <p>A broker whose heartbeat connection closed ({@link #connectionLost}: its process died and the kernel closed its
 * sockets, or it reconnects) gets a shorter grace, {@link #lostConnectionGraceMs}: a live broker reconnects and
 * heartbeats within its interval, a dead one never does, so it is fenced without waiting out the full session.
 * Kafka's controller waits the whole session here; a crashed leader's partitions are then unavailable that much longer.
 * A broker cut off by the network (no FIN arrives) is still fenced only when its session lapses.
 */
final class ClusterControl {
    private final Time time;
    private final ControllerSettings settings;
    /** Broker id → monotonic time (ns) of its last heartbeat or registration. */
    private final Map<Integer, Long> lastContactNs = new HashMap<>();
    /**
     * Broker id → the latest heartbeat that arrived (any thread), possibly still queued for the controller
     * thread. Sessions are timed by arrival, so a controller thread that fell behind (a slow Raft write) does
     * not fence brokers whose heartbeats are waiting in its queue. The epoch is checked against the image here.
     */
    private final Map<Integer, Arrival> arrivals = new ConcurrentHashMap<>();

    private record Arrival(long brokerEpoch, long nanos) { }

    /** Broker id → when the connection its heartbeats came on closed (for that registration's epoch). */
    private final Map<Integer, Arrival> connectionsLost = new ConcurrentHashMap<>();
    /**
     * Broker id → image offset when its controlled shutdown was decided: it may stop once its metadata offset is
     * past this, i.e. it has applied the records that moved its leaderships away.
     */
    private final Map<Integer, Long> shutdownDecidedAt = new HashMap<>();
    /**
     * The node this controller runs in, or -1. Its broker's registration from an earlier process cannot be alive:
     * this process is that node. Until this node's broker registers here, such a registration does not make the
     * new process wait out its session (a kill -9 and restart of a single-node cluster, or of a node that wins the
     * controller election again, waited the whole broker.session.timeout.ms).
     */
    private int localNodeId = -1;
    private boolean localRegistered;

    ClusterControl(Time time, ControllerSettings settings) {
        this.time = time;
        this.settings = settings;
    }

    /**
     * This node just became the active controller: every registered broker starts a fresh session now, except that
     * {@code suspect} (the previous controller's node, or -1) is treated as having lost its connection now.
     */
    void activate(MetadataImage image, int suspect) {
        lastContactNs.clear();
        shutdownDecidedAt.clear();
        connectionsLost.clear();
        long now = time.nanoseconds();
        for (int id : image.brokers().keySet()) lastContactNs.put(id, now);
        BrokerRegistration s = image.brokers().get(suspect);
        if (s != null && !s.fenced()) connectionsLost.put(suspect, new Arrival(s.epoch(), now));
    }

    void setLocalNode(int nodeId) {
        this.localNodeId = nodeId;
    }

    /** Any thread: a heartbeat from {@code brokerId} at {@code brokerEpoch} arrived now. */
    void heartbeatArrived(int brokerId, long brokerEpoch) {
        Arrival now = new Arrival(brokerEpoch, time.nanoseconds());
        arrivals.merge(brokerId, now, (old, n) -> old.brokerEpoch() == n.brokerEpoch() && old.nanos() > n.nanos() ? old : n);
    }

    /** Any thread: the connection that carried {@code brokerId}'s heartbeats at {@code brokerEpoch} closed now. */
    void connectionLost(int brokerId, long brokerEpoch) {
        connectionsLost.put(brokerId, new Arrival(brokerEpoch, time.nanoseconds()));
    }

    /**
     * How long a broker whose heartbeat connection closed has to heartbeat again: two heartbeat intervals (one to
     * notice and reconnect, one for the heartbeat), never more than the session timeout.
     */
    long lostConnectionGraceMs() {
        return Math.min(settings.brokerSessionTimeoutMs(), 2L * settings.brokerHeartbeatIntervalMs());
    }

    /** Whether the broker's heartbeat connection closed after its last contact and it stayed silent for the grace. */
    private boolean silentSinceConnectionLost(BrokerRegistration b, long last, long now) {
        Arrival lost = connectionsLost.get(b.id());
        if (lost == null || lost.brokerEpoch() != b.epoch() || last > lost.nanos()) return false;
        return now - lost.nanos() >= lostConnectionGraceMs() * 1_000_000L;
    }

    /** The last contact with the broker's current registration: processed, or arrived and still queued. */
    private Long lastContact(BrokerRegistration b) {
        Long last = lastContactNs.get(b.id());
        Arrival a = arrivals.get(b.id());
        if (a == null || a.brokerEpoch() != b.epoch()) return last;
        return last == null ? a.nanos() : Math.max(last, a.nanos());
    }

    private boolean sessionAlive(BrokerRegistration b) {
        Long last = lastContact(b);
        if (last == null) return false;
        return time.nanoseconds() - last < settings.brokerSessionTimeoutMs() * 1_000_000L;
    }

    ControllerResult<BrokerRegistrationResponseData> register(MetadataImage image, BrokerRegistrationRequestData req) {
        BrokerRegistrationResponseData resp = new BrokerRegistrationResponseData();
        int id = req.brokerId();
        if (id < 0 || req.incarnationId() == null || req.listeners().isEmpty()) {
            return ControllerResult.of(resp.setErrorCode(Errors.INVALID_REQUEST.code()));
        }
        BrokerRegistration old = image.brokers().get(id);
        if (old != null && old.incarnationId().equals(req.incarnationId())) {
            // A retried registration of the same process: answer with the epoch it already has.
            lastContactNs.put(id, time.nanoseconds());
            return ControllerResult.of(resp.setBrokerEpoch(old.epoch()));
        }
        // A new process may replace a live registration only if it names that registration's epoch (it knows it
        // shut down cleanly); otherwise it waits for the old session to lapse, as in Kafka.
        boolean replacesCleanly = old != null && req.previousBrokerEpoch() == old.epoch();
        boolean previousLocalProcess = id == localNodeId && !localRegistered;
        if (old != null && !old.fenced() && !old.inControlledShutdown() && sessionAlive(old) && !replacesCleanly
                && !previousLocalProcess) {
            return ControllerResult.of(resp.setErrorCode(Errors.DUPLICATE_BROKER_REGISTRATION.code()));
        }
        Decision d = new Decision(image);
        if (old != null && !old.fenced()) {
            d.add(new FenceBrokerRecord(id, old.epoch()));
            PartitionChanges.removeBroker(d, id, settings);
        }
        long epoch = Math.max(image.offset() + 1, old == null ? 0 : old.epoch() + 1);
        Map<String, Endpoint> endpoints = new LinkedHashMap<>();
        req.listeners().forEach(l -> endpoints.put(l.name(), new Endpoint(l.host(), l.port())));
        d.add(new RegisterBrokerRecord(id, req.incarnationId(), epoch, endpoints, req.rack()));
        lastContactNs.put(id, time.nanoseconds());
        shutdownDecidedAt.remove(id);
        if (id == localNodeId) localRegistered = true;
        return d.result(resp.setBrokerEpoch(epoch));
    }

    ControllerResult<BrokerHeartbeatResponseData> heartbeat(MetadataImage image, BrokerHeartbeatRequestData req) {
        BrokerHeartbeatResponseData resp = new BrokerHeartbeatResponseData();
        int id = req.brokerId();
        BrokerRegistration b = image.brokers().get(id);
        if (b == null) return ControllerResult.of(resp.setErrorCode(Errors.BROKER_ID_NOT_REGISTERED.code()).setIsFenced(true));
        if (b.epoch() != req.brokerEpoch()) {
            return ControllerResult.of(resp.setErrorCode(Errors.STALE_BROKER_EPOCH.code()).setIsFenced(true));
        }
        lastContactNs.merge(id, arrivalOrNow(b), Math::max);
        // Caught up once it has applied its own registration (kept in the image, so any controller knows it).
        boolean caughtUp = req.currentMetadataOffset() >= b.registeredAt();
        Decision d = new Decision(image);
        if (req.wantShutDown()) {
            if (!b.fenced() && !b.inControlledShutdown()) {
                d.add(new ControlledShutdownRecord(id, b.epoch()));
                PartitionChanges.removeBroker(d, id, settings);
                shutdownDecidedAt.put(id, image.offset());
            }
        } else if (b.fenced() && !req.wantFence() && caughtUp) {
            d.add(new UnfenceBrokerRecord(id, b.epoch()));
            PartitionChanges.electOffline(d, id, settings);
        } else if (!b.fenced() && req.wantFence()) {
            d.add(new FenceBrokerRecord(id, b.epoch()));
            PartitionChanges.removeBroker(d, id, settings);
        }
        BrokerRegistration now = d.image().brokers().get(id);
        boolean shouldShutDown = false;
        if (req.wantShutDown()) {
            boolean sawTheMove = req.currentMetadataOffset() > shutdownDecidedAt.getOrDefault(id, -1L);
            shouldShutDown = now.fenced() || (!PartitionChanges.leadsAny(d.image(), id) && sawTheMove);
            if (shouldShutDown && !now.fenced()) {
                // It leads nothing any more: fence it now rather than waiting for its session to lapse.
                d.add(new FenceBrokerRecord(id, b.epoch()));
                PartitionChanges.removeBroker(d, id, settings);
            }
        }
        return d.result(resp.setIsCaughtUp(caughtUp).setIsFenced(d.image().brokers().get(id).fenced())
                .setShouldShutDown(shouldShutDown));
    }

    /** When this heartbeat arrived (if it was announced with {@link #heartbeatArrived}), else now. */
    private long arrivalOrNow(BrokerRegistration b) {
        Arrival a = arrivals.get(b.id());
        return a != null && a.brokerEpoch() == b.epoch() ? a.nanos() : time.nanoseconds();
    }

    /** Fences every unfenced broker whose session lapsed; their leaderships and ISR places go to others. */
    List<Integer> expiredBrokers(MetadataImage image) {
        List<Integer> expired = new ArrayList<>();
        long now = time.nanoseconds();
        for (BrokerRegistration b : new TreeMap<>(image.brokers()).values()) {
            if (b.fenced()) continue;
            Long last = lastContact(b);
            if (last == null) {
                // Registered under another controller after we activated: start its session now.
                lastContactNs.put(b.id(), now);
            } else if (now - last >= settings.brokerSessionTimeoutMs() * 1_000_000L
                    || silentSinceConnectionLost(b, last, now)) {
                expired.add(b.id());
            }
        }
        return expired;
    }

    /**
     * Periodic work: fences every broker whose session lapsed, then elects leaders for leaderless partitions
     * that can get one (a live ISR member, or a live replica where unclean election was enabled since).
     */
    ControllerResult<List<Integer>> fenceExpired(MetadataImage image) {
        List<Integer> expired = expiredBrokers(image);
        Decision d = new Decision(image);
        for (int id : expired) {
            d.add(new FenceBrokerRecord(id, image.brokers().get(id).epoch()));
            PartitionChanges.removeBroker(d, id, settings);
        }
        PartitionChanges.electLeaderless(d, settings);
        return d.result(expired);
    }
}
