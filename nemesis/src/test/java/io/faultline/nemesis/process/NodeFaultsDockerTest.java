package io.faultline.nemesis.process;

import io.faultline.docker.DockerBacked;
import io.faultline.docker.Cluster;
import io.faultline.docker.Node;
import io.faultline.docker.probe.ProbeImage;
import io.faultline.docker.probe.ProbeNode;
import io.faultline.docker.sut.SegmentStorage;
import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.NemesisContext;
import io.faultline.nemesis.Probes;
import io.faultline.nemesis.clock.ClockChange;
import io.faultline.nemesis.clock.ClockHistory;
import io.faultline.nemesis.clock.ClockNemesis;
import io.faultline.nemesis.disk.DiskFault;
import io.faultline.nemesis.disk.DiskNemesis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Process, clock and disk faults on three real probe nodes. */
@DockerBacked
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NodeFaultsDockerTest {
    private static final String LOG_DIR = "/data/log";
    private static Cluster cluster;
    private static NemesisContext ctx;
    private static final ProcessNemesis PROCESS = new ProcessNemesis();
    private static final ClockNemesis CLOCK = new ClockNemesis();
    private static final DiskNemesis DISK = new DiskNemesis();

    @BeforeAll
    static void start() {
        cluster = Cluster.builder().withNodes(3).withNodeSpec(ProbeImage.spec()).start();
        for (Node n : cluster.nodes()) Probes.awaitUp(n, 30_000);
        SegmentStorage storage = () -> LOG_DIR;
        ctx = NemesisContext.builder(cluster).seed(5).stopGrace(Duration.ofSeconds(10)).segmentStorage(storage).build();
        CLOCK.setup(ctx);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) cluster.close();
    }

    private static FaultOp run(io.faultline.nemesis.Nemesis nemesis, String f, Object value) {
        FaultOp done = nemesis.invoke(ctx, FaultOp.of(f, value));
        assertFalse(done.isFailed(), done.toString());
        return done;
    }

    private static Target only(String name) {
        return new Target.Nodes(List.of(name));
    }

    @Test
    @Order(1)
    void killEndsTheProcessAndStartBringsItBack() {
        Node n1 = cluster.node("n1");
        assertEquals("killed [n1]", run(PROCESS, ProcessNemesis.KILL, only("n1")).result());
        assertFalse(n1.isRunning());
        assertEquals(137L, n1.exitCode(), "SIGKILL");
        assertTrue(Probes.ask(n1.ip(), "ping", 500).isEmpty());
        assertEquals("started [n1]", run(PROCESS, ProcessNemesis.START, new Target.All()).result(), "only the dead one");
        Probes.awaitUp(n1, 30_000);
    }

    @Test
    @Order(2)
    void pauseSilencesANodeAndResumeRevivesIt() {
        Node n2 = cluster.node("n2");
        run(PROCESS, ProcessNemesis.PAUSE, only("n2"));
        assertTrue(n2.isPaused());
        assertTrue(Probes.ask(n2.ip(), "ping", 1500).isEmpty(), "a frozen node never answers");
        assertEquals("resumed [n2]", run(PROCESS, ProcessNemesis.RESUME, new Target.All()).result());
        assertEquals("pong", Probes.ask(n2.ip(), "ping", 5000).orElse(null));
    }

    @Test
    @Order(3)
    void gracefulStopRunsTheShutdownHookAndRestartWorks() {
        Node n3 = cluster.node("n3");
        assertEquals("stopped [n3] (exits n3 143)", run(PROCESS, ProcessNemesis.STOP, only("n3")).result(),
                "the history says how it ended");
        assertEquals(143L, n3.exitCode(), "ended by SIGTERM, not SIGKILL");
        assertTrue(n3.consoleLog().contains(ProbeNode.SHUTDOWN_LINE), "clean shutdown in the node's log");
        run(PROCESS, ProcessNemesis.START, only("n3"));
        Probes.awaitUp(n3, 30_000);
        run(PROCESS, ProcessNemesis.RESTART, only("n3"));
        Probes.awaitUp(n3, 30_000);
        long hooks = n3.consoleLog().lines().filter(ProbeNode.SHUTDOWN_LINE::equals).count();
        assertEquals(2, hooks, "the restart stopped it gracefully too");
    }

    /** Polls the node's JVM clock until its skew is within 1.5 s of the expected offset; returns the skew. */
    private static long awaitSkew(Node node, long expectedMillis) {
        long skew = Long.MIN_VALUE;
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < deadline) {
            skew = Probes.skewMillis(node);
            if (Math.abs(skew - expectedMillis) < 1500) return skew;
            Probes.sleep(200);
        }
        throw new AssertionError(node.name() + " skew " + skew + " ms, expected ~" + expectedMillis);
    }

    @Test
    @Order(4)
    void bumpMovesTheJvmClockAndResetBringsItBack() {
        Node n1 = cluster.node("n1");
        run(CLOCK, ClockNemesis.BUMP, new ClockChange.Bump(only("n1"), 60_000));
        awaitSkew(n1, 60_000);
        run(CLOCK, ClockNemesis.BUMP, new ClockChange.Bump(only("n1"), -90_000));
        awaitSkew(n1, -30_000);
        assertTrue(Math.abs(Probes.skewMillis(cluster.node("n2"))) < 1500, "other nodes keep real time");
        run(CLOCK, ClockNemesis.RESET, new ClockChange.Reset(new Target.All()));
        awaitSkew(n1, 0);
        List<Long> offsets = ctx.clocks().series().get("n1").stream().map(ClockHistory.Sample::offsetMillis).toList();
        assertEquals(List.of(0L, 60_000L, -30_000L, 0L), offsets, "every change is in the clock series");
    }

    @Test
    @Order(5)
    void strobeOscillatesBetweenTwoOffsetsThenRestores() throws Exception {
        Node n2 = cluster.node("n2");
        var strobe = new ClockChange.Strobe(only("n2"), 0, 20_000, 4_000, 10_000);
        var running = CompletableFuture.supplyAsync(() -> run(CLOCK, ClockNemesis.STROBE, strobe));
        List<Long> skews = new ArrayList<>();
        while (!running.isDone()) {
            skews.add(Probes.skewMillis(n2));
            Probes.sleep(250);
        }
        FaultOp done = running.get(30, TimeUnit.SECONDS);
        long near0 = skews.stream().filter(s -> Math.abs(s) < 1500).count();
        long near20 = skews.stream().filter(s -> Math.abs(s - 20_000) < 1500).count();
        assertTrue(near0 >= 3 && near20 >= 3, "clock seen at both offsets: " + skews);
        int switches = 0;
        for (int i = 1; i < skews.size(); i++) if (Math.abs(skews.get(i) - skews.get(i - 1)) > 10_000) switches++;
        assertTrue(switches >= 3, "it went back and forth: " + skews + " " + done);
        awaitSkew(n2, 0);
        assertEquals(0, ClockNemesis.readOffset(n2));
    }

    /** Writes random segment and index files in a node's fake log directory; returns the newest segment's bytes. */
    private static byte[] writeSegments(Node node) {
        node.sh("mkdir -p " + LOG_DIR + "/t-0 && cd " + LOG_DIR + "/t-0"
                + " && head -c 1000 /dev/urandom > 00000000000000000000.log"
                + " && head -c 800 /dev/urandom > 00000000000000000042.log"
                + " && head -c 80 /dev/urandom > 00000000000000000042.index"
                + " && head -c 120 /dev/urandom > 00000000000000000042.timeindex").orThrow("segments");
        return node.readFile(LOG_DIR + "/t-0/00000000000000000042.log");
    }

    @Test
    @Order(6)
    void truncateAndBitflipChangeTheNewestSegmentWhileTheNodeIsDown() {
        Node n3 = cluster.node("n3");
        String path = LOG_DIR + "/t-0/00000000000000000042.log";
        byte[] before = writeSegments(n3);
        FaultOp cut = run(DISK, DiskNemesis.TRUNCATE, new DiskFault.Truncate(only("n3"), 100));
        assertTrue(cut.result().contains("truncated " + path + " by 100 bytes"), cut.toString());
        assertTrue(n3.isRunning(), "started again after the fault");
        assertTrue(n3.consoleLog().lines().filter(l -> l.startsWith("probe: listening")).count() >= 2);
        byte[] after = n3.readFile(path);
        assertArrayEquals(Arrays.copyOf(before, 700), after, "the tail is gone, the rest untouched");

        run(DISK, DiskNemesis.BITFLIP, new DiskFault.BitFlip(only("n3"), 3));
        byte[] flipped = n3.readFile(path);
        assertEquals(after.length, flipped.length);
        int bits = 0;
        for (int i = 0; i < flipped.length; i++) bits += Integer.bitCount((flipped[i] ^ after[i]) & 0xff);
        assertEquals(3, bits, "exactly three bits differ");
        assertEquals(1000, n3.readFile(LOG_DIR + "/t-0/00000000000000000000.log").length, "older segment untouched");
    }

    @Test
    @Order(7)
    void deleteIndexRemovesTheIndexesAndTheBudgetKeepsCorruptionToAMinority() {
        Node n3 = cluster.node("n3");
        FaultOp done = run(DISK, DiskNemesis.DELETE_INDEX, new DiskFault.DeleteIndex(only("n3")));
        assertTrue(done.result().contains("deleted"), done.toString());
        Probes.awaitUp(n3, 30_000);
        String left = n3.exec("ls", LOG_DIR + "/t-0").stdout();
        assertFalse(left.contains(".index") || left.contains(".timeindex"), left);
        assertTrue(left.contains("00000000000000000042.log"), left);

        Node n1 = cluster.node("n1");
        byte[] n1Before = writeSegments(n1);
        FaultOp refused = run(DISK, DiskNemesis.TRUNCATE, new DiskFault.Truncate(only("n1"), 10));
        assertTrue(refused.result().startsWith("skipped"), "3 nodes: only one may be corrupted: " + refused);
        assertArrayEquals(n1Before, n1.readFile(LOG_DIR + "/t-0/00000000000000000042.log"));
        assertEquals(java.util.Set.of("n3"), DISK.corrupted());
        for (int i = 0; i < 2; i++) {
            FaultOp again = run(DISK, DiskNemesis.BITFLIP, new DiskFault.BitFlip(new Target.One(), 1));
            assertTrue(again.result().startsWith("n3: flipped"), "a random target only picks the corrupted minority: " + again);
        }
        Probes.awaitUp(n3, 30_000);
    }

    @Test
    @Order(8)
    void aNodeThatIsAlreadyDownIsCorruptedAndLeftDown() {
        Node n3 = cluster.node("n3");
        run(PROCESS, ProcessNemesis.KILL, only("n3"));
        int size = n3.readFile(LOG_DIR + "/t-0/00000000000000000042.log").length;
        FaultOp cut = run(DISK, DiskNemesis.TRUNCATE, new DiskFault.Truncate(only("n3"), 50));
        assertTrue(cut.result().contains("by 50 bytes"), cut.toString());
        assertFalse(n3.isRunning(), "the disk fault does not start a node someone else stopped");
        assertEquals(size - 50, n3.readFile(LOG_DIR + "/t-0/00000000000000000042.log").length);
        assertEquals("started [n3]", run(DISK, DiskNemesis.RECOVER, null).result());
        Probes.awaitUp(n3, 30_000);
    }
}
