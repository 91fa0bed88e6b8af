package io.faultline.nemesis.compose;

import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.FaultPackages;
import io.faultline.nemesis.clock.ClockChange;
import io.faultline.nemesis.clock.ClockNemesis;
import io.faultline.nemesis.disk.DiskFault;
import io.faultline.nemesis.disk.DiskNemesis;
import io.faultline.nemesis.ClusterView.PartitionRef;
import io.faultline.nemesis.link.LinkFault;
import io.faultline.nemesis.membership.MembershipNemesis;
import io.faultline.nemesis.link.LinkNemesis;
import io.faultline.nemesis.link.LinkTarget;
import io.faultline.nemesis.net.Grudge;
import io.faultline.nemesis.net.PartitionShape;
import io.faultline.nemesis.net.Partitioner;
import io.faultline.nemesis.process.ProcessNemesis;
import io.faultline.nemesis.process.Target;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A step with bound roles as the nemesis packages' own ops, so composed faults land in the history, the report's
 * bands and the final heal exactly as scheduled ones do. Pure: the same roles give the same ops.
 */
public final class StepOps {
    private StepOps() {}

    /** A package and the op to invoke through it. */
    public record Invocation(String packageName, FaultOp op) {
        @Override
        public String toString() {
            return packageName + ": " + op;
        }
    }

    /**
     * The fault packages a plan of these kinds acts through (what the run must set up), in heal order: moves are
     * cancelled once every node is back.
     */
    public static List<String> packages(boolean clock, boolean links, boolean disk, boolean membership) {
        List<String> out = new ArrayList<>(List.of(FaultPackages.PARTITION));
        if (links) out.add(FaultPackages.LINK);
        out.add(FaultPackages.PAUSE);
        if (clock) out.add(FaultPackages.CLOCK);
        out.add(FaultPackages.KILL);
        out.add(FaultPackages.STOP);
        if (membership) out.add(FaultPackages.MEMBERSHIP);
        if (disk) out.add(FaultPackages.DISK);
        return out;
    }

    /**
     * The op for one step, or empty for a wait or a step whose role names no node here (it is then skipped and
     * logged: a second follower at rf 2, an unknown controller). A cut whose sides share a node leaves that node out
     * of the far side.
     */
    public static Optional<Invocation> of(Step step, Roles roles, List<String> allNodes) {
        if (step instanceof Step.Wait) return Optional.empty();
        if (step instanceof Step.Cut c) {
            return sides(roles, c.side(), c.from()).map(StepOps::cut);
        }
        if (step instanceof Step.CutReplication c) {
            return sides(roles, c.side(), c.from()).map(g -> new Invocation(FaultPackages.PARTITION,
                    FaultOp.of(Partitioner.START, new PartitionShape.ReplicationCut(g))));
        }
        if (step instanceof Step.Isolate i) {
            List<String> side = roles.nodes(i.role());
            List<String> rest = new ArrayList<>(allNodes);
            rest.removeAll(side);
            return side.isEmpty() || rest.isEmpty() ? Optional.empty() : Optional.of(cut(grudge(side, rest)));
        }
        if (step instanceof Step.Heal) return Optional.of(new Invocation(FaultPackages.PARTITION, FaultOp.of(Partitioner.STOP)));
        if (step instanceof Step.Kill k) return process(FaultPackages.KILL, ProcessNemesis.KILL, roles.nodes(k.role()));
        if (step instanceof Step.Start s) return process(FaultPackages.KILL, ProcessNemesis.START, roles.nodes(s.role()));
        if (step instanceof Step.Stop st) return process(FaultPackages.STOP, ProcessNemesis.STOP, roles.nodes(st.role()));
        if (step instanceof Step.StartStopped st) return process(FaultPackages.STOP, ProcessNemesis.START, roles.nodes(st.role()));
        if (step instanceof Step.Pause p) return process(FaultPackages.PAUSE, ProcessNemesis.PAUSE, roles.nodes(p.role()));
        if (step instanceof Step.Resume r) return process(FaultPackages.PAUSE, ProcessNemesis.RESUME, roles.nodes(r.role()));
        if (step instanceof Step.Skew s) {
            List<String> nodes = roles.nodes(s.role());
            return nodes.isEmpty() ? Optional.empty() : Optional.of(new Invocation(FaultPackages.CLOCK,
                    FaultOp.of(ClockNemesis.BUMP, new ClockChange.Bump(new Target.Nodes(nodes), s.millis()))));
        }
        if (step instanceof Step.ResetClocks) {
            return Optional.of(new Invocation(FaultPackages.CLOCK, FaultOp.of(ClockNemesis.RESET, new ClockChange.Reset(new Target.All()))));
        }
        if (step instanceof Step.SlowLinks s) {
            List<String> nodes = roles.nodes(s.role());
            return nodes.isEmpty() ? Optional.empty() : Optional.of(new Invocation(FaultPackages.LINK, FaultOp.of(LinkNemesis.START,
                    new LinkFault.Slow(new LinkTarget.NodeLinks(nodes.get(0)), s.latencyMs(), s.latencyMs() / 4))));
        }
        if (step instanceof Step.HealLinks) return Optional.of(new Invocation(FaultPackages.LINK, FaultOp.of(LinkNemesis.STOP)));
        if (step instanceof Step.CrashTorn t) {
            List<String> nodes = roles.nodes(t.role());
            return nodes.isEmpty() ? Optional.empty() : Optional.of(new Invocation(FaultPackages.DISK, FaultOp.of(DiskNemesis.TEAR,
                    new DiskFault.Tear(new Target.Nodes(nodes), t.bytes(), roles.partition()))));
        }
        if (step instanceof Step.Reassign ra) {
            List<Integer> ids = roles.nodes(ra.replicas()).stream().map(StepOps::brokerId).toList();
            return ids.isEmpty() ? Optional.empty() : Optional.of(new Invocation(FaultPackages.MEMBERSHIP,
                    FaultOp.of(MembershipNemesis.REASSIGN, new MembershipNemesis.Reassign(partitionRef(roles), ids))));
        }
        if (step instanceof Step.ElectPreferred) {
            return Optional.of(new Invocation(FaultPackages.MEMBERSHIP,
                    FaultOp.of(MembershipNemesis.ELECT, new MembershipNemesis.Elect(List.of(partitionRef(roles))))));
        }
        throw new IllegalArgumentException("unknown step " + step);
    }

    /** The grudge between one side's nodes and the other's (a node on both stays on the first); none if a side is empty. */
    private static Optional<Grudge> sides(Roles roles, List<Role> one, List<Role> other) {
        List<String> side = roles.nodes(one);
        List<String> from = new ArrayList<>(roles.nodes(other));
        from.removeAll(side);
        return side.isEmpty() || from.isEmpty() ? Optional.empty() : Optional.of(grudge(side, from));
    }

    /** Node ni is broker i (as roles are read from the cluster's metadata). */
    static int brokerId(String node) {
        return Integer.parseInt(node.substring(1));
    }

    /** The bound partition ("topic-3") as a reference. */
    static PartitionRef partitionRef(Roles roles) {
        String p = roles.partition();
        int dash = p.lastIndexOf('-');
        return new PartitionRef(p.substring(0, dash), Integer.parseInt(p.substring(dash + 1)));
    }

    private static Optional<Invocation> process(String pkg, String f, List<String> nodes) {
        return nodes.isEmpty() ? Optional.empty() : Optional.of(new Invocation(pkg, FaultOp.of(f, new Target.Nodes(nodes))));
    }

    private static Invocation cut(Grudge g) {
        return new Invocation(FaultPackages.PARTITION, FaultOp.of(Partitioner.START, new PartitionShape.Explicit(g)));
    }

    /** Each node of a drops each node of b and the other way round. */
    static Grudge grudge(List<String> a, List<String> b) {
        Map<String, Set<String>> drops = new TreeMap<>();
        for (String x : a) drops.computeIfAbsent(x, k -> new TreeSet<>()).addAll(b);
        for (String y : b) drops.computeIfAbsent(y, k -> new TreeSet<>()).addAll(a);
        return new Grudge(drops);
    }
}
