package io.faultline.nemesis.toxiproxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;

import java.util.List;

/**
 * One proxied TCP connection: the client's socket, the socket to the upstream, and a {@link Direction} each way.
 * Both sockets share one event loop, so everything about a connection happens on one thread.
 */
final class Connection {
    private final TcpProxy proxy;
    private final Channel client;
    private final Channel server;
    private final Direction up;
    private final Direction down;
    private boolean closed;

    Connection(TcpProxy proxy, Channel client, Channel server) {
        this.proxy = proxy;
        this.client = client;
        this.server = server;
        this.up = new Direction(this, client, server);
        this.down = new Direction(this, server, client);
    }

    EventLoop loop() {
        return client.eventLoop();
    }

    Direction up() {
        return up;
    }

    Direction down() {
        return down;
    }

    Direction direction(ToxicSpec spec) {
        return spec.upstream() ? up : down;
    }

    /** Attaches the toxics in force when the connection opened (on the loop). */
    void attach(List<ToxicSpec> toxics) {
        for (ToxicSpec t : toxics) direction(t).add(t);
    }

    boolean isClosed() {
        return closed;
    }

    void close() {
        if (closed) return;
        closed = true;
        up.discard();
        down.discard();
        client.close();
        server.close();
        proxy.forget(this);
    }

    /** Closes both sockets with SO_LINGER 0: each peer gets a RST instead of a FIN. */
    void reset() {
        if (closed) return;
        for (Channel c : List.of(client, server)) {
            try {
                c.config().setOption(ChannelOption.SO_LINGER, 0);
            } catch (RuntimeException ignored) {
                // the socket is gone already
            }
        }
        close();
    }
}
