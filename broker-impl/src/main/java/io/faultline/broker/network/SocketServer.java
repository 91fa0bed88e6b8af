package io.faultline.broker.network;

import io.faultline.broker.common.FatalErrorHandler;
import io.faultline.broker.common.Time;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener: one acceptor thread hands accepted sockets round-robin to the processors, enforcing
 * max.connections (excess connections are closed at once).
 */
public final class SocketServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SocketServer.class);

    /**
     * Network settings, named after Kafka's; queuedMaxRequestBytes sizes the {@link MemoryPool};
     * requestFrameTimeoutMs bounds how long a request frame may go without a byte arriving (see {@link Processor}).
     */
    public record Settings(String host, int port, int numNetworkThreads, int socketRequestMaxBytes,
                           int maxConnections, long connectionsMaxIdleMs, long queuedMaxRequestBytes,
                           long requestFrameTimeoutMs) {
        /** Default frame timeout: the clients' default request.timeout.ms; a frame stalled that long is abandoned. */
        public static final long DEFAULT_REQUEST_FRAME_TIMEOUT_MS = 30_000;

        /** With the default request memory pool ({@link MemoryPool#defaultCapacity()}). */
        public Settings(String host, int port, int numNetworkThreads, int socketRequestMaxBytes, int maxConnections,
                        long connectionsMaxIdleMs) {
            this(host, port, numNetworkThreads, socketRequestMaxBytes, maxConnections, connectionsMaxIdleMs,
                    MemoryPool.defaultCapacity());
        }

        public Settings(String host, int port, int numNetworkThreads, int socketRequestMaxBytes, int maxConnections,
                        long connectionsMaxIdleMs, long queuedMaxRequestBytes) {
            this(host, port, numNetworkThreads, socketRequestMaxBytes, maxConnections, connectionsMaxIdleMs,
                    queuedMaxRequestBytes, DEFAULT_REQUEST_FRAME_TIMEOUT_MS);
        }
    }

    /** Interval of the bad-input log summaries. */
    static final long BAD_INPUT_LOG_INTERVAL_MS = 60_000;

    private final Settings settings;
    private final ServerSocketChannel server;
    private final Selector acceptSelector;
    private final List<Processor> processors = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicInteger connectionCount = new AtomicInteger();
    private final AtomicLong bytesSentFromFiles = new AtomicLong();
    private final MemoryPool pool;
    private final int maxRequestBytes;
    private final FatalErrorHandler fatal;
    private final RateLimitedLog refusals;
    private volatile boolean running = true;

    public SocketServer(Settings settings, RequestChannel channel, Time time, BiPredicate<ApiKeys, Short> supported)
            throws IOException {
        this(settings, channel, time, supported, FatalErrorHandler.halting());
    }

    /** As above, with the handler of errors escaping the acceptor and network threads (tests observe it). */
    public SocketServer(Settings settings, RequestChannel channel, Time time, BiPredicate<ApiKeys, Short> supported,
                        FatalErrorHandler fatal) throws IOException {
        this(settings, channel, time, supported, fatal, new MemoryPool(settings.queuedMaxRequestBytes()));
    }

    /**
     * As above, sharing {@code pool} (of settings.queuedMaxRequestBytes) with the broker's other listeners and with
     * the request handlers that reserve the memory their work needs (decompression) in the same budget.
     */
    public SocketServer(Settings settings, RequestChannel channel, Time time, BiPredicate<ApiKeys, Short> supported,
                        FatalErrorHandler fatal, MemoryPool pool) throws IOException {
        this.settings = settings;
        this.fatal = fatal;
        this.pool = pool;
        RateLimitedLog badInput = new RateLimitedLog(LoggerFactory.getLogger(Processor.class), time,
                BAD_INPUT_LOG_INTERVAL_MS);
        this.refusals = new RateLimitedLog(log, time, BAD_INPUT_LOG_INTERVAL_MS);
        this.maxRequestBytes = effectiveMaxRequestBytes(settings);
        for (int i = 0; i < settings.numNetworkThreads(); i++) {
            Processor p = new Processor(i, channel, time, maxRequestBytes,
                    settings.connectionsMaxIdleMs(), settings.requestFrameTimeoutMs(), connectionCount, supported,
                    pool, badInput, bytesSentFromFiles);
            processors.add(p);
            channel.addProcessor(p);
        }
        server = ServerSocketChannel.open();
        server.configureBlocking(false);
        server.setOption(java.net.StandardSocketOptions.SO_REUSEADDR, true); // rebind at once after a restart
        server.bind(new InetSocketAddress(settings.host(), settings.port()), 128);
        acceptSelector = Selector.open();
        server.register(acceptSelector, SelectionKey.OP_ACCEPT);
    }

    /**
     * socket.request.max.bytes, clamped to the request pool: a frame larger than the pool could never be read, so
     * its client would be disconnected on every retry; the clamp makes the misconfiguration visible at startup.
     */
    static int effectiveMaxRequestBytes(Settings settings) {
        if (settings.socketRequestMaxBytes() <= settings.queuedMaxRequestBytes()) return settings.socketRequestMaxBytes();
        int clamped = (int) settings.queuedMaxRequestBytes();
        log.warn("socket.request.max.bytes={} exceeds queued.max.request.bytes={}: requests above {} bytes are refused",
                settings.socketRequestMaxBytes(), settings.queuedMaxRequestBytes(), clamped);
        return clamped;
    }

    /** The largest request frame accepted (socket.request.max.bytes, at most the request pool). */
    public int maxRequestBytes() {
        return maxRequestBytes;
    }

    /** The request memory pool (for tests and metrics). */
    public MemoryPool memoryPool() {
        return pool;
    }

    /** Record bytes of completed responses that went from segment files to sockets with transferTo (zero-copy). */
    public long bytesSentFromFiles() {
        return bytesSentFromFiles.get();
    }

    /** Event-loop iterations started by all network threads, so far (tests wait for the loops to pass). */
    long processorLoops() {
        long n = 0;
        for (Processor p : processors) n += p.loops();
        return n;
    }

    public int boundPort() {
        return server.socket().getLocalPort();
    }

    public void start() {
        for (Processor p : processors) {
            Thread t = fatal.newThread(p, "network-thread-" + p.id());
            threads.add(t);
            t.start();
        }
        Thread acceptor = fatal.newThread(this::acceptLoop, "acceptor");
        threads.add(acceptor);
        acceptor.start();
        log.info("Listening on {}:{}", settings.host(), boundPort());
    }

    private void acceptLoop() {
        int next = 0;
        while (running) {
            try {
                acceptSelector.select(300);
                acceptSelector.selectedKeys().clear();
                SocketChannel sc;
                while ((sc = server.accept()) != null) {
                    if (connectionCount.incrementAndGet() > settings.maxConnections()) {
                        connectionCount.decrementAndGet();
                        refusals.warn("Refusing connection from " + sc.getRemoteAddress() + ": max.connections="
                                + settings.maxConnections() + " reached");
                        sc.close();
                        continue;
                    }
                    sc.socket().setTcpNoDelay(true);
                    processors.get(next++ % processors.size()).accept(sc);
                }
            } catch (IOException | RuntimeException e) {
                // e.g. "Too many open files": keep accepting once descriptors are free again
                if (running) refusals.warn("Acceptor error: " + e);
            }
        }
    }

    @Override
    public void close() {
        running = false;
        try {
            acceptSelector.wakeup();
            server.close();
        } catch (IOException ignored) {
            // shutting down
        }
        processors.forEach(Processor::shutdown);
        for (Thread t : threads) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            acceptSelector.close();
        } catch (IOException ignored) {
            // shutting down
        }
    }
}
