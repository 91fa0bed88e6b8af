package io.faultline.broker.network;

import io.faultline.broker.common.Time;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A network thread: owns a set of connections, reads size-prefixed frames, parses header and body, hands requests
 * to the {@link RequestChannel} and writes responses back.
 *
 * <p>In-order responses: like Kafka, a connection is muted (no reads) from the moment a request is handed off
 * until its response has been written, so each connection has at most one request in the broker. Pipelined
 * requests wait in the socket buffer.
 *
 * <p>Bad input never reaches the I/O threads: a negative or oversized length prefix, an unparsable header, an
 * unknown API key, an unsupported version (other than ApiVersions, which is answered at v0) or an unparsable
 * body closes the connection with a rate-limited log line; every other connection is unaffected.
 *
 * <p>Bounded memory: a frame is first read into a small buffer (a declared 100 MB costs 16 KiB until more than that
 * arrives), then into one of its full size; every byte is reserved in the broker-wide {@link MemoryPool} first. When
 * the pool is full the connection stops being read (TCP back-pressure) until memory is released. Two steps rather
 * than doubling: a connection paused for memory then holds at most its small first buffer, while every connection
 * holding a large reservation is still being read, so large frames cannot deadlock each other waiting to grow. A frame is held until its
 * response is queued, then its bytes go back to the pool. A frame larger than socket.request.max.bytes or than the
 * pool closes the connection before anything is allocated. A frame that makes no progress (no byte arrives) for the
 * request frame timeout closes its connection and frees its bytes, so a stalled sender cannot hold memory for long,
 * while a slow but steady one (a throttled link) is never cut. Time paused waiting for memory does not count: that is
 * the broker's doing, and a paused connection holds at most its first buffer; if its peer is gone meanwhile,
 * connections.max.idle.ms reaps it (a paused connection is not read, so it goes idle).
 *
 * <p>Errors (OutOfMemoryError included) are not caught here: they end the thread and the fatal-error handler halts
 * the broker.
 */
public final class Processor implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Processor.class);

    private final int id;
    private final RequestChannel channel;
    private final Time time;
    private final int maxRequestBytes;
    private final long idleNanos;
    private final long frameTimeoutNanos;
    private final AtomicInteger connectionCount;
    private final AtomicLong bytesSentFromFiles;
    private final BiPredicate<ApiKeys, Short> supported;
    private final MemoryPool pool;
    private final RateLimitedLog badInput;
    private final Selector selector;
    private final java.util.ArrayDeque<Connection> waitingForMemory = new java.util.ArrayDeque<>();
    private volatile boolean memoryReleased;
    private final Queue<SocketChannel> newConnections = new ConcurrentLinkedQueue<>();
    private final Queue<Response> responses = new ConcurrentLinkedQueue<>();
    private final Map<String, Connection> connections = new HashMap<>();
    private volatile boolean running = true;
    private long nextConnectionId;
    private long lastIdleCheck;
    /** Iterations of the event loop started (tests wait for the loop to pass after changing the clock). */
    private volatile long loops;

    /** Per-connection read/write state; touched only by this processor's thread. */
    private static final class Connection {
        final String id;
        final SocketChannel socket;
        final SelectionKey key;
        final String host;
        final ByteBuffer sizeBuf = ByteBuffer.allocate(4);
        /** Declared size of the frame being read, -1 between frames. */
        int frameSize = -1;
        ByteBuffer payload;
        /** Bytes of the pool held by this connection's current frame. */
        long reserved;
        /** When the current frame last progressed: its length or some of its bytes arrived, or reads resumed. */
        long lastProgressNanos;
        /** Reads are paused until the pool has room for this connection's next buffer. */
        boolean pausedForMemory;
        ResponseSend send;
        boolean inFlight;
        long lastActiveNanos;

        Connection(String id, SocketChannel socket, SelectionKey key, String host) {
            this.id = id;
            this.socket = socket;
            this.key = key;
            this.host = host;
        }
    }

    Processor(int id, RequestChannel channel, Time time, int maxRequestBytes, long idleMs, long frameTimeoutMs,
              AtomicInteger connectionCount, BiPredicate<ApiKeys, Short> supported, MemoryPool pool,
              RateLimitedLog badInput, AtomicLong bytesSentFromFiles) throws IOException {
        this.bytesSentFromFiles = bytesSentFromFiles;
        this.id = id;
        this.channel = channel;
        this.time = time;
        this.maxRequestBytes = maxRequestBytes;
        this.idleNanos = idleMs * 1_000_000L;
        this.frameTimeoutNanos = frameTimeoutMs * 1_000_000L;
        this.connectionCount = connectionCount;
        this.supported = supported;
        this.pool = pool;
        this.badInput = badInput;
        this.selector = Selector.open();
        pool.onRelease(() -> {
            memoryReleased = true;
            selector.wakeup();
        });
    }

    int id() {
        return id;
    }

    long loops() {
        return loops;
    }

    void accept(SocketChannel socket) {
        newConnections.add(socket);
        selector.wakeup();
    }

    void enqueueResponse(Response r) {
        responses.add(r);
        selector.wakeup();
    }

    void shutdown() {
        running = false;
        selector.wakeup();
    }

    @Override
    public void run() {
        while (running) {
            loops++;
            try {
                registerNewConnections();
                processResponses();
                retryWaitingForMemory();
                selector.select(300);
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey key = it.next();
                    it.remove();
                    Connection c = (Connection) key.attachment();
                    try {
                        if (key.isValid() && key.isReadable()) read(c);
                        if (key.isValid() && key.isWritable()) write(c);
                    } catch (IOException | CancelledKeyException e) {
                        close(c, null);
                    }
                }
                closeIdle();
            } catch (IOException | RuntimeException e) {
                log.error("Processor {} loop error", id, e);
            }
        }
        for (Connection c : connections.values().toArray(new Connection[0])) close(c, null);
        try {
            selector.close();
        } catch (IOException ignored) {
            // shutting down
        }
    }

    private void registerNewConnections() {
        SocketChannel sc;
        while ((sc = newConnections.poll()) != null) {
            try {
                sc.configureBlocking(false);
                SelectionKey key = sc.register(selector, SelectionKey.OP_READ);
                String host = String.valueOf(sc.getRemoteAddress());
                Connection c = new Connection(id + "-" + (nextConnectionId++) + "-" + host, sc, key, host);
                c.lastActiveNanos = time.nanoseconds();
                key.attach(c);
                connections.put(c.id, c);
            } catch (IOException e) {
                closeQuietly(sc);
                connectionCount.decrementAndGet();
            }
        }
    }

    private void processResponses() {
        Response r;
        while ((r = responses.poll()) != null) {
            Connection c = connections.get(r.request().connectionId());
            if (c == null) continue; // connection closed meanwhile
            releaseFrame(c); // the request is done with its bytes
            if (r instanceof Response.Send s) {
                c.send = s.send();
                c.key.interestOps(0);
                try {
                    write(c); // most responses fit the socket buffer: no select round trip before the first bytes
                } catch (IOException | CancelledKeyException e) {
                    close(c, null);
                    continue;
                }
                if (c.send != null) c.key.interestOps(SelectionKey.OP_WRITE);
            } else if (r instanceof Response.NoResponse) {
                unmute(c);
            } else {
                close(c, "closing connection after " + r.request());
            }
        }
    }

    private void read(Connection c) throws IOException {
        c.lastActiveNanos = time.nanoseconds();
        if (c.frameSize < 0) {
            if (c.socket.read(c.sizeBuf) < 0) {
                close(c, null);
                return;
            }
            if (c.sizeBuf.hasRemaining()) return;
            int size = c.sizeBuf.getInt(0);
            if (size < 0 || size > maxRequestBytes || size > pool.capacity()) {
                close(c, "request frame of " + size + " bytes exceeds socket.request.max.bytes=" + maxRequestBytes
                        + " or queued.max.request.bytes=" + pool.capacity());
                return;
            }
            c.frameSize = size;
            c.lastProgressNanos = c.lastActiveNanos;
        }
        while (c.payload == null || c.payload.position() < c.frameSize) {
            if (!ensureRoom(c)) return;
            int n = c.socket.read(c.payload);
            if (n < 0) {
                close(c, null);
                return;
            }
            if (n > 0) c.lastProgressNanos = c.lastActiveNanos;
            if (c.payload.hasRemaining()) return; // the socket has no more for now
        }
        ByteBuffer frame = c.payload;
        frame.flip();
        c.payload = null;
        c.frameSize = -1;
        c.sizeBuf.clear();
        handleFrame(c, frame);
    }

    /** First buffer of a frame: small, so a declared size costs nothing until its bytes arrive. */
    private static final int INITIAL_FRAME_BUFFER = 16 * 1024;

    /**
     * Makes room for more of the current frame: the small first buffer, then, when it is full, one of the whole
     * frame's size. Returns false, with reads paused, if the pool cannot hold it now.
     */
    private boolean ensureRoom(Connection c) {
        if (c.payload != null && c.payload.hasRemaining()) return true;
        int current = c.payload == null ? 0 : c.payload.capacity();
        int next = c.payload == null ? Math.min(c.frameSize, INITIAL_FRAME_BUFFER) : c.frameSize;
        // Only a request that fits its first buffer may dip into the pool's reserve: the first buffer of a large
        // frame must not, or enough half-sent large frames would fill the reserve too and starve small requests.
        boolean smallRequest = current == 0 && c.frameSize <= INITIAL_FRAME_BUFFER;
        if (!pool.tryReserve(next - current, smallRequest)) {
            c.key.interestOps(0);
            c.pausedForMemory = true;
            waitingForMemory.add(c);
            return false;
        }
        c.reserved += next - current;
        ByteBuffer grown = ByteBuffer.allocate(next);
        if (c.payload != null) grown.put(c.payload.flip());
        c.payload = grown;
        return true;
    }

    /** After a release anywhere in the pool, waiting connections try again (in arrival order). */
    private void retryWaitingForMemory() {
        if (!memoryReleased) return;
        memoryReleased = false;
        Connection c;
        int n = waitingForMemory.size();
        while (n-- > 0 && (c = waitingForMemory.poll()) != null) {
            if (!connections.containsKey(c.id) || !c.key.isValid()) continue;
            c.pausedForMemory = false;
            c.lastProgressNanos = time.nanoseconds(); // the pause was the broker's, not the peer's
            c.key.interestOps(SelectionKey.OP_READ);
        }
    }

    private void releaseFrame(Connection c) {
        if (c.reserved > 0) {
            long r = c.reserved;
            c.reserved = 0;
            pool.release(r);
        }
    }

    private void handleFrame(Connection c, ByteBuffer frame) {
        RequestHeader header;
        try {
            header = RequestHeader.parse(frame);
        } catch (RuntimeException e) {
            close(c, "unparsable request header (" + e.getMessage() + ")");
            return;
        }
        ApiKeys api = header.apiKey();
        AbstractRequest body = null;
        if (!supported.test(api, header.apiVersion())) {
            // ApiVersions has a protocol-defined answer for any version (v0 + UNSUPPORTED_VERSION); others do not.
            if (api != ApiKeys.API_VERSIONS) {
                close(c, "unsupported " + api + " version " + header.apiVersion());
                return;
            }
        } else {
            try {
                body = AbstractRequest.parseRequest(api, header.apiVersion(), new ByteBufferAccessor(frame)).request;
            } catch (RuntimeException e) {
                close(c, "unparsable " + api + " v" + header.apiVersion() + " body (" + e + ")");
                return;
            }
        }
        Request req = new Request(id, c.id, header, body, time.nanoseconds(), c.host);
        c.inFlight = true;
        c.key.interestOps(0); // mute until the response is written
        try {
            channel.sendRequest(req);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close(c, null);
        }
    }

    /** Writes what the socket takes now; record sets held in segment files go with transferTo (sendfile). */
    private void write(Connection c) throws IOException {
        c.lastActiveNanos = time.nanoseconds();
        if (c.send.writeTo(c.socket)) {
            bytesSentFromFiles.addAndGet(c.send.fileBytes());
            c.send = null;
            unmute(c);
        }
    }

    private void unmute(Connection c) {
        c.inFlight = false;
        if (c.key.isValid()) c.key.interestOps(SelectionKey.OP_READ);
    }

    private void closeIdle() {
        long now = time.nanoseconds();
        if (now - lastIdleCheck < 1_000_000_000L) return;
        lastIdleCheck = now;
        badInput.flush();
        for (Connection c : connections.values().toArray(new Connection[0])) {
            if (!c.inFlight && c.send == null && now - c.lastActiveNanos > idleNanos) {
                close(c, "closing idle connection");
            } else if (c.frameSize >= 0 && !c.pausedForMemory && now - c.lastProgressNanos > frameTimeoutNanos) {
                close(c, "request frame of " + c.frameSize + " bytes made no progress for "
                        + frameTimeoutNanos / 1_000_000L + " ms (" + (c.payload == null ? 0 : c.payload.position())
                        + " bytes arrived)");
            }
        }
    }

    private void close(Connection c, String reason) {
        if (connections.remove(c.id) == null) return;
        if (reason != null) badInput.warn(c.id + ": " + reason);
        c.payload = null;
        releaseFrame(c);
        c.key.cancel();
        closeQuietly(c.socket);
        connectionCount.decrementAndGet();
        channel.connectionClosed(c.id);
    }

    private static void closeQuietly(SocketChannel sc) {
        try {
            sc.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
