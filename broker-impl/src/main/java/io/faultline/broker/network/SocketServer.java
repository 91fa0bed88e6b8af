package io.faultline.broker.network;

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

    /** Network settings, named after Kafka's. */
    public record Settings(String host, int port, int numNetworkThreads, int socketRequestMaxBytes,
                           int maxConnections, long connectionsMaxIdleMs) {
    }

    private final Settings settings;
    private final ServerSocketChannel server;
    private final Selector acceptSelector;
    private final List<Processor> processors = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicInteger connectionCount = new AtomicInteger();
    private volatile boolean running = true;

    public SocketServer(Settings settings, RequestChannel channel, Time time, BiPredicate<ApiKeys, Short> supported)
            throws IOException {
        this.settings = settings;
        for (int i = 0; i < settings.numNetworkThreads(); i++) {
            Processor p = new Processor(i, channel, time, settings.socketRequestMaxBytes(),
                    settings.connectionsMaxIdleMs(), connectionCount, supported);
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

    public int boundPort() {
        return server.socket().getLocalPort();
    }

    public void start() {
        for (Processor p : processors) {
            Thread t = new Thread(p, "network-thread-" + p.id());
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        Thread acceptor = new Thread(this::acceptLoop, "acceptor");
        acceptor.setDaemon(true);
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
                        log.warn("Refusing connection from {}: max.connections={} reached", sc.getRemoteAddress(),
                                settings.maxConnections());
                        sc.close();
                        continue;
                    }
                    sc.socket().setTcpNoDelay(true);
                    processors.get(next++ % processors.size()).accept(sc);
                }
            } catch (IOException e) {
                if (running) log.warn("Acceptor error: {}", e.toString());
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
