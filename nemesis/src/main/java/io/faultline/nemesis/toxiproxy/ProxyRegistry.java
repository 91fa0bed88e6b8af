package io.faultline.nemesis.toxiproxy;

import io.netty.channel.EventLoopGroup;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The proxies by name (Toxiproxy's ProxyCollection): the one owner of which proxies exist. */
final class ProxyRegistry {
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Map<String, TcpProxy> proxies = new TreeMap<>();

    ProxyRegistry(EventLoopGroup boss, EventLoopGroup workers) {
        this.boss = boss;
        this.workers = workers;
    }

    synchronized List<TcpProxy> all() {
        return List.copyOf(proxies.values());
    }

    synchronized TcpProxy get(String name) {
        TcpProxy p = proxies.get(name);
        if (p == null) throw ApiError.proxyNotFound();
        return p;
    }

    /** Creates and (when enabled) starts a proxy; 409 when the name is taken. */
    synchronized TcpProxy create(String name, String listen, String upstream, boolean enabled) {
        if (proxies.containsKey(name)) throw ApiError.proxyExists();
        TcpProxy p = new TcpProxy(name, listen, upstream, boss, workers);
        if (enabled) p.start();
        proxies.put(name, p);
        return p;
    }

    /** Populate's add-or-replace: an identical proxy is kept (toxics and all), a different one replaced. */
    synchronized TcpProxy createOrReplace(String name, String listen, String upstream, boolean enabled) {
        TcpProxy existing = proxies.get(name);
        if (existing != null) {
            var view = existing.view();
            boolean same = TcpProxy.parse(listen == null || listen.isEmpty() ? ":0" : listen)
                    .equals(TcpProxy.parse(view.listen())) && upstream.equals(view.upstream());
            if (same) return existing;
            existing.stop();
            proxies.remove(name);
        }
        return create(name, listen, upstream, enabled);
    }

    synchronized void delete(String name) {
        TcpProxy p = get(name);
        p.stop();
        proxies.remove(name);
    }

    /** /reset: every proxy enabled, every toxic removed. */
    synchronized void reset() {
        for (TcpProxy p : new ArrayList<>(proxies.values())) {
            p.start();
            p.removeAllToxics();
        }
    }

    synchronized void closeAll() {
        for (TcpProxy p : proxies.values()) p.stop();
        proxies.clear();
    }
}
