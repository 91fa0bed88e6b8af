package io.faultline.nemesis.compose;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The nodes a composition's roles stand for, read from the cluster's metadata when it starts.
 *
 * @param partition  the partition whose roles these are ("topic-0")
 * @param leader     its leader
 * @param followers  its other replicas, in replica order
 * @param isr        its in-sync replicas at that moment
 * @param controller the active controller, or null when none is known
 * @param coordinator the workload's group coordinator, or null when none is known
 */
public record Roles(String partition, String leader, List<String> followers, Set<String> isr, String controller,
                    String coordinator) {
    public Roles {
        followers = List.copyOf(followers);
        isr = Set.copyOf(isr);
    }

    /** Without a known group coordinator. */
    public Roles(String partition, String leader, List<String> followers, Set<String> isr, String controller) {
        this(partition, leader, followers, isr, controller, null);
    }

    /** The nodes of a role; empty when the cluster has none (no second follower at rf 2, no known controller). */
    public List<String> nodes(Role role) {
        return switch (role) {
            case LEADER -> List.of(leader);
            case FOLLOWERS -> followers;
            case FOLLOWER_1 -> followers.isEmpty() ? List.of() : List.of(followers.get(0));
            case FOLLOWER_2 -> followers.size() < 2 ? List.of() : List.of(followers.get(1));
            case CONTROLLER -> controller == null ? List.of() : List.of(controller);
            case COORDINATOR -> coordinator == null ? List.of() : List.of(coordinator);
        };
    }

    public List<String> nodes(List<Role> roles) {
        List<String> out = new ArrayList<>();
        for (Role r : roles) for (String n : nodes(r)) if (!out.contains(n)) out.add(n);
        return out;
    }

    @Override
    public String toString() {
        return partition + ": leader " + leader + ", followers " + followers + ", isr " + new java.util.TreeSet<>(isr)
                + ", controller " + (controller == null ? "unknown" : controller)
                + (coordinator == null ? "" : ", coordinator " + coordinator);
    }
}
