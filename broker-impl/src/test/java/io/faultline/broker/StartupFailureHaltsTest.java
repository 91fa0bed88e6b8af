package io.faultline.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.FatalErrorHandler;
import java.io.File;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30: a node whose start-up failed after it registered stayed alive, registered and in every ISR without
 * ever binding its client port. A real BrokerMain process whose client port is taken (bound only once the node is
 * registered and caught up) must halt with the fatal status instead, so its session expires and it is fenced.
 */
class StartupFailureHaltsTest {
    @TempDir
    Path dir;

    @Test
    void aStartUpFailureAfterRegistrationHaltsTheProcess() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Path props = dir.resolve("server.properties");
            Files.writeString(props, String.join("\n",
                    "node.id=1",
                    "listeners=PLAINTEXT://127.0.0.1:" + taken.getLocalPort(),
                    "log.dirs=" + dir.resolve("data"),
                    "offsets.topic.num.partitions=1",
                    "broker.heartbeat.interval.ms=500",
                    "broker.session.timeout.ms=3000", ""));
            Path out = dir.resolve("broker.out");
            Process broker = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-cp", System.getProperty("java.class.path"), BrokerMain.class.getName(),
                    props.toString()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            try {
                Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> !broker.isAlive());
                String log = Files.readString(out);
                assertTrue(log.contains("registered with epoch"), "it failed after registering:\n" + tail(log));
                assertTrue(log.contains("FATAL"), tail(log));
                assertEquals(FatalErrorHandler.EXIT_STATUS, broker.exitValue(), tail(log));
            } finally {
                broker.destroyForcibly();
            }
        }
    }

    private static String tail(String log) {
        List<String> lines = log.lines().toList();
        return String.join(File.separator.equals("/") ? "\n" : "\r\n",
                lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }
}
