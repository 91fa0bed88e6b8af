package io.faultline.nemesis.clock;

import io.faultline.docker.Concurrently;
import io.faultline.docker.Node;
import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.Nemesis;
import io.faultline.nemesis.NemesisContext;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Clock faults through libfaketime: each node's program reads its offset from {@code Cluster.CLOCK_FILE}, which
 * is written from outside (works while the node is stopped too). Only the node program is skewed; tools run
 * with exec keep the real time. Every change is sampled into the context's {@link ClockHistory}.
 *
 * <p>Ops: {@code bump-clock}, {@code strobe-clock}, {@code reset-clock}; values are {@link ClockChange}s.
 */
public final class ClockNemesis implements Nemesis {
    public static final String BUMP = "bump-clock";
    public static final String STROBE = "strobe-clock";
    public static final String RESET = "reset-clock";

    @Override
    public Set<String> fs() {
        return Set.of(BUMP, STROBE, RESET);
    }

    @Override
    public void setup(NemesisContext ctx) {
        for (Node n : ctx.nodes()) set(ctx, n, 0);
    }

    @Override
    public FaultOp invoke(NemesisContext ctx, FaultOp op) {
        ClockChange change = (ClockChange) op.value();
        List<Node> nodes = change.target().resolve(ctx, ctx.random()).stream().map(ctx::node).toList();
        Map<String, Long> result = new TreeMap<>();
        if (change instanceof ClockChange.Bump b) {
            Concurrently.forEach(nodes, "clock", n -> {
                long offset = ctx.clocks().current(n.name()) + b.deltaMillis();
                set(ctx, n, offset);
                synchronized (result) {
                    result.put(n.name(), offset);
                }
            });
        } else if (change instanceof ClockChange.Strobe s) {
            strobe(ctx, nodes, s, result);
        } else {
            Concurrently.forEach(nodes, "clock", n -> set(ctx, n, 0));
            nodes.forEach(n -> result.put(n.name(), 0L));
        }
        return op.completed("offsets ms " + result);
    }

    /** Blocks for the strobe's duration: the scheduler treats a strobe as one long op. */
    private static void strobe(NemesisContext ctx, List<Node> nodes, ClockChange.Strobe s, Map<String, Long> result) {
        Map<String, Long> before = new TreeMap<>();
        nodes.forEach(n -> before.put(n.name(), ctx.clocks().current(n.name())));
        long half = s.periodMillis() / 2;
        long end = System.nanoTime() + s.durationMillis() * 1_000_000;
        boolean a = true;
        int flips = 0;
        try {
            while (System.nanoTime() < end) {
                long offset = a ? s.offsetAMillis() : s.offsetBMillis();
                Concurrently.forEach(nodes, "clock", n -> set(ctx, n, offset));
                flips++;
                a = !a;
                sleep(Math.min(half, Math.max(0, (end - System.nanoTime()) / 1_000_000)));
            }
        } finally {
            Concurrently.forEach(nodes, "clock", n -> set(ctx, n, before.get(n.name())));
        }
        result.putAll(before);
        result.put("flips", (long) flips);
    }

    /** Writes the offset file and samples it. */
    public static void set(NemesisContext ctx, Node node, long offsetMillis) {
        node.setClockOffset(format(offsetMillis));
        ctx.clocks().record(node.name(), offsetMillis);
    }

    /** libfaketime's relative form, in seconds with a fraction: "+60.000", "-0.250", "+0.000". */
    static String format(long offsetMillis) {
        return String.format(Locale.ROOT, "%s%d.%03d", offsetMillis < 0 ? "-" : "+",
                Math.abs(offsetMillis) / 1000, Math.abs(offsetMillis) % 1000);
    }

    /** The offset written in a node's clock file, in ms; for checks after a run. */
    public static long readOffset(Node node) {
        String text = node.readString(io.faultline.docker.Cluster.CLOCK_FILE).strip();
        if (text.isEmpty()) return 0;
        return Math.round(Double.parseDouble(text.replaceAll("[^0-9+.\\-]", "")) * 1000);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
