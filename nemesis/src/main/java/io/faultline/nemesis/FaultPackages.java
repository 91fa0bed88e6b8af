package io.faultline.nemesis;

import io.faultline.nemesis.clock.ClockChange;
import io.faultline.nemesis.clock.ClockNemesis;
import io.faultline.nemesis.disk.DiskFault;
import io.faultline.nemesis.disk.DiskNemesis;
import io.faultline.nemesis.link.LinkFault;
import io.faultline.nemesis.link.LinkNemesis;
import io.faultline.nemesis.link.LinkTarget;
import io.faultline.nemesis.membership.MembershipNemesis;
import io.faultline.nemesis.net.Grudges;
import io.faultline.nemesis.net.PartitionShape;
import io.faultline.nemesis.net.Partitioner;
import io.faultline.nemesis.power.PowerNemesis;
import io.faultline.nemesis.process.ProcessNemesis;
import io.faultline.nemesis.process.Target;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;

/**
 * The fault catalogue by name. {@link #create} builds the named packages for a cluster, with op choices that fit
 * its size and its system's abilities (leader and controller faults only when the system can name them), sharing
 * one nemesis of each kind, and returns them in the order their final heals should run: network first (so the
 * nodes can talk again), then thawing, clocks, processes, and last the disk faults' recovery.
 */
public final class FaultPackages {
    public static final String PARTITION = "partition";
    public static final String PAUSE = "pause";
    public static final String CLOCK = "clock";
    public static final String KILL = "kill";
    public static final String STOP = "stop";
    public static final String RESTART = "restart";
    public static final String DISK = "disk";
    /** Slow, flaky, throttled, one-way and sliced links through Toxiproxy; healed right after partitions. */
    public static final String LINK = "link";
    /**
     * Replica moves of workload partitions and preferred-leader elections through the Admin API; healed (pending
     * moves cancelled) once the processes run again, so the cluster can answer.
     */
    public static final String MEMBERSHIP = "membership";
    /** Every name, in heal order. */
    public static final List<String> NAMES = List.of(PARTITION, LINK, PAUSE, CLOCK, KILL, STOP, RESTART, MEMBERSHIP, DISK);

    /** Share of process and partition faults aimed at a partition leader or the active controller. */
    public static final double AIMED_SHARE = 0.6;
    /** Power loss: needs the nodes' data on lazyfs (see {@link io.faultline.docker.LazyFsMount}). */
    public static final String POWER = "power";
    /**
     * Packages that need the nodes prepared before they start (power: data on lazyfs), so not in {@link #NAMES}
     * ("every package" must run on any cluster). Their final heal runs just before the disk faults' recovery.
     */
    public static final List<String> PREPARED = List.of(POWER, PowerNemesis.ONE_AT_A_TIME, PowerNemesis.ALL_AT_ONCE);

    /** Whether these packages need every node's data on lazyfs (a power package). */
    public static boolean needsLazyFs(Collection<String> names) {
        return names.stream().anyMatch(PREPARED::contains);
    }

    private FaultPackages() {}

    /** How each package is drawn, without a cluster: for reports built from a history file. */
    public static List<FaultPackage.Legend> legends() {
        return List.of(
                new FaultPackage.Legend(PARTITION, "#E9C46A", Set.of(Partitioner.START), Set.of(Partitioner.STOP)),
                new FaultPackage.Legend(LINK, "#6C9A8B", Set.of(LinkNemesis.START), Set.of(LinkNemesis.STOP)),
                new FaultPackage.Legend(PAUSE, "#9B8AC4", Set.of(ProcessNemesis.PAUSE), Set.of(ProcessNemesis.RESUME)),
                new FaultPackage.Legend(CLOCK, "#2A9D8F", Set.of(ClockNemesis.BUMP, ClockNemesis.STROBE), Set.of(ClockNemesis.RESET)),
                new FaultPackage.Legend(KILL, "#E76F51", Set.of(ProcessNemesis.KILL), Set.of(ProcessNemesis.START)),
                new FaultPackage.Legend(STOP, "#F4A261", Set.of(ProcessNemesis.STOP), Set.of(ProcessNemesis.START)),
                new FaultPackage.Legend(RESTART, "#D98880", Set.of(ProcessNemesis.RESTART), Set.of()),
                new FaultPackage.Legend(MEMBERSHIP, "#B08968", Set.of(MembershipNemesis.MOVE, MembershipNemesis.REASSIGN, MembershipNemesis.ELECT),
                        Set.of(MembershipNemesis.CANCEL)),
                new FaultPackage.Legend(POWER, "#6D597A", Set.of(PowerNemesis.OFF), Set.of(PowerNemesis.ON)),
                new FaultPackage.Legend(DISK, "#8AB6D6", Set.of(DiskNemesis.TRUNCATE, DiskNemesis.BITFLIP, DiskNemesis.TEAR, DiskNemesis.DELETE_INDEX), Set.of()));
    }

    private static String colour(String name) {
        return legends().stream().filter(l -> l.name().equals(name)).findFirst().orElseThrow().colour();
    }

    public static List<FaultPackage> create(Collection<String> names, NemesisContext ctx, FaultOptions options) {
        List<String> power = names.stream().filter(PREPARED::contains).distinct().toList();
        if (power.size() > 1) throw new IllegalArgumentException("name one power package, not " + power);
        if (!power.isEmpty()) {
            List<FaultPackage> out = new ArrayList<>(create(names.stream().filter(n -> !PREPARED.contains(n)).toList(), ctx, options));
            int disk = out.stream().map(FaultPackage::name).toList().indexOf(DISK);
            out.add(disk < 0 ? out.size() : disk, power(power.get(0)));
            return out;
        }
        for (String n : names) {
            if (!NAMES.contains(n)) throw new IllegalArgumentException("unknown fault package " + n + "; known: " + NAMES);
        }
        var partitioner = new Partitioner();
        var process = new ProcessNemesis();
        List<FaultPackage> out = new ArrayList<>();
        for (String name : NAMES) {
            if (!names.contains(name)) continue;
            out.add(switch (name) {
                case PARTITION -> partition(ctx, options, partitioner);
                case LINK -> link(ctx, options);
                case PAUSE -> processPackage(PAUSE, ProcessNemesis.PAUSE, ProcessNemesis.RESUME, colour(PAUSE), ctx, options, process);
                case CLOCK -> clock(ctx, options);
                case KILL -> processPackage(KILL, ProcessNemesis.KILL, ProcessNemesis.START, colour(KILL), ctx, options, process);
                case STOP -> processPackage(STOP, ProcessNemesis.STOP, ProcessNemesis.START, colour(STOP), ctx, options, process);
                case RESTART -> restart(ctx, options, process);
                case MEMBERSHIP -> membership(ctx, options);
                case POWER -> power(POWER);
                case DISK -> disk(options);
                default -> throw new AssertionError(name);
            });
        }
        return out;
    }

    static FaultPackage partition(NemesisContext ctx, FaultOptions options, Partitioner partitioner) {
        int n = ctx.nodeNames().size();
        if (n < 2) throw new IllegalArgumentException("partitions need at least 2 nodes");
        List<PartitionShape> shapes = new ArrayList<>(List.of(new PartitionShape.IsolateOne(), new PartitionShape.Halves(),
                new PartitionShape.MinorityThird()));
        if (n >= 3) shapes.add(new PartitionShape.Bridge());
        if (Grudges.ringPossible(n)) shapes.add(new PartitionShape.MajoritiesRing());
        List<PartitionShape> leaders = new ArrayList<>();
        if (ctx.knowsLeaders()) options.primaries().forEach(p -> leaders.add(new PartitionShape.IsolateLeader(p)));
        List<PartitionShape> controller = ctx.knowsController() ? List.of(new PartitionShape.IsolateController()) : List.of();
        Function<Random, PartitionShape> shape = aimed(leaders, controller, shapes);
        var generator = OpGenerator.flipFlop(r -> FaultOp.of(Partitioner.START, shape.apply(r)),
                r -> FaultOp.of(Partitioner.STOP));
        return new FaultPackage(PARTITION, partitioner, generator, List.of(FaultOp.of(Partitioner.STOP)), colour(PARTITION),
                Set.of(Partitioner.START), Set.of(Partitioner.STOP));
    }

    /**
     * Where bugs live, as Jepsen's Kafka nemesis aims: when the system can name them, {@link #AIMED_SHARE} of the
     * draws pick the leader of one workload partition or the active controller (equally, or only whichever is
     * known); the rest pick among the broad choices.
     */
    static <T> Function<Random, T> aimed(List<T> leaders, List<T> controller, List<T> broad) {
        List<T> lead = List.copyOf(leaders), ctrl = List.copyOf(controller), rest = List.copyOf(broad);
        if (rest.isEmpty()) throw new IllegalArgumentException("no broad choices");
        return r -> {
            if ((lead.isEmpty() && ctrl.isEmpty()) || r.nextDouble() >= AIMED_SHARE) return rest.get(r.nextInt(rest.size()));
            List<T> from = lead.isEmpty() ? ctrl : ctrl.isEmpty() ? lead : r.nextBoolean() ? lead : ctrl;
            return from.get(r.nextInt(from.size()));
        };
    }

    /** The ways to pick nodes for process faults on this cluster (see {@link #aimed}). */
    static Function<Random, Target> processTargets(NemesisContext ctx, FaultOptions options) {
        List<Target> broad = List.of(new Target.One(), new Target.Minority(), new Target.Majority(), new Target.All());
        List<Target> leaders = new ArrayList<>();
        if (ctx.knowsLeaders()) options.primaries().forEach(p -> leaders.add(new Target.Primaries(List.of(p))));
        List<Target> controller = ctx.knowsController() ? List.of(new Target.Controller()) : List.of();
        return aimed(leaders, controller, broad);
    }

    /**
     * Link faults on a node's links, one link, a bridge or a leader's links: slow (20..400 ms ± a quarter),
     * flaky (a fifth to a half of connections reset or silenced), throttled (16..256 KB/s), one-way, sliced.
     */
    static FaultPackage link(NemesisContext ctx, FaultOptions options) {
        int n = ctx.nodeNames().size();
        if (n < 2) throw new IllegalArgumentException("link faults need at least 2 nodes");
        List<LinkTarget> targets = new ArrayList<>(List.of(LinkTarget.NodeLinks.any(), LinkTarget.One.any()));
        if (n >= 3) targets.add(new LinkTarget.Bridge());
        if (ctx.knowsLeaders()) options.primaries().forEach(p -> targets.add(new LinkTarget.Leader(p)));
        Function<Random, LinkTarget> target = r -> targets.get(r.nextInt(targets.size()));
        List<Function<Random, LinkFault>> kinds = List.of(
                r -> {
                    long latency = 20 + r.nextInt(381);
                    return new LinkFault.Slow(target.apply(r), latency, latency / 4);
                },
                r -> new LinkFault.Flaky(target.apply(r), 0.2f + 0.3f * r.nextFloat(), r.nextInt(2000), r.nextBoolean()),
                r -> new LinkFault.Throttle(target.apply(r), 16L << r.nextInt(5)),
                r -> new LinkFault.OneWay(target.apply(r)),
                r -> new LinkFault.Sliced(target.apply(r), 8 + r.nextInt(57), 4, 100 + r.nextInt(900)));
        var generator = OpGenerator.flipFlop(r -> FaultOp.of(LinkNemesis.START, kinds.get(r.nextInt(kinds.size())).apply(r)),
                r -> FaultOp.of(LinkNemesis.STOP));
        return new FaultPackage(LINK, new LinkNemesis(List.of()), generator, List.of(FaultOp.of(LinkNemesis.STOP)),
                colour(LINK), Set.of(LinkNemesis.START), Set.of(LinkNemesis.STOP));
    }

    static FaultPackage processPackage(String name, String faultF, String healF, String colour, NemesisContext ctx,
                                       FaultOptions options, ProcessNemesis process) {
        Function<Random, Target> target = processTargets(ctx, options);
        var generator = OpGenerator.flipFlop(r -> FaultOp.of(faultF, target.apply(r)),
                r -> FaultOp.of(healF, new Target.All()));
        return new FaultPackage(name, process, generator, List.of(FaultOp.of(healF, new Target.All())), colour,
                Set.of(faultF), Set.of(healF));
    }

    static FaultPackage restart(NemesisContext ctx, FaultOptions options, ProcessNemesis process) {
        Function<Random, Target> target = processTargets(ctx, options);
        OpGenerator generator = (r, n) -> FaultOp.of(ProcessNemesis.RESTART, target.apply(r));
        return new FaultPackage(RESTART, process, generator, List.of(FaultOp.of(ProcessNemesis.START, new Target.All())),
                colour(RESTART), Set.of(ProcessNemesis.RESTART), Set.of());
    }

    /**
     * Two moves of a workload partition's replicas (one replica swapped, or all of them) for every preferred-leader
     * election of the workload partitions, each followed by cancelling what is still moving.
     */
    static FaultPackage membership(NemesisContext ctx, FaultOptions options) {
        List<ClusterView.PartitionRef> parts = options.primaries();
        if (parts.isEmpty()) throw new IllegalArgumentException("membership faults need workload partitions to move (primaries)");
        if (ctx.sut().isEmpty()) throw new IllegalArgumentException("membership faults need a Kafka system under test");
        var generator = OpGenerator.flipFlop(r -> r.nextInt(3) < 2
                        ? FaultOp.of(MembershipNemesis.MOVE, new MembershipNemesis.Move(parts.get(r.nextInt(parts.size()))))
                        : FaultOp.of(MembershipNemesis.ELECT, new MembershipNemesis.Elect(parts)),
                r -> FaultOp.of(MembershipNemesis.CANCEL));
        return new FaultPackage(MEMBERSHIP, new MembershipNemesis(), generator, List.of(FaultOp.of(MembershipNemesis.CANCEL)),
                colour(MEMBERSHIP), Set.of(MembershipNemesis.MOVE, MembershipNemesis.REASSIGN, MembershipNemesis.ELECT),
                Set.of(MembershipNemesis.CANCEL));
    }

    static FaultPackage clock(NemesisContext ctx, FaultOptions options) {
        List<Target> targets = List.of(new Target.One(), new Target.Minority(), new Target.Majority(), new Target.All());
        Function<Random, Target> target = r -> targets.get(r.nextInt(targets.size()));
        List<Function<Random, FaultOp>> makers = List.of(
                r -> FaultOp.of(ClockNemesis.BUMP, new ClockChange.Bump(target.apply(r), bumpMillis(r, options.maxBumpMillis()))),
                r -> FaultOp.of(ClockNemesis.STROBE, new ClockChange.Strobe(target.apply(r), 0,
                        bumpMillis(r, options.maxBumpMillis()), options.strobePeriodMillis(), options.strobeMillis())),
                r -> FaultOp.of(ClockNemesis.RESET, new ClockChange.Reset(target.apply(r))));
        return new FaultPackage(CLOCK, new ClockNemesis(), OpGenerator.anyOf(makers),
                List.of(FaultOp.of(ClockNemesis.RESET, new ClockChange.Reset(new Target.All()))), colour(CLOCK),
                Set.of(ClockNemesis.BUMP, ClockNemesis.STROBE), Set.of(ClockNemesis.RESET));
    }

    /** ± 4 ms .. ± max, spread evenly over powers of two so that small and large skews are both common. */
    static long bumpMillis(Random r, long max) {
        double log2Max = Math.log(max) / Math.log(2);
        long magnitude = Math.round(Math.pow(2, 2 + r.nextDouble() * (log2Max - 2)));
        return r.nextBoolean() ? magnitude : -magnitude;
    }

    /**
     * Power loss of one node, a minority or every node at once (correlated), or only one node at a time
     * ({@code power-one}) or only every node at once ({@code power-all}); power back on for all. Every variant is
     * the package "power" in the history and the report.
     */
    static FaultPackage power(String variant) {
        List<Target> targets = switch (variant) {
            case PowerNemesis.ONE_AT_A_TIME -> List.of(new Target.One());
            case PowerNemesis.ALL_AT_ONCE -> List.of(new Target.All());
            default -> List.of(new Target.One(), new Target.Minority(), new Target.All());
        };
        var generator = OpGenerator.flipFlop(r -> FaultOp.of(PowerNemesis.OFF, targets.get(r.nextInt(targets.size()))),
                r -> FaultOp.of(PowerNemesis.ON, new Target.All()));
        return new FaultPackage(POWER, new PowerNemesis(), generator, List.of(FaultOp.of(PowerNemesis.ON, new Target.All())),
                colour(POWER), Set.of(PowerNemesis.OFF), Set.of(PowerNemesis.ON));
    }

    static FaultPackage disk(FaultOptions options) {
        Target one = new Target.One();
        List<Function<Random, FaultOp>> makers = List.of(
                r -> FaultOp.of(DiskNemesis.TRUNCATE, new DiskFault.Truncate(one, 1 + r.nextInt((int) Math.min(Integer.MAX_VALUE - 1, options.maxTruncateBytes())))),
                r -> FaultOp.of(DiskNemesis.BITFLIP, new DiskFault.BitFlip(one, 1 + r.nextInt(options.maxBitFlips()))),
                r -> FaultOp.of(DiskNemesis.DELETE_INDEX, new DiskFault.DeleteIndex(one)));
        return new FaultPackage(DISK, new DiskNemesis(), OpGenerator.anyOf(makers), List.of(FaultOp.of(DiskNemesis.RECOVER)),
                colour(DISK), Set.of(DiskNemesis.TRUNCATE, DiskNemesis.BITFLIP, DiskNemesis.TEAR, DiskNemesis.DELETE_INDEX), Set.of());
    }
}
