package io.faultline.nemesis.process;

import io.faultline.nemesis.ClusterView;
import io.faultline.nemesis.ClusterView.PartitionRef;
import io.faultline.nemesis.net.Grudges;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/** The closed set of ways to choose the nodes a process, clock or disk fault hits. */
public sealed interface Target {
    /** The chosen node names, in cluster order. May be empty (e.g. no known controller). */
    List<String> resolve(ClusterView view, Random random);

    /** One random node. */
    record One() implements Target {
        public List<String> resolve(ClusterView view, Random random) {
            return pick(view.nodeNames(), 1, random);
        }

        @Override
        public String toString() {
            return "one";
        }
    }

    /** A random minority: the largest number of nodes that is not a majority. */
    record Minority() implements Target {
        public List<String> resolve(ClusterView view, Random random) {
            int n = view.nodeNames().size();
            return pick(view.nodeNames(), Math.max(1, Grudges.majority(n) - 1), random);
        }

        @Override
        public String toString() {
            return "minority";
        }
    }

    /** A random smallest majority. */
    record Majority() implements Target {
        public List<String> resolve(ClusterView view, Random random) {
            return pick(view.nodeNames(), Grudges.majority(view.nodeNames().size()), random);
        }

        @Override
        public String toString() {
            return "majority";
        }
    }

    record All() implements Target {
        public List<String> resolve(ClusterView view, Random random) {
            return view.nodeNames();
        }

        @Override
        public String toString() {
            return "all";
        }
    }

    /** The current leaders of the given partitions (distinct); partitions without a known leader are skipped. */
    record Primaries(List<PartitionRef> partitions) implements Target {
        public Primaries {
            partitions = List.copyOf(partitions);
        }

        public List<String> resolve(ClusterView view, Random random) {
            Set<String> leaders = new LinkedHashSet<>();
            for (PartitionRef p : partitions) view.leaderOf(p).ifPresent(leaders::add);
            return inClusterOrder(view.nodeNames(), leaders);
        }

        @Override
        public String toString() {
            return "primaries " + partitions;
        }
    }

    /** The active controller, if known. */
    record Controller() implements Target {
        public List<String> resolve(ClusterView view, Random random) {
            return view.activeController().map(List::of).orElse(List.of());
        }

        @Override
        public String toString() {
            return "controller";
        }
    }

    /** Exactly these nodes. */
    record Nodes(List<String> names) implements Target {
        public Nodes {
            names = List.copyOf(names);
        }

        public List<String> resolve(ClusterView view, Random random) {
            for (String n : names) {
                if (!view.nodeNames().contains(n)) throw new IllegalArgumentException("no node " + n);
            }
            return inClusterOrder(view.nodeNames(), names);
        }

        @Override
        public String toString() {
            return names.toString();
        }
    }

    private static List<String> pick(List<String> nodes, int count, Random random) {
        List<String> shuffled = Grudges.shuffled(nodes, random);
        return inClusterOrder(nodes, shuffled.subList(0, Math.min(count, shuffled.size())));
    }

    private static List<String> inClusterOrder(List<String> nodes, java.util.Collection<String> chosen) {
        List<String> out = new ArrayList<>();
        for (String n : nodes) if (chosen.contains(n)) out.add(n);
        return out;
    }
}
