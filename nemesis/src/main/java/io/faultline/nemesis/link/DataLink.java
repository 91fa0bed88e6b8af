package io.faultline.nemesis.link;

/** Data flowing from one node to another, whichever of them opened the connection. */
public record DataLink(String from, String to) {
    /** Stands for the clients on the host, at one end of a client link. */
    public static final String CLIENTS = "clients";

    public DataLink {
        if (from.equals(to)) throw new IllegalArgumentException("a link joins two nodes: " + from);
    }

    public DataLink reversed() {
        return new DataLink(to, from);
    }

    @Override
    public String toString() {
        return from + "->" + to;
    }
}
