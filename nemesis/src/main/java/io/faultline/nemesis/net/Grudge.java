package io.faultline.nemesis.net;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A network partition as a pure value (Jepsen's grudge): for each node, the set of nodes whose packets it drops.
 * Dropping inbound packets on one side is enough to break TCP both ways (the replies never arrive), so two nodes
 * are connected exactly when neither drops the other.
 */
public record Grudge(Map<String, Set<String>> drops) {
    public Grudge {
        var copy = new TreeMap<String, Set<String>>();
        drops.forEach((node, from) -> {
            if (from.contains(node)) throw new IllegalArgumentException(node + " cannot drop itself");
            if (!from.isEmpty()) copy.put(node, java.util.Collections.unmodifiableSet(new TreeSet<>(from)));
        });
        drops = java.util.Collections.unmodifiableMap(copy);
    }

    public static Grudge none() {
        return new Grudge(Map.of());
    }

    public Set<String> dropsOf(String node) {
        return drops.getOrDefault(node, Set.of());
    }

    /** Whether a and b can talk once this grudge is applied. */
    public boolean connected(String a, String b) {
        return a.equals(b) || !(dropsOf(a).contains(b) || dropsOf(b).contains(a));
    }

    public boolean isEmpty() {
        return drops.isEmpty();
    }

    /** Every node drops exactly those (of the universe, other than itself) it did not drop before. */
    public Grudge invert(Collection<String> universe) {
        var inverted = new TreeMap<String, Set<String>>();
        for (String node : universe) {
            var from = new TreeSet<>(universe);
            from.remove(node);
            from.removeAll(dropsOf(node));
            inverted.put(node, from);
        }
        return new Grudge(inverted);
    }

    /** How many iptables rules applying this grudge adds. */
    public int ruleCount() {
        return drops.values().stream().mapToInt(Set::size).sum();
    }

    @Override
    public String toString() {
        return drops.isEmpty() ? "{}" : drops.toString();
    }
}
