package io.faultline.nemesis.toxiproxy;

import com.sun.net.httpserver.HttpServer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A small Toxiproxy-compatible server: Toxiproxy 2.x's HTTP API on one port (8474 by default) and TCP proxies
 * with its toxics, in Java. It stands in for Shopify's Go binary where neither a registry nor a package can
 * provide it; the harness drives it only through toxiproxy-java, so the real one can replace it unchanged.
 *
 * <p>Run: {@code java -cp ... io.faultline.nemesis.toxiproxy.ToxiproxyServer [-host=0.0.0.0] [-port=8474]}
 * (Toxiproxy's own flags).
 */
public final class ToxiproxyServer implements AutoCloseable {
    private final HttpServer http;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final ExecutorService apiThreads;
    private final ProxyRegistry registry;

    private ToxiproxyServer(HttpServer http, EventLoopGroup boss, EventLoopGroup workers, ExecutorService apiThreads,
                            ProxyRegistry registry) {
        this.http = http;
        this.boss = boss;
        this.workers = workers;
        this.apiThreads = apiThreads;
        this.registry = registry;
    }

    /** Starts the API on host:port (port 0: any free port, see {@link #apiPort()}). */
    public static ToxiproxyServer start(String host, int port) {
        EventLoopGroup boss = new NioEventLoopGroup(1);
        EventLoopGroup workers = new NioEventLoopGroup(2);
        ExecutorService apiThreads = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "toxiproxy-api");
            t.setDaemon(true);
            return t;
        });
        try {
            HttpServer http = HttpServer.create(new InetSocketAddress(host, port), 64);
            var registry = new ProxyRegistry(boss, workers);
            http.createContext("/", new ApiHandler(registry));
            http.setExecutor(apiThreads);
            http.start();
            return new ToxiproxyServer(http, boss, workers, apiThreads, registry);
        } catch (IOException e) {
            boss.shutdownGracefully();
            workers.shutdownGracefully();
            apiThreads.shutdownNow();
            throw new UncheckedIOException("cannot listen on " + host + ":" + port, e);
        }
    }

    public int apiPort() {
        return http.getAddress().getPort();
    }

    @Override
    public void close() {
        http.stop(0);
        registry.closeAll();
        apiThreads.shutdownNow();
        boss.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }

    public static void main(String[] args) throws InterruptedException {
        String host = "0.0.0.0";
        int port = 8474;
        for (String a : args) {
            String arg = a.replaceFirst("^--?", "");
            if (arg.startsWith("host=")) host = arg.substring(5);
            else if (arg.startsWith("port=")) port = Integer.parseInt(arg.substring(5));
            else if (!arg.startsWith("config=")) System.err.println("ignoring argument " + a);
        }
        ToxiproxyServer server = start(host, port);
        System.out.println("Toxiproxy-compatible API (faultline " + ApiHandler.VERSION + ") listening on " + host + ":"
                + server.apiPort());
        CountDownLatch forever = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close));
        forever.await();
    }
}
