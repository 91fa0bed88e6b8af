package io.faultline.docker;

import io.faultline.docker.probe.ProbeClient;
import io.faultline.docker.probe.ProbeImage;
import io.faultline.docker.probe.ProbeNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The container runtime against a real engine, with five probe nodes. */
@DockerBacked
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterTest {
    private static Cluster cluster;

    @BeforeAll
    static void startCluster() {
        long t0 = System.nanoTime();
        cluster = Cluster.builder().withNodes(5).withNodeSpec(ProbeImage.spec()).start();
        for (Node n : cluster.nodes()) ProbeClient.awaitUp(n.ip(), 30_000);
        System.out.printf("5 probe nodes up in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    }

    @AfterAll
    static void closeCluster() {
        if (cluster != null) cluster.close();
    }

    /** "ok"/"fail" for a TCP connect from one node to another by name, with the real clock. */
    private static boolean reaches(Node from, String toName) {
        return from.exec("timeout", "3", "bash", "-c", "exec 3<>/dev/tcp/" + toName + "/" + ProbeNode.PORT).succeeded();
    }

    @Test
    @Order(1)
    void everyNodeReachesEveryOtherByName() {
        List<String> failures = new ArrayList<>();
        for (Node from : cluster.nodes()) {
            for (Node to : cluster.nodes()) {
                if (from != to && !reaches(from, to.name())) failures.add(from.name() + "->" + to.name());
            }
        }
        assertEquals(List.of(), failures);
        assertEquals(5, cluster.nodes().stream().map(Node::ip).distinct().count());
    }

    @Test
    @Order(2)
    void iptablesDropBlocksTwoNodesButNotAThird() {
        Node n1 = cluster.node("n1"), n2 = cluster.node("n2"), n3 = cluster.node("n3");
        n1.exec("iptables", "-A", "INPUT", "-s", n2.ip(), "-j", "DROP").orThrow("iptables");
        try {
            assertFalse(reaches(n1, "n2"), "n1 must not reach n2");
            assertFalse(reaches(n2, "n1"), "n2 must not reach n1");
            assertTrue(reaches(n3, "n1"), "n3 still reaches n1");
            assertTrue(reaches(n3, "n2"), "n3 still reaches n2");
        } finally {
            n1.exec("iptables", "-D", "INPUT", "-s", n2.ip(), "-j", "DROP").orThrow("heal");
        }
        assertTrue(reaches(n1, "n2"), "healed: n1 reaches n2");
        assertTrue(reaches(n2, "n1"), "healed: n2 reaches n1");
    }

    @Test
    @Order(3)
    void killAndRestartKeepsFilesAndAddress() {
        Node n4 = cluster.node("n4");
        String ipBefore = n4.ip();
        n4.writeString("/data/keep.txt", "written before the kill");
        n4.kill();
        assertFalse(n4.isRunning());
        assertEquals(137L, n4.exitCode(), "SIGKILL exit status");
        assertTrue(ProbeClient.ask(ipBefore, "ping", 500).isEmpty(), "a killed node does not answer");
        n4.start();
        ProbeClient.awaitUp(ipBefore, 30_000);
        assertEquals("written before the kill", n4.readString("/data/keep.txt"));
        String inspected = DockerEngine.client().inspectContainerCmd(n4.containerId()).exec()
                .getNetworkSettings().getNetworks().get(cluster.networkName()).getIpAddress();
        assertEquals(ipBefore, inspected, "the node keeps its IP after a restart");
        assertTrue(reaches(cluster.node("n1"), "n4"));
    }

    @Test
    @Order(4)
    void pauseStopsAnswersAndResumeBringsThemBack() {
        Node n5 = cluster.node("n5");
        assertEquals("pong", ProbeClient.ask(n5.ip(), "ping", 2000).orElse(null));
        n5.pause();
        try {
            assertTrue(n5.isPaused());
            assertTrue(ProbeClient.ask(n5.ip(), "ping", 1500).isEmpty(), "a paused node never answers");
        } finally {
            n5.resume();
        }
        assertEquals("pong", ProbeClient.ask(n5.ip(), "ping", 5000).orElse(null));
    }

    @Test
    @Order(5)
    void fakeTimeMovesTheJvmClockButNotItsSleeps() {
        Node n3 = cluster.node("n3");
        n3.setClockOffset("+30s");
        try {
            // The node's reading is bracketed by two host readings, so the bounds hold however slow the
            // exchange is; the 1.5 s slack is libfaketime's 1 s cache of the offset file plus clock granularity.
            long before = 0, nodeTime = 0, after = 0;
            long deadline = System.currentTimeMillis() + 10_000;
            while (System.currentTimeMillis() < deadline) {
                before = System.currentTimeMillis();
                nodeTime = Long.parseLong(ProbeClient.ask(n3.ip(), "time", 2000).orElseThrow());
                after = System.currentTimeMillis();
                if (nodeTime - after > 25_000) break;
                Node.sleep(200);
            }
            assertTrue(nodeTime >= before + 30_000 - 1_500 && nodeTime <= after + 30_000 + 1_500,
                    "node clock should read 30 s ahead: host " + before + ".." + after + ", node " + nodeTime);
            // The failure this guards against is a wait that returns at once (libfaketime without its monotonic
            // fix): only lower bounds, which a slow machine cannot break.
            long t0 = System.nanoTime();
            long slept = Long.parseLong(ProbeClient.ask(n3.ip(), "sleep 1000", 10_000).orElseThrow());
            long wall = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(slept >= 990, "a 1 s sleep measured by nanoTime took " + slept + " ms");
            assertTrue(wall >= 990, "a 1 s sleep took " + wall + " ms seen from the host");
        } finally {
            n3.setClockOffset("+0");
        }
        // exec'd tools see the real clock: the variables are on the node program only
        long beforeExec = System.currentTimeMillis() / 1000;
        long execDate = Long.parseLong(n3.exec("date", "+%s").stdout().strip());
        long afterExec = System.currentTimeMillis() / 1000;
        assertTrue(execDate >= beforeExec - 1 && execDate <= afterExec + 1, "exec'd date is not skewed: " + execDate
                + " vs host " + beforeExec + ".." + afterExec);
    }

    @Test
    @Order(6)
    void sigtermReachesTheJvmShutdownHook() {
        Node n2 = cluster.node("n2");
        n2.stop(Duration.ofSeconds(10));
        assertFalse(n2.isRunning());
        assertEquals(143L, n2.exitCode(), "exit status of a JVM ended by SIGTERM");
        assertTrue(n2.consoleLog().contains(ProbeNode.SHUTDOWN_LINE), "the hook's line is in the node's log");
        assertFalse(n2.readString(ProbeNode.SHUTDOWN_MARKER).isBlank());
        n2.start();
        ProbeClient.awaitUp(n2.ip(), 30_000);
    }

    @Test
    @Order(7)
    void collectCopiesLogsAndDataToTheHost(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        cluster.node("n1").writeString("/data/state.txt", "n1 state");
        // a preallocated index, as a broker leaves one: 64 MiB of hole with one byte written (copied as a hole)
        var made = cluster.node("n1").sh("truncate -s 64M /data/pre.index && printf x | dd of=/data/pre.index bs=1 seek=4096 conv=notrunc 2>/dev/null");
        assertEquals(0, made.exitCode(), made.stderr());
        cluster.collect(dir, List.of("/data"));
        assertEquals("n1 state", java.nio.file.Files.readString(dir.resolve("n1/data/state.txt")));
        var index = dir.resolve("n1/data/pre.index");
        assertEquals(64L << 20, java.nio.file.Files.size(index));
        try (var f = new java.io.RandomAccessFile(index.toFile(), "r")) {
            f.seek(4096);
            assertEquals('x', f.read());
            f.seek(4095);
            assertEquals(0, f.read());
        }
        assertTrue(java.nio.file.Files.readString(dir.resolve("n1/console.log")).contains("probe: listening"));
        // /data was written by the node alone: read from the engine's layer on this machine; a file of the image
        // (its layers hold it) goes through the engine, and both arrive the same way
        var layer = LocalLayer.of(DockerEngine.client(), cluster.node("n1").containerId());
        assertTrue(layer.flatMap(l -> l.whollyWritten("/data")).isPresent(), "the local engine's layer holds /data");
        assertTrue(layer.flatMap(l -> l.whollyWritten("/etc")).isEmpty(), "/etc comes from the image");
        cluster.node("n1").copyOut("/etc/os-release", dir.resolve("image"));
        assertEquals(cluster.node("n1").readString("/etc/os-release"), java.nio.file.Files.readString(dir.resolve("image/os-release")));
    }

    @Test
    @Order(8)
    void closeRemovesEveryLabelledContainerAndNetwork() {
        String runId = cluster.runId();
        assertFalse(ResourceJanitor.managedResourceNames(DockerEngine.client(), runId).isEmpty());
        cluster.close();
        assertEquals(List.of(), ResourceJanitor.managedResourceNames(DockerEngine.client(), runId));
    }
}
