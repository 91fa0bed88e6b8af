package io.faultline.checker.observe;

import io.faultline.checker.observe.ClusterSnapshot.PartitionState;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns consecutive snapshots into abstract transitions. Stateful only in what one poll pair cannot tell: each
 * partition's last leader and the ISR it last had with a leader, so an election after a leaderless spell can say
 * whether the winner was in that ISR (a clean election) or not (a lagging replica won), and whether the old leader
 * came back. Kinds:
 * <ul>
 *   <li>cluster: {@code metadata-unavailable}, {@code metadata-available}, {@code controller-lost},
 *   {@code controller-elected}, {@code controller-moved}, {@code broker-fenced} (left the serving brokers),
 *   {@code broker-unfenced};</li>
 *   <li>partition: {@code partition-created}, {@code leader-lost}, {@code leader-elected} (after a leaderless spell),
 *   {@code leader-moved}, {@code leader-returned} (to the leader before the last change), {@code -outside-isr} after
 *   an election or move to a replica not in the last ISR, {@code leader-on-controller} when the new leader is also
 *   the active controller, {@code isr-shrink}, {@code isr-shrink-to-leader}, {@code isr-expand}, {@code isr-full}.</li>
 * </ul>
 */
public final class Transitions {
    private ClusterSnapshot last;
    private final Map<String, Integer> previousLeader = new HashMap<>();
    private final Map<String, Integer> lastLeader = new HashMap<>();
    private final Map<String, Set<Integer>> lastIsrWithLeader = new HashMap<>();

    /** The transitions from the last snapshot given to this one (none for the first). */
    public List<Transition> next(long timeNanos, ClusterSnapshot now) {
        List<Transition> out = new ArrayList<>();
        ClusterSnapshot before = last;
        if (before == null) {
            last = now;
            if (now.answered()) lastAnswered = now;
            now.partitions().forEach((p, s) -> remember(p, s));
            return out;
        }
        if (before.answered() && !now.answered()) {
            out.add(new Transition(timeNanos, "metadata-unavailable", "cluster", "no broker answered"));
            last = now;
            return out;
        }
        if (!now.answered()) return out; // still unavailable: nothing new to compare
        if (!before.answered()) {
            out.add(new Transition(timeNanos, "metadata-available", "cluster", "a broker answers again"));
            before = lastAnswered != null ? lastAnswered : before;
        }
        cluster(timeNanos, before, now, out);
        for (var e : now.partitions().entrySet()) partition(timeNanos, e.getKey(), before.partitions().get(e.getKey()), e.getValue(), now.controller(), out);
        last = now;
        lastAnswered = now;
        return out;
    }

    private ClusterSnapshot lastAnswered;

    private static void cluster(long t, ClusterSnapshot before, ClusterSnapshot now, List<Transition> out) {
        if (before.controller() != now.controller()) {
            String kind = now.controller() < 0 ? "controller-lost" : before.controller() < 0 ? "controller-elected" : "controller-moved";
            out.add(new Transition(t, kind, "cluster", before.controller() + " -> " + now.controller()));
        }
        for (int b : before.brokers()) {
            if (!now.brokers().contains(b)) out.add(new Transition(t, "broker-fenced", "cluster", "broker " + b));
        }
        for (int b : now.brokers()) {
            if (!before.brokers().contains(b) && !before.brokers().isEmpty()) out.add(new Transition(t, "broker-unfenced", "cluster", "broker " + b));
        }
    }

    private void partition(long t, String p, PartitionState before, PartitionState now, int controller, List<Transition> out) {
        if (before == null) {
            if (!lastLeader.containsKey(p)) out.add(new Transition(t, "partition-created", p, "replicas " + now.replicas()));
            remember(p, now);
            return;
        }
        if (before.leader() != now.leader()) {
            if (now.leader() < 0) {
                out.add(new Transition(t, "leader-lost", p, "was " + before.leader()));
            } else {
                Set<Integer> isr = lastIsrWithLeader.getOrDefault(p, before.isr());
                boolean outside = !isr.isEmpty() && !isr.contains(now.leader());
                String kind = before.leader() < 0 ? "leader-elected"
                        : now.leader() == previousLeader.getOrDefault(p, -2) ? "leader-returned" : "leader-moved";
                if (before.leader() < 0 && now.leader() == lastLeader.getOrDefault(p, -2)) kind = "leader-returned";
                out.add(new Transition(t, kind + (outside ? "-outside-isr" : ""), p, before.leader() + " -> " + now.leader()
                        + " (last ISR " + isr + ")"));
                if (now.leader() == controller) out.add(new Transition(t, "leader-on-controller", p, "broker " + now.leader()));
                int prior = lastLeader.getOrDefault(p, -1);
                if (prior != now.leader()) previousLeader.put(p, prior);
            }
        }
        if (!before.isr().equals(now.isr()) && now.leader() >= 0) {
            if (now.isr().size() < before.isr().size()) {
                out.add(new Transition(t, now.isr().size() == 1 && now.isr().contains(now.leader()) ? "isr-shrink-to-leader" : "isr-shrink",
                        p, before.isr() + " -> " + now.isr()));
            } else if (now.isr().size() > before.isr().size()) {
                out.add(new Transition(t, now.isr().containsAll(now.replicas()) ? "isr-full" : "isr-expand", p, before.isr() + " -> " + now.isr()));
            }
        }
        remember(p, now);
    }

    private void remember(String p, PartitionState s) {
        if (s.leader() >= 0) {
            lastLeader.put(p, s.leader());
            lastIsrWithLeader.put(p, s.isr());
        }
    }
}
