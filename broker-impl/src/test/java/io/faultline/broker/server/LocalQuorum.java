package io.faultline.broker.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The loopback ports and listener settings of a cluster of combined broker + controller nodes, for tests that start
 * one in this JVM or in forked JVMs. Node {@code i} (0-based) has id {@code i + 1}; the first {@code voters} nodes
 * vote, the rest join the quorum as observers.
 */
public final class LocalQuorum {
    /** The Raft server listens this far above a node's controller port (the quorum's default offset). */
    private static final int RAFT_PORT_OFFSET = 1000;

    private final int[] client;
    private final int[] controller;
    private final int voters;

    private LocalQuorum(int[] client, int[] controller, int voters) {
        this.client = client;
        this.controller = controller;
        this.voters = voters;
    }

    /** {@code nodes} nodes, all of them voters. */
    public static LocalQuorum allocate(int nodes) {
        return allocate(nodes, nodes);
    }

    public static LocalQuorum allocate(int nodes, int voters) {
        if (voters < 1 || voters > nodes) throw new IllegalArgumentException("voters must be 1.." + nodes);
        int[] client = new int[nodes];
        int[] controller = new int[nodes];
        for (int i = 0; i < nodes; i++) {
            client[i] = freePort();
            controller[i] = freeControllerPort();
        }
        return new LocalQuorum(client, controller, voters);
    }

    public int nodes() {
        return client.length;
    }

    public int clientPort(int i) {
        return client[i];
    }

    public String bootstrap() {
        return IntStream.of(client).mapToObj(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** {@code controller.quorum.voters}: id@host:port of each voter. */
    public String voters() {
        return addresses(0, voters);
    }

    /**
     * Sets node {@code i}'s id, listeners and quorum settings on {@code p} (a voter gets a CONTROLLER listener) and
     * returns it; everything else in {@code p} is the caller's.
     */
    public Properties configure(Properties p, int i) {
        boolean voter = i < voters;
        p.setProperty("node.id", Integer.toString(i + 1));
        p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + client[i]
                + (voter ? ",CONTROLLER://127.0.0.1:" + controller[i] : ""));
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        p.setProperty("controller.quorum.voters", voters());
        if (voters < nodes()) p.setProperty("faultline.quorum.listeners", addresses(voters, nodes()));
        return p;
    }

    private String addresses(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> (i + 1) + "@127.0.0.1:" + controller[i])
                .collect(Collectors.joining(","));
    }

    /** A port free now on the loopback address (it may be taken again before the broker binds it). */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A free port whose Raft companion ({@link #RAFT_PORT_OFFSET} above it) is free too. */
    public static int freeControllerPort() {
        for (int attempt = 0; attempt < 100; attempt++) {
            int p = 20_000 + ThreadLocalRandom.current().nextInt(20_000);
            if (free(p) && free(p + RAFT_PORT_OFFSET)) return p;
        }
        throw new IllegalStateException("no free controller port pair on the loopback address");
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
