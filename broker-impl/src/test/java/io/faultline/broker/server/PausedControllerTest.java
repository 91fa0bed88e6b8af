package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Node;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25 (2b): three forked broker processes with the real Ratis quorum. The active controller is stopped with
 * SIGSTOP until its successor fences it, then continued with SIGCONT: it must be registered and unfenced again
 * (listed by DescribeCluster) and a topic with all three as replicas must be creatable, rather than staying fenced
 * with every request to the controller answered NOT_CONTROLLER.
 */
class PausedControllerTest {
    @TempDir
    Path dir;
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void killAll() throws InterruptedException {
        for (Process p : processes) {
            signal(p, "CONT");
            p.destroyForcibly().waitFor();
        }
    }

    /** Node logs go to the temporary directory, or to faultline.test.logs when set (to read them afterwards). */
    private Path logDir() throws IOException {
        String keep = System.getProperty("faultline.test.logs");
        return keep == null ? dir : Files.createDirectories(Path.of(keep));
    }


    private static void signal(Process p, String sig) {
        try {
            new ProcessBuilder("kill", "-" + sig, Long.toString(p.pid())).inheritIO().start().waitFor();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String tail(Path file, long from) throws IOException {
        byte[] all = Files.readAllBytes(file);
        return new String(all, (int) Math.min(from, all.length), (int) Math.max(0, all.length - from),
                java.nio.charset.StandardCharsets.UTF_8);
    }

    private static Set<Integer> unfenced(Admin admin) throws Exception {
        DescribeClusterResult r = admin.describeCluster();
        return r.nodes().get(10, TimeUnit.SECONDS).stream().map(Node::id).collect(Collectors.toSet());
    }

    @Test
    void aPausedActiveControllerIsUnfencedAgainAfterItContinues() throws Exception {
        LocalQuorum quorum = LocalQuorum.allocate(3);
        for (int i = 0; i < 3; i++) {
            Properties p = quorum.configure(
                    TestBroker.config(Files.createDirectories(dir.resolve("n" + (i + 1))), quorum.clientPort(i), Map.of()), i);
            // A session of 5 s: still half the 10 s read timeout a heartbeat used to wait behind the stopped
            // controller (the defect this test guards), and a dozen heartbeats of slack on a loaded machine, where
            // 2 s fenced the running brokers in the handover (one run in a full suite at load 11-25).
            p.setProperty("broker.heartbeat.interval.ms", "400");
            p.setProperty("broker.session.timeout.ms", "5000");
            Path file = ForkedBroker.writeConfig(p, dir.resolve("n" + (i + 1) + ".properties"));
            processes.add(ForkedBroker.start(file, logDir().resolve("n" + (i + 1) + ".log")));
        }
        for (int i = 0; i < 3; i++) {
            ForkedBroker.awaitListening(quorum.clientPort(i), processes.get(i), logDir().resolve("n" + (i + 1) + ".log"));
        }
        String bootstrap = quorum.bootstrap();
        try (Admin admin = TestBroker.admin(bootstrap)) {
            Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(60)).until(() -> unfenced(admin).equals(Set.of(1, 2, 3)));
            admin.createTopics(List.of(new NewTopic("before", 3, (short) 3))).all().get(30, TimeUnit.SECONDS);
            int controller = admin.describeCluster().controller().get(10, TimeUnit.SECONDS).id();
            Process paused = processes.get(controller - 1);
            long[] logOffsets = new long[3];
            for (int i = 0; i < 3; i++) logOffsets[i] = Files.size(logDir().resolve("n" + (i + 1) + ".log"));
            signal(paused, "STOP");
            // Its successor takes over and fences it once its session lapses.
            Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(60)).until(() -> {
                int now = admin.describeCluster().controller().get(10, TimeUnit.SECONDS).id();
                return now != controller && !unfenced(admin).contains(controller);
            });
            Thread.sleep(3000); // stays stopped a while longer, as a pause fault does
            signal(paused, "CONT");
            Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> unfenced(admin).equals(Set.of(1, 2, 3)));
            admin.createTopics(List.of(new NewTopic("after", 3, (short) 3))).all().get(30, TimeUnit.SECONDS);
            assertEquals(Set.of(1, 2, 3), unfenced(admin));
            // The brokers that kept running heartbeated all along: the new controller had no reason to fence them.
            // Their heartbeats used to wait behind a request to the stopped controller for the whole read timeout.
            for (int i = 0; i < 3; i++) {
                String since = tail(logDir().resolve("n" + (i + 1) + ".log"), logOffsets[i]);
                // committed fences only: the paused controller, resumed, decides to fence everyone it did not hear
                // from before Raft tells it another leads; those records never commit ("not committed")
                for (String line : since.lines().filter(l -> l.contains("fenced brokers")).toList()) {
                    String ids = line.substring(line.lastIndexOf('[') + 1, line.lastIndexOf(']'));
                    for (String id : ids.split(",\\s*")) {
                        assertEquals(controller, Integer.parseInt(id.trim()), "a running broker was fenced: " + line);
                    }
                }
            }
        }
    }
}
