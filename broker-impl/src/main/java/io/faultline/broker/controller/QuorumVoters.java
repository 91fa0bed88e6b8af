package io.faultline.broker.controller;

import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Parses Kafka's {@code controller.quorum.voters} syntax: {@code id@host:port,id@host:port,...}. */
public final class QuorumVoters {
    private QuorumVoters() { }

    /** Voter id → address (unresolved, so a host need not be resolvable yet), in the order given. */
    public static Map<Integer, InetSocketAddress> parse(String voters) {
        if (voters == null || voters.isBlank()) throw new IllegalArgumentException("controller.quorum.voters is empty");
        Map<Integer, InetSocketAddress> out = new LinkedHashMap<>();
        for (String raw : voters.split(",")) {
            String entry = raw.trim();
            int at = entry.indexOf('@');
            int colon = entry.lastIndexOf(':');
            if (at <= 0 || colon <= at + 1 || colon == entry.length() - 1) {
                throw new IllegalArgumentException("bad voter '" + entry + "' in controller.quorum.voters (want id@host:port)");
            }
            int id;
            int port;
            try {
                id = Integer.parseInt(entry.substring(0, at));
                port = Integer.parseInt(entry.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad voter '" + entry + "' in controller.quorum.voters", e);
            }
            if (id < 0 || port <= 0 || port > 65535) throw new IllegalArgumentException("bad voter '" + entry + "'");
            String host = entry.substring(at + 1, colon);
            if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
            if (out.put(id, InetSocketAddress.createUnresolved(host, port)) != null) {
                throw new IllegalArgumentException("voter id " + id + " appears twice in controller.quorum.voters");
            }
        }
        return Collections.unmodifiableMap(out);
    }

    /**
     * The Raft addresses when they are derived from the controller listener addresses: same host, port +
     * {@code offset} (the documented convention: Raft port = controller port + {@link #DEFAULT_RAFT_PORT_OFFSET}).
     */
    public static Map<Integer, InetSocketAddress> shiftPorts(Map<Integer, InetSocketAddress> addresses, int offset) {
        Map<Integer, InetSocketAddress> out = new LinkedHashMap<>();
        addresses.forEach((id, a) -> out.put(id, InetSocketAddress.createUnresolved(a.getHostString(), a.getPort() + offset)));
        return Collections.unmodifiableMap(out);
    }

    public static final int DEFAULT_RAFT_PORT_OFFSET = 1000;
}
