package io.faultline.nemesis.link;

import io.faultline.nemesis.ClusterView;
import io.faultline.nemesis.ClusterView.PartitionRef;
import io.faultline.nemesis.net.Grudges;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Which links a link fault hits, as directed data links (from → to). A one-way fault stops exactly these
 * directions; the other faults hit the reverse directions too. Nodes left null are drawn when the fault starts.
 */
public sealed interface LinkTarget {
    /** The directed links, resolved on the cluster as it is now (leaders move). */
    Set<DataLink> resolve(ClusterView cluster, Random random);

    /** One link: data from {@code from} to {@code to}. */
    record One(String from, String to) implements LinkTarget {
        public static One any() {
            return new One(null, null);
        }

        @Override
        public Set<DataLink> resolve(ClusterView cluster, Random random) {
            List<String> nodes = new ArrayList<>(cluster.nodeNames());
            String a = from != null ? from : nodes.remove(random.nextInt(nodes.size()));
            nodes.remove(a);
            String b = to != null ? to : nodes.get(random.nextInt(nodes.size()));
            return Set.of(new DataLink(a, b));
        }
    }

    /** Every link of one node: data from it to every other node. */
    record NodeLinks(String node) implements LinkTarget {
        public static NodeLinks any() {
            return new NodeLinks(null);
        }

        @Override
        public Set<DataLink> resolve(ClusterView cluster, Random random) {
            List<String> nodes = cluster.nodeNames();
            String n = node != null ? node : nodes.get(random.nextInt(nodes.size()));
            return fromTo(List.of(n), nodes);
        }
    }

    /**
     * A bridge, as the partition shape: the nodes shuffled into two halves and one node between them; the links
     * between the halves are hit (data from the first half to the second), the bridge node's are not.
     */
    record Bridge() implements LinkTarget {
        @Override
        public Set<DataLink> resolve(ClusterView cluster, Random random) {
            List<String> nodes = Grudges.shuffled(cluster.nodeNames(), random);
            if (nodes.size() < 3) throw new IllegalArgumentException("a bridge needs at least 3 nodes");
            int half = nodes.size() / 2;
            return fromTo(nodes.subList(0, half), nodes.subList(half + 1, nodes.size()));
        }
    }

    /** The links of a partition's leader: data from it to every other node. */
    record Leader(PartitionRef partition) implements LinkTarget {
        @Override
        public Set<DataLink> resolve(ClusterView cluster, Random random) {
            String leader = cluster.leaderOf(partition)
                    .orElseThrow(() -> new IllegalStateException("no leader known for " + partition));
            return fromTo(List.of(leader), cluster.nodeNames());
        }
    }

    /** The host's clients and one node: data from the clients to it (needs client routing, see LinkRouter). */
    record Clients(String node) implements LinkTarget {
        @Override
        public Set<DataLink> resolve(ClusterView cluster, Random random) {
            List<String> nodes = cluster.nodeNames();
            return Set.of(new DataLink(DataLink.CLIENTS, node != null ? node : nodes.get(random.nextInt(nodes.size()))));
        }
    }

    private static Set<DataLink> fromTo(List<String> from, List<String> to) {
        Set<DataLink> out = new TreeSet<>(java.util.Comparator.comparing(DataLink::toString));
        for (String a : from) for (String b : to) if (!a.equals(b)) out.add(new DataLink(a, b));
        return out;
    }

    /** "n1->n2, n1->n3" for results. */
    static String describe(Set<DataLink> links) {
        return links.stream().map(DataLink::toString).sorted().collect(Collectors.joining(", "));
    }
}
