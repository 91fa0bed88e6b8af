package io.faultline.docker;

import io.faultline.docker.probe.ProbeClient;
import io.faultline.docker.probe.ProbeImage;
import io.faultline.docker.probe.ProbeNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node's console streamed to the host keeps every run of the node program, once each, across kills and restarts. */
@DockerBacked
class ConsoleStreamDockerTest {
    private static List<String> streamed(Node n, Path dir) throws java.io.IOException {
        n.consoleFileSize(); // flushes what has arrived
        return Files.readAllLines(dir.resolve(n.name()).resolve(Cluster.CONSOLE_FILE));
    }

    @Test
    void theStreamedConsoleHoldsEachStartOnceAcrossAKillAndAStop(@TempDir Path dir) throws Exception {
        try (Cluster cluster = Cluster.builder().withNodes(1).withNodeSpec(ProbeImage.spec()).start()) {
            Node n1 = cluster.node("n1");
            ProbeClient.awaitUp(n1.ip(), 30_000);
            cluster.streamConsoleLogsTo(dir);
            n1.kill();
            n1.start();
            ProbeClient.awaitUp(n1.ip(), 30_000);
            // while the node runs, the file follows it: the stream was re-attached after the restart
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> streamed(n1, dir).stream()
                    .filter(l -> l.startsWith("probe: listening")).count() == 2);
            n1.stop(Duration.ofSeconds(10)); // the probe's shutdown hook prints its line on SIGTERM
            n1.start();
            ProbeClient.awaitUp(n1.ip(), 30_000);
            n1.stop(Duration.ofSeconds(10));
            cluster.collect(dir, List.of());
            List<String> lines = streamed(n1, dir);
            assertEquals(3, lines.stream().filter(l -> l.startsWith("probe: listening")).count(), "three starts: " + lines);
            assertEquals(2, lines.stream().filter(ProbeNode.SHUTDOWN_LINE::equals).count(), "two graceful stops: " + lines);
            assertTrue(lines.stream().noneMatch(l -> l.matches("^\\d{4}-\\d\\d-\\d\\dT.*")), "no engine timestamps: " + lines);
            assertEquals(n1.consoleLog().lines().toList(), lines, "the same as the engine's whole console");
        }
    }
}
