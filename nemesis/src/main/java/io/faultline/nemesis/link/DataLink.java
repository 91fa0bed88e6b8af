package io.faultline.nemesis.link;

/** Data flowing from one node to another, whichever of them opened the connection. */
public record DataLink(String from, String to) {
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
