package io.faultline.nemesis.net;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/** Pure functions from node lists to grudges: the partition shapes, testable without any container. */
public final class Grudges {
    private Grudges() {}

    /** The smallest majority of n nodes. */
    public static int majority(int n) {
        return n / 2 + 1;
    }

    /** Up to a third of the nodes, never fewer than one (Jepsen's minority-third is 0 for three nodes). */
    public static int minorityThird(int n) {
        return Math.max(1, (n - 1) / 3);
    }

    /** Nodes in each component talk only to nodes of the same component. */
    public static Grudge complete(List<? extends Collection<String>> components) {
        Set<String> universe = new TreeSet<>();
        components.forEach(universe::addAll);
        Map<String, Set<String>> drops = new LinkedHashMap<>();
        for (Collection<String> component : components) {
            for (String node : component) {
                Set<String> others = new TreeSet<>(universe);
                others.removeAll(component);
                drops.put(node, others);
            }
        }
        return new Grudge(drops);
    }

    /** Splits off the first {@code size} nodes from the rest. */
    public static Grudge splitOff(List<String> nodes, int size) {
        if (size < 1 || size >= nodes.size()) {
            throw new IllegalArgumentException("cannot split " + size + " of " + nodes.size() + " nodes");
        }
        return complete(List.of(nodes.subList(0, size), nodes.subList(size, nodes.size())));
    }

    /** One node alone, the rest together. */
    public static Grudge isolate(String node, List<String> nodes) {
        if (!nodes.contains(node)) throw new IllegalArgumentException(node + " is not one of " + nodes);
        List<String> rest = new ArrayList<>(nodes);
        rest.remove(node);
        return complete(List.of(List.of(node), rest));
    }

    /** A minority (the smaller half, first) and a majority. */
    public static Grudge halves(List<String> nodes) {
        return splitOff(nodes, nodes.size() / 2);
    }

    /**
     * Two halves that cannot talk, joined by one node that talks to both (first node of the larger half). Needs
     * three nodes.
     */
    public static Grudge bridge(List<String> nodes) {
        if (nodes.size() < 3) throw new IllegalArgumentException("a bridge needs at least 3 nodes");
        int half = nodes.size() / 2;
        String bridge = nodes.get(half);
        List<String> left = nodes.subList(0, half);
        List<String> right = new ArrayList<>(nodes.subList(half + 1, nodes.size()));
        Map<String, Set<String>> drops = new LinkedHashMap<>();
        left.forEach(n -> drops.put(n, new TreeSet<>(right)));
        right.forEach(n -> drops.put(n, new TreeSet<>(left)));
        return new Grudge(drops);
    }

    /** Whether {@link #majoritiesRing} has a solution for n nodes. */
    public static boolean ringPossible(int n) {
        return 2 * ringReach(n) + 1 < n;
    }

    private static int ringReach(int n) {
        return (majority(n) - 1 + 1) / 2; // ceil((m - 1) / 2)
    }

    /**
     * Every node sees a majority, and no two nodes see the same majority. Because a one-sided drop cuts both
     * directions, the cut must be symmetric; so the nodes, in the given order, form a ring and each node keeps
     * the {@code k} nearest on either side, k the least such that 2k+1 is a majority. Impossible below 4 nodes.
     */
    public static Grudge majoritiesRing(List<String> nodes) {
        int n = nodes.size();
        if (!ringPossible(n)) throw new IllegalArgumentException("no majorities ring on " + n + " nodes");
        int k = ringReach(n);
        Map<String, Set<String>> drops = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            Set<String> seen = new HashSet<>();
            for (int d = -k; d <= k; d++) seen.add(nodes.get(Math.floorMod(i + d, n)));
            Set<String> dropped = new TreeSet<>(nodes);
            dropped.removeAll(seen);
            drops.put(nodes.get(i), dropped);
        }
        return new Grudge(drops);
    }

    /** A shuffled copy (seeded), so that shapes pick different nodes each time but repeat given the seed. */
    public static List<String> shuffled(List<String> nodes, Random random) {
        List<String> copy = new ArrayList<>(nodes);
        java.util.Collections.shuffle(copy, random);
        return copy;
    }

    /** What each node sees (itself included) under a grudge: the connectivity to check against. */
    public static Map<String, Set<String>> visibility(Grudge grudge, List<String> nodes) {
        Map<String, Set<String>> seen = new LinkedHashMap<>();
        for (String a : nodes) {
            Set<String> s = new TreeSet<>();
            for (String b : nodes) if (grudge.connected(a, b)) s.add(b);
            seen.put(a, s);
        }
        return seen;
    }
}
