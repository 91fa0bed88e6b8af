package io.faultline.broker.server;

import io.faultline.broker.common.Time;
import io.faultline.broker.controller.ControllerNode;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The way from this broker to the active controller, with Kafka's own messages: to the local {@link ControllerNode}
 * directly when this node is the active controller, otherwise over the controller listener of the node the local
 * quorum member names as leader. NOT_CONTROLLER, an unknown leader or a broken connection are retried (the leader
 * may just have moved) until the deadline; then the last answer, or a TimeoutException, is returned.
 */
final class ControllerChannel implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ControllerChannel.class);
    private static final long RETRY_MS = 100;
    private static final int CONNECT_TIMEOUT_MS = 1000;
    /** One round trip; the whole send (with retries) may take up to the request timeout. */
    private static final int READ_TIMEOUT_MS = 5000;

    private final int nodeId;
    private final Time time;
    private final ControllerNode controller;
    private final Map<Integer, InetSocketAddress> controllerAddresses;
    private final int requestTimeoutMs;
    /** Blocking socket I/O must not hold up the shared scheduler: one thread, one connection at a time. */
    private final ExecutorService io;
    /** Written by the io thread; closed from the scheduler when the controller moved away (see {@link #abandonIfMoved}). */
    private final Map<Integer, Connection> connections = new ConcurrentHashMap<>();
    private int correlation;
    private volatile boolean closed;

    ControllerChannel(int nodeId, Time time, ControllerNode controller, Map<Integer, InetSocketAddress> controllerAddresses,
                      int requestTimeoutMs) {
        this.nodeId = nodeId;
        this.time = time;
        this.controller = controller;
        this.controllerAddresses = Map.copyOf(controllerAddresses);
        this.requestTimeoutMs = requestTimeoutMs;
        this.io = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "controller-channel-" + nodeId);
            t.setDaemon(true);
            return t;
        });
    }

    CompletableFuture<ApiMessage> send(ApiKeys api, short version, ApiMessage body) {
        CompletableFuture<ApiMessage> out = new CompletableFuture<>();
        attempt(api, version, body, time.hiResMillis() + requestTimeoutMs, null, out);
        return out;
    }

    private void attempt(ApiKeys api, short version, ApiMessage body, long deadlineMs, ApiMessage last,
                         CompletableFuture<ApiMessage> out) {
        if (closed) {
            out.completeExceptionally(new IllegalStateException("broker " + nodeId + " is shutting down"));
            return;
        }
        OptionalInt active = controller.activeControllerId();
        CompletableFuture<ApiMessage> call;
        if (active.isEmpty()) {
            call = CompletableFuture.failedFuture(new IOException("no known active controller"));
        } else if (active.getAsInt() == nodeId) {
            call = controller.handle(new RequestHeader(api, version, "broker-" + nodeId, 0), body);
        } else {
            int target = active.getAsInt();
            call = CompletableFuture.supplyAsync(() -> remote(target, api, version, body), io);
            abandonIfMoved(target, call);
        }
        call.whenComplete((resp, e) -> {
            boolean retry = e != null || notController(resp);
            if (!retry) {
                out.complete(resp);
            } else if (time.hiResMillis() >= deadlineMs) {
                if (resp != null) out.complete(resp);
                else if (last != null) out.complete(last);
                else out.completeExceptionally(new TimeoutException("no controller answered " + api + " in "
                        + requestTimeoutMs + " ms: " + e));
            } else {
                time.scheduler().schedule("controller-retry", () -> attempt(api, version, body, deadlineMs,
                        resp != null ? resp : last, out), RETRY_MS);
            }
        });
    }

    /**
     * A round trip to a controller that stopped answering (SIGSTOP, a cut link: the connection stays open and the
     * read waits for its whole timeout) must not hold up every later request on the one io thread once the quorum
     * has elected another controller: heartbeats queued behind it reached nobody, and the new controller fenced
     * every broker that was waiting, its own node's included. While the call is in flight, check now and then
     * whether the local quorum member names another controller; if so close the connection, which ends the blocked
     * read at once, and the retry goes to the new one.
     */
    private void abandonIfMoved(int target, CompletableFuture<ApiMessage> call) {
        time.scheduler().schedule("controller-moved-check", () -> {
            if (call.isDone() || closed) return;
            OptionalInt now = controller.activeControllerId();
            if (now.isPresent() && now.getAsInt() != target) {
                Connection c = connections.remove(target);
                if (c != null) {
                    log.info("Controller moved from {} to {}: abandoning the request in flight to {}", target,
                            now.getAsInt(), target);
                    c.close();
                }
            }
            abandonIfMoved(target, call);
        }, RETRY_MS);
    }

    /** Whether the controller said it is not (any more) the active one. */
    static boolean notController(ApiMessage m) {
        short nc = Errors.NOT_CONTROLLER.code();
        if (m instanceof BrokerRegistrationResponseData r) return r.errorCode() == nc;
        if (m instanceof BrokerHeartbeatResponseData r) return r.errorCode() == nc;
        if (m instanceof AlterPartitionResponseData r) return r.errorCode() == nc;
        if (m instanceof CreateTopicsResponseData r) return r.topics().stream().anyMatch(t -> t.errorCode() == nc);
        if (m instanceof DeleteTopicsResponseData r) return r.responses().stream().anyMatch(t -> t.errorCode() == nc);
        if (m instanceof CreatePartitionsResponseData r) return r.results().stream().anyMatch(t -> t.errorCode() == nc);
        if (m instanceof IncrementalAlterConfigsResponseData r) return r.responses().stream().anyMatch(t -> t.errorCode() == nc);
        if (m instanceof org.apache.kafka.common.message.AlterConfigsResponseData r) {
            return r.responses().stream().anyMatch(t -> t.errorCode() == nc);
        }
        if (m instanceof org.apache.kafka.common.message.AlterClientQuotasResponseData r) {
            return r.entries().stream().anyMatch(t -> t.errorCode() == nc);
        }
        if (m instanceof org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData r) return r.errorCode() == nc;
        if (m instanceof org.apache.kafka.common.message.ElectLeadersResponseData r) return r.errorCode() == nc;
        if (m instanceof org.apache.kafka.common.message.DescribeQuorumResponseData r) return r.errorCode() == nc;
        return false;
    }

    /** One blocking round trip on the io thread; a failed connection is dropped and re-made next time. */
    private ApiMessage remote(int target, ApiKeys api, short version, ApiMessage body) {
        InetSocketAddress addr = controllerAddresses.get(target);
        if (addr == null) throw new IllegalStateException("no controller address for node " + target);
        OptionalInt now = controller.activeControllerId();
        if (now.isPresent() && now.getAsInt() != target) {
            // Queued behind a call to a silent controller while the quorum moved on: ask the new one instead.
            throw new IllegalStateException("the active controller moved from " + target + " to " + now.getAsInt());
        }
        try {
            Connection c = connections.get(target);
            if (c == null) {
                c = new Connection(addr, Math.min(requestTimeoutMs, READ_TIMEOUT_MS));
                connections.put(target, c);
            }
            try {
                return c.call(api, version, body, ++correlation, "broker-" + nodeId);
            } catch (IOException | RuntimeException e) {
                connections.remove(target, c);
                c.close();
                throw e;
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("controller " + target + " at " + addr + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        closed = true;
        io.shutdownNow();
        for (Connection c : List.copyOf(connections.values())) c.close();
    }

    /** A plain blocking Kafka-protocol connection. */
    private static final class Connection {
        private final Socket socket;
        private final DataInputStream in;
        private final OutputStream out;

        Connection(InetSocketAddress addr, int timeoutMs) throws IOException {
            socket = new Socket();
            // A dead controller's address may swallow SYNs: give up soon and ask the local quorum member again.
            socket.connect(new InetSocketAddress(addr.getHostString(), addr.getPort()), CONNECT_TIMEOUT_MS);
            socket.setSoTimeout(timeoutMs);
            socket.setTcpNoDelay(true);
            in = new DataInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        }

        ApiMessage call(ApiKeys api, short version, ApiMessage body, int cid, String clientId) throws IOException {
            short hv = api.requestHeaderVersion(version);
            RequestHeaderData h = new RequestHeaderData().setRequestApiKey(api.id).setRequestApiVersion(version)
                    .setCorrelationId(cid).setClientId(clientId);
            ObjectSerializationCache cache = new ObjectSerializationCache();
            int size = h.size(cache, hv) + body.size(cache, version);
            ByteBuffer buf = ByteBuffer.allocate(4 + size).putInt(size);
            ByteBufferAccessor acc = new ByteBufferAccessor(buf);
            h.write(acc, cache, hv);
            body.write(acc, cache, version);
            out.write(buf.array());
            out.flush();
            int len = in.readInt();
            if (len < 0 || len > 100 << 20) throw new IOException("bad response size " + len);
            byte[] frame = new byte[len];
            in.readFully(frame);
            ByteBufferAccessor r = new ByteBufferAccessor(ByteBuffer.wrap(frame));
            ResponseHeaderData rh = new ResponseHeaderData(r, api.responseHeaderVersion(version));
            if (rh.correlationId() != cid) throw new IOException("correlation " + rh.correlationId() + " != " + cid);
            ApiMessage m = api.messageType.newResponse();
            m.read(r, version);
            return m;
        }

        void close() {
            try {
                socket.close();
            } catch (IOException e) {
                log.debug("closing controller connection: {}", e.toString());
            }
        }
    }
}
