package io.faultline.docker;

/** A node's place in its cluster: name (n1..nN), 1-based index, fixed IP on the cluster network. */
public record NodeAddress(String name, int index, String ip) {}
