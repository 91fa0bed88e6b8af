package io.faultline.nemesis.toxiproxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * One named proxy: a listening socket that, per accepted client, opens a connection to the upstream and pipes
 * both ways through the proxy's toxics. Toxic changes reach open connections too (Kafka keeps its connections).
 * Disabling closes the listener and every open connection, as Toxiproxy does. All state changes hold this
 * object's lock; work on connections is posted to their event loops.
 */
final class TcpProxy {
    private final String name;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private String listen;
    private String upstream;
    private boolean enabled;
    private Channel listener;
    private final List<ToxicSpec> toxics = new ArrayList<>();
    private final Set<Connection> connections = new HashSet<>();

    TcpProxy(String name, String listen, String upstream, EventLoopGroup boss, EventLoopGroup workers) {
        this.name = name;
        this.listen = listen == null || listen.isEmpty() ? ":0" : listen; // Go listens on every address then
        this.upstream = upstream;
        this.boss = boss;
        this.workers = workers;
    }

    String name() {
        return name;
    }

    synchronized ProxyView view() {
        return new ProxyView(name, listen, upstream, enabled, List.copyOf(toxics));
    }

    /** What the API shows of a proxy. */
    record ProxyView(String name, String listen, String upstream, boolean enabled, List<ToxicSpec> toxics) {}

    synchronized boolean isEnabled() {
        return enabled;
    }

    /** Binds the listener; throws (500) when the address is taken. A no-op when enabled. */
    synchronized void start() {
        if (enabled) return;
        InetSocketAddress address = parse(listen);
        ServerBootstrap bootstrap = new ServerBootstrap().group(boss, workers).channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new ClientSide());
                    }
                });
        ChannelFuture bound = bootstrap.bind(address).awaitUninterruptibly();
        // NIO frees a closed listening socket only at the selector's next turn: a quick re-enable may retry
        for (int attempt = 0; !bound.isSuccess() && attempt < 20; attempt++) {
            sleep(50);
            bound = bootstrap.bind(address).awaitUninterruptibly();
        }
        if (!bound.isSuccess()) {
            throw new ApiError(500, "listen tcp " + listen + ": " + bound.cause().getMessage());
        }
        listener = bound.channel();
        InetSocketAddress local = (InetSocketAddress) listener.localAddress();
        listen = local.getAddress().getHostAddress() + ":" + local.getPort();
        enabled = true;
    }

    /** Closes the listener and every connection. A no-op when disabled. */
    synchronized void stop() {
        if (!enabled) return;
        enabled = false;
        listener.close().awaitUninterruptibly();
        listener = null;
        for (Connection c : List.copyOf(connections)) c.loop().execute(c::close);
        connections.clear();
    }

    /** Toxiproxy's update: a new listen or upstream restarts the proxy; then enabled is applied. */
    synchronized void update(String newListen, String newUpstream, boolean newEnabled) {
        boolean differs = !parse(newListen).equals(parse(listen)) || !newUpstream.equals(upstream);
        if (differs) {
            stop();
            listen = newListen;
            upstream = newUpstream;
        }
        if (newEnabled) start();
        else stop();
    }

    synchronized List<ToxicSpec> toxics() {
        return List.copyOf(toxics);
    }

    synchronized ToxicSpec toxic(String toxicName) {
        return toxics.stream().filter(t -> t.name().equals(toxicName)).findFirst().orElseThrow(ApiError::toxicNotFound);
    }

    /*
     * A toxic change returns only once every open connection's event loop has applied it, as Toxiproxy's API does:
     * the caller may send data the moment the request answers, and that data must meet the new toxics (a chunk
     * read in the same loop turn as a merely queued change would pass untouched). The wait is outside the lock,
     * since loop tasks take it too (a closing connection forgets itself).
     */
    void addToxic(ToxicSpec spec) {
        List<Future<?>> applied;
        synchronized (this) {
            if (toxics.stream().anyMatch(t -> t.name().equals(spec.name()))) throw ApiError.toxicExists();
            toxics.add(spec);
            applied = onEveryConnection(c -> c.direction(spec).add(spec));
        }
        awaitApplied(applied);
    }

    ToxicSpec updateToxic(ToxicSpec spec) {
        List<Future<?>> applied;
        synchronized (this) {
            int i = toxics.indexOf(toxic(spec.name()));
            toxics.set(i, spec);
            applied = onEveryConnection(c -> c.direction(spec).update(spec));
        }
        awaitApplied(applied);
        return spec;
    }

    void removeToxic(String toxicName) {
        List<Future<?>> applied;
        synchronized (this) {
            ToxicSpec spec = toxic(toxicName);
            toxics.remove(spec);
            applied = onEveryConnection(c -> c.direction(spec).remove(toxicName));
        }
        awaitApplied(applied);
    }

    void removeAllToxics() {
        List<Future<?>> applied = new ArrayList<>();
        synchronized (this) {
            for (ToxicSpec spec : List.copyOf(toxics)) {
                toxics.remove(spec);
                applied.addAll(onEveryConnection(c -> c.direction(spec).remove(spec.name())));
            }
        }
        awaitApplied(applied);
    }

    /** Posts a change to every open connection's loop (caller holds the lock). */
    private List<Future<?>> onEveryConnection(Consumer<Connection> change) {
        List<Future<?>> posted = new ArrayList<>();
        for (Connection c : connections) posted.add(c.loop().submit(() -> change.accept(c)));
        return posted;
    }

    /** Bounded: a loop that is shutting down fails or never runs the task, and its connection is going anyway. */
    private static void awaitApplied(List<Future<?>> applied) {
        for (Future<?> f : applied) {
            try {
                f.get(APPLY_BOUND_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException | TimeoutException | java.util.concurrent.RejectedExecutionException e) {
                // the connection closed or its loop stopped: nothing left to apply the change to
            }
        }
    }

    private static final long APPLY_BOUND_SECONDS = 30;

    synchronized void forget(Connection c) {
        connections.remove(c);
    }

    /** Registers a connection and returns the toxics it starts with, atomically with respect to toxic changes. */
    private synchronized List<ToxicSpec> register(Connection c) {
        if (!enabled) return null;
        connections.add(c);
        return List.copyOf(toxics);
    }

    private synchronized String upstream() {
        return upstream;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static InetSocketAddress parse(String hostPort) {
        if (hostPort == null) throw ApiError.badBody("address missing");
        int colon = hostPort.lastIndexOf(':');
        if (colon < 0) throw ApiError.badBody("address " + hostPort + " has no port");
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        try {
            int port = Integer.parseInt(hostPort.substring(colon + 1));
            return host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
        } catch (IllegalArgumentException e) {
            throw ApiError.badBody("bad address " + hostPort);
        }
    }

    private static byte[] bytes(Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            byte[] out = new byte[buf.readableBytes()];
            buf.readBytes(out);
            return out;
        } finally {
            ReferenceCountUtil.release(buf);
        }
    }

    /** The accepted socket: connects to the upstream first, then reads. */
    private final class ClientSide extends ChannelInboundHandlerAdapter {
        private Connection connection;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            Channel client = ctx.channel();
            InetSocketAddress target;
            try {
                target = parse(upstream());
            } catch (RuntimeException e) {
                client.close();
                return;
            }
            ServerSide serverSide = new ServerSide();
            new Bootstrap().group(client.eventLoop()).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000)
                    .handler(serverSide)
                    .connect(target).addListener((ChannelFuture f) -> {
                        if (!f.isSuccess()) {
                            client.close();
                            return;
                        }
                        Connection c = new Connection(TcpProxy.this, client, f.channel());
                        List<ToxicSpec> initial = register(c);
                        if (initial == null || !client.isActive()) {
                            f.channel().close();
                            client.close();
                            forget(c);
                            return;
                        }
                        connection = c;
                        serverSide.connection = c;
                        c.attach(initial);
                        client.config().setAutoRead(true);
                    });
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            byte[] data = bytes(msg);
            if (connection != null) connection.up().receive(data);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (connection != null) connection.up().receiveEof();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (connection != null) connection.down().resumeIfDrained();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a reset by the peer ends the connection like a close
        }
    }

    /** The socket to the upstream. */
    private static final class ServerSide extends ChannelInboundHandlerAdapter {
        private Connection connection;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            byte[] data = bytes(msg);
            if (connection != null) connection.down().receive(data);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (connection != null) connection.down().receiveEof();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (connection != null) connection.up().resumeIfDrained();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
