package io.faultline.broker.network;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hand-off between network threads and I/O threads: one bounded request queue (back-pressure on the
 * processors when the I/O threads fall behind, like queued.max.requests) and, per processor, a response queue.
 */
public final class RequestChannel {
    private static final Logger log = LoggerFactory.getLogger(RequestChannel.class);

    private final BlockingQueue<Request> requests;
    /** Requests the I/O threads finished handling (answered or handed to a delayed operation): their progress. */
    private final java.util.concurrent.atomic.AtomicLong handled = new java.util.concurrent.atomic.AtomicLong();
    private final CopyOnWriteArrayList<Processor> processors = new CopyOnWriteArrayList<>();
    /** A response that cannot be written is a broker bug, but a client can trigger it again and again. */
    private final RateLimitedLog unserializable = new RateLimitedLog(log::error, io.faultline.broker.common.Time.SYSTEM,
            60_000);

    /** Told the id of every connection a processor closes, for whatever reason (see {@link #onConnectionClosed}). */
    private final CopyOnWriteArrayList<java.util.function.Consumer<String>> closeListeners = new CopyOnWriteArrayList<>();

    public RequestChannel(int queueSize) {
        this.requests = new ArrayBlockingQueue<>(queueSize);
    }

    void addProcessor(Processor p) {
        processors.add(p);
        if (processors.indexOf(p) != p.id()) throw new IllegalStateException("processors must register in id order");
    }

    void sendRequest(Request r) throws InterruptedException {
        requests.put(r);
    }

    /** Requests waiting for an I/O thread. */
    public int queuedRequests() {
        return requests.size();
    }

    /** How many requests the I/O threads have finished handling so far. */
    public long handledRequests() {
        return handled.get();
    }

    void requestHandled() {
        handled.incrementAndGet();
    }

    /** Next request, or null after the timeout. */
    public Request receiveRequest(long timeoutMs) throws InterruptedException {
        return requests.poll(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** Serializes the response at the request's version and queues it for the request's processor. */
    public void sendResponse(Request request, ApiMessage body) {
        sendResponse(request, body, request.version());
    }

    /** As {@link #sendResponse(Request, ApiMessage)} but at an explicit version (ApiVersions fallback to v0). */
    public void sendResponse(Request request, ApiMessage body, short version) {
        ResponseSend send;
        try {
            send = ResponseSerializer.serializeForSend(request.apiKey(), version, request.header().correlationId(), body);
        } catch (RuntimeException e) {
            StackTraceElement[] at = e.getStackTrace();
            unserializable.warn("Cannot serialize response to " + request + "; closing the connection: " + e
                    + (at.length > 0 ? " at " + at[0] : ""));
            enqueue(new Response.Close(request));
            return;
        }
        enqueue(new Response.Send(request, send));
    }

    /**
     * Calls {@code listener} on the processor thread with the id ({@link Request#connectionId()}) of each connection
     * that closes: the peer closed it, it failed, or the broker closed it. Keep the listener short.
     */
    public void onConnectionClosed(java.util.function.Consumer<String> listener) {
        closeListeners.add(listener);
    }

    void connectionClosed(String connectionId) {
        for (var l : closeListeners) {
            try {
                l.accept(connectionId);
            } catch (RuntimeException e) {
                log.error("connection-close listener failed for {}", connectionId, e);
            }
        }
    }

    public void noResponse(Request request) {
        enqueue(new Response.NoResponse(request));
    }

    public void closeConnection(Request request) {
        enqueue(new Response.Close(request));
    }

    private void enqueue(Response response) {
        processors.get(response.request().processorId()).enqueueResponse(response);
    }
}
