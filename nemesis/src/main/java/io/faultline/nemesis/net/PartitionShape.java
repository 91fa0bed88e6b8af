package io.faultline.nemesis.net;

import io.faultline.nemesis.ClusterView;
import io.faultline.nemesis.ClusterView.PartitionRef;

import java.util.List;
import java.util.Random;

/** The closed set of partition shapes. Each computes its grudge from the cluster view and a seeded Random. */
public sealed interface PartitionShape {
    Grudge grudge(ClusterView view, Random random);

    /** One random node cut off from all others. */
    record IsolateOne() implements PartitionShape {
        public Grudge grudge(ClusterView view, Random random) {
            List<String> nodes = view.nodeNames();
            return Grudges.isolate(nodes.get(random.nextInt(nodes.size())), nodes);
        }

        @Override
        public String toString() {
            return "one";
        }
    }

    /** A random minority against the majority. */
    record Halves() implements PartitionShape {
        public Grudge grudge(ClusterView view, Random random) {
            return Grudges.halves(Grudges.shuffled(view.nodeNames(), random));
        }

        @Override
        public String toString() {
            return "majority";
        }
    }

    /** Each node sees a majority, all majorities differ (needs 4+ nodes). */
    record MajoritiesRing() implements PartitionShape {
        public Grudge grudge(ClusterView view, Random random) {
            return Grudges.majoritiesRing(Grudges.shuffled(view.nodeNames(), random));
        }

        @Override
        public String toString() {
            return "majorities-ring";
        }
    }

    /** Up to a third of the nodes (at least one) split from the rest. */
    record MinorityThird() implements PartitionShape {
        public Grudge grudge(ClusterView view, Random random) {
            List<String> nodes = Grudges.shuffled(view.nodeNames(), random);
            return Grudges.splitOff(nodes, Grudges.minorityThird(nodes.size()));
        }

        @Override
        public String toString() {
            return "minority-third";
        }
    }

    /** Two halves joined only through one bridge node (needs 3+ nodes). */
    record Bridge() implements PartitionShape {
        public Grudge grudge(ClusterView view, Random random) {
            return Grudges.bridge(Grudges.shuffled(view.nodeNames(), random));
        }

        @Override
        public String toString() {
            return "bridge";
        }
    }

    /** The current leader of a partition cut off from all others; fails when no leader is known. */
    record IsolateLeader(PartitionRef partition) implements PartitionShape {
        public Grudge grudge(ClusterView view, Random random) {
            String leader = view.leaderOf(partition)
                    .orElseThrow(() -> new IllegalStateException("no known leader of " + partition));
            return Grudges.isolate(leader, view.nodeNames());
        }

        @Override
        public String toString() {
            return "leader-of " + partition;
        }
    }

    /** The active controller cut off from all others; fails when none is known. */
    record IsolateController() implements PartitionShape {
        public Grudge grudge(ClusterView view, Random random) {
            String controller = view.activeController()
                    .orElseThrow(() -> new IllegalStateException("no known active controller"));
            return Grudges.isolate(controller, view.nodeNames());
        }

        @Override
        public String toString() {
            return "controller";
        }
    }

    /** Exactly the grudge given. */
    record Explicit(Grudge grudge) implements PartitionShape {
        public Grudge grudge(ClusterView view, Random random) {
            for (var e : grudge.drops().entrySet()) {
                if (!view.nodeNames().contains(e.getKey()) || !view.nodeNames().containsAll(e.getValue())) {
                    throw new IllegalArgumentException("grudge names unknown nodes: " + grudge);
                }
            }
            return grudge;
        }

        @Override
        public String toString() {
            return "grudge " + grudge;
        }
    }

    /**
     * Cuts only the TCP connections the listed peers of each node of the grudge open to {@code port} on it: the peers
     * drop what the node sends from that port, so those connections never complete and no reply on one already open
     * arrives; all other traffic between them passes, e.g. a follower's replication fetches to a broker's port are
     * cut while ZooKeeper, the KRaft quorum and clients still reach it.
     */
    record PortCut(Grudge grudge, int port) implements PartitionShape {
        public PortCut {
            if (port <= 0 || port > 65535) throw new IllegalArgumentException("port " + port);
        }

        public Grudge grudge(ClusterView view, Random random) {
            return new Explicit(grudge).grudge(view, random);
        }

        @Override
        public String toString() {
            return "port " + port + " grudge " + grudge;
        }
    }

    /**
     * A {@link PortCut} on the replication port of the system under test ({@code SystemUnderTest#replicationPort}: the
     * port followers fetch on), resolved by the partitioner when it applies the cut, so a plan made before the cluster
     * exists can name it.
     */
    record ReplicationCut(Grudge grudge) implements PartitionShape {
        public Grudge grudge(ClusterView view, Random random) {
            return new Explicit(grudge).grudge(view, random);
        }

        @Override
        public String toString() {
            return "replication-port grudge " + grudge;
        }
    }
}
