package io.faultline.nemesis.disk;

import io.faultline.docker.Node;
import io.faultline.docker.sut.SegmentStorage;
import io.faultline.nemesis.ClusterView;
import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.Nemesis;
import io.faultline.nemesis.NemesisContext;
import io.faultline.nemesis.process.Target;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * Storage faults on segment files, applied while the node is down: the node is crashed (SIGKILL, so nothing more
 * is flushed), its files are changed through the engine's archive API, and it is started again (only if it ran
 * before). At most a minority of the nodes is ever corrupted in one run: once that many distinct nodes have been
 * hit, only those can be hit again.
 *
 * <p>Ops: {@code truncate-segment}, {@code bitflip-segment}, {@code tear-segment}, {@code delete-index} (values: {@link DiskFault}) and
 * {@code recover-disk} (starts any node a failed disk op left down).
 */
public final class DiskNemesis implements Nemesis {
    public static final String TRUNCATE = "truncate-segment";
    public static final String BITFLIP = "bitflip-segment";
    /** Zeroes a segment's tail in place (DiskFault.Tear); scripted scenarios use it, random schedules do not. */
    public static final String TEAR = "tear-segment";
    public static final String DELETE_INDEX = "delete-index";
    public static final String RECOVER = "recover-disk";

    private final Set<String> corrupted = new LinkedHashSet<>();

    @Override
    public Set<String> fs() {
        return Set.of(TRUNCATE, BITFLIP, TEAR, DELETE_INDEX, RECOVER);
    }

    /** The nodes corrupted so far in this run. */
    public synchronized Set<String> corrupted() {
        return Set.copyOf(corrupted);
    }

    /** How many distinct nodes one run may corrupt: a strict minority. */
    public static int budget(int clusterSize) {
        return Math.max(0, (clusterSize - 1) / 2);
    }

    @Override
    public synchronized FaultOp invoke(NemesisContext ctx, FaultOp op) {
        if (RECOVER.equals(op.f())) {
            List<String> started = new ArrayList<>();
            for (String name : corrupted) {
                Node n = ctx.node(name);
                if (!n.isRunning()) {
                    n.start();
                    started.add(name);
                }
            }
            return op.completed("started " + started);
        }
        DiskFault fault = (DiskFault) op.value();
        SegmentStorage storage = ctx.segmentStorage()
                .orElseThrow(() -> new IllegalStateException("the system under test has no segment storage"));
        // explicit nodes stay explicit (and are skipped beyond the budget); random choices are steered
        ClusterView view = fault.target() instanceof Target.Nodes ? ctx : candidates(ctx);
        List<String> permitted = permitted(fault.target().resolve(view, ctx.random()), ctx.nodes().size());
        if (permitted.isEmpty()) return op.completed("skipped: corruption budget of a minority is spent " + corrupted);
        List<String> done = new ArrayList<>();
        for (String name : permitted) done.add(name + ": " + corrupt(ctx, ctx.node(name), storage.logDirectory(), fault));
        return op.completed(String.join("; ", done));
    }

    /**
     * The nodes a random target chooses among: all of them while the budget lasts, afterwards only those already
     * corrupted, so that later disk faults keep hitting the same minority instead of being skipped.
     */
    private ClusterView candidates(NemesisContext ctx) {
        if (corrupted.size() < budget(ctx.nodes().size())) return ctx;
        List<String> again = ctx.nodeNames().stream().filter(corrupted::contains).toList();
        return new ClusterView() {
            public List<String> nodeNames() {
                return again;
            }

            public java.util.Optional<String> leaderOf(PartitionRef partition) {
                return ctx.leaderOf(partition);
            }

            public java.util.Optional<String> activeController() {
                return ctx.activeController();
            }
        };
    }

    /** The targets this run may still corrupt, in order; reserves their place in the budget. */
    private List<String> permitted(List<String> targets, int clusterSize) {
        List<String> out = new ArrayList<>();
        for (String t : targets) {
            if (corrupted.contains(t) || corrupted.size() < budget(clusterSize)) {
                corrupted.add(t);
                out.add(t);
            }
        }
        return out;
    }

    private static String corrupt(NemesisContext ctx, Node node, String logDir, DiskFault fault) {
        node.resume(); // a frozen node cannot be exec'd into; it is about to crash anyway
        boolean wasRunning = node.isRunning();
        List<SegmentFiles.Entry> entries = SegmentFiles.list(node, logDir);
        Random random = ctx.random();
        String what;
        if (fault instanceof DiskFault.DeleteIndex) {
            var dirs = new ArrayList<>(new TreeSet<>(entries.stream().map(SegmentFiles.Entry::partitionDir)
                    .filter(SegmentFiles::isUserPartition).filter(d -> !SegmentFiles.indexFiles(entries, d).isEmpty()).toList()));
            if (dirs.isEmpty()) return "no index files";
            String dir = dirs.get(random.nextInt(dirs.size()));
            List<String> paths = SegmentFiles.indexFiles(entries, dir).stream().map(e -> logDir + "/" + e.relativePath()).toList();
            if (wasRunning) {
                // Nothing can unlink a file of a stopped container, so remove them and crash at once; the broker
                // never recreates an index it already has open, so the files are gone when it starts again.
                node.exec(withArgs("rm -f", paths)).orThrow("rm index files");
                node.kill();
                what = "deleted " + paths;
            } else {
                for (String p : paths) node.writeFile(p, new byte[0]);
                what = "emptied (node was down) " + paths;
            }
        } else {
            var segment = fault instanceof DiskFault.Tear t && t.partition() != null
                    ? SegmentFiles.newestSegmentOf(entries, t.partition())
                    : SegmentFiles.newestSegment(entries, random);
            if (segment.isEmpty()) return "no segment files";
            String path = logDir + "/" + segment.get().relativePath();
            if (wasRunning) node.kill();
            byte[] data = node.readFile(path);
            if (fault instanceof DiskFault.Truncate t) {
                int cut = (int) Math.min(t.bytes(), data.length);
                node.writeFile(path, Arrays.copyOf(data, data.length - cut));
                what = "truncated " + path + " by " + cut + " bytes (" + data.length + " -> " + (data.length - cut) + ")";
            } else if (fault instanceof DiskFault.Tear t) {
                int zeroed = (int) Math.min(t.bytes(), data.length);
                Arrays.fill(data, data.length - zeroed, data.length, (byte) 0);
                node.writeFile(path, data);
                what = "zeroed the last " + zeroed + " bytes of " + path + " (length " + data.length + " kept)";
            } else {
                DiskFault.BitFlip b = (DiskFault.BitFlip) fault;
                List<Long> bits = flipBits(data, b.bits(), random);
                node.writeFile(path, data);
                what = "flipped bits " + bits + " of " + path + " (" + data.length + " bytes)";
            }
        }
        if (wasRunning) node.start();
        return what;
    }

    /** Flips distinct random bits in place; returns their positions (bit index from the file start), sorted. */
    static List<Long> flipBits(byte[] data, int count, Random random) {
        long total = data.length * 8L;
        Set<Long> chosen = new TreeSet<>();
        while (chosen.size() < Math.min(count, total)) chosen.add((long) (random.nextDouble() * total));
        for (long bit : chosen) data[(int) (bit / 8)] ^= (byte) (1 << (bit % 8));
        return List.copyOf(chosen);
    }

    private static String[] withArgs(String command, List<String> args) {
        List<String> all = new ArrayList<>(Arrays.asList(command.split(" ")));
        all.addAll(args);
        return all.toArray(String[]::new);
    }
}
