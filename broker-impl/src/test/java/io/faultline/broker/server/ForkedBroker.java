package io.faultline.broker.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A broker in a JVM of its own (BrokerMain), for tests that kill, pause or stop it as the operating system would.
 * Its output goes to a log file that a failed wait quotes, so a slow or failed start says why.
 */
final class ForkedBroker {
    /**
     * The wait for a forked broker to listen. A bound, not a timing: a JVM start takes a few seconds on a quiet
     * machine and several times that at a load of 20-30 on two cores, where these tests must pass too.
     */
    static final Duration LISTEN_BOUND = Duration.ofSeconds(120);

    /**
     * Flags for a short-lived test broker on a small machine: no C2 compiler threads and no parallel GC threads
     * competing with the test JVM and the other brokers for two cores.
     */
    private static final List<String> JVM_FLAGS = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    private ForkedBroker() {
    }

    /** Writes {@code config} to {@code file} and returns the file. */
    static Path writeConfig(Properties config, Path file) throws IOException {
        try (Writer w = Files.newBufferedWriter(file)) {
            config.store(w, null);
        }
        return file;
    }

    /** Starts BrokerMain with the properties file {@code config}, appending its output to {@code log}. */
    static Process start(Path config, Path log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new java.util.ArrayList<>(List.of(java));
        cmd.addAll(JVM_FLAGS);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.faultline.broker.BrokerMain", config.toString()));
        return new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    /** Waits until the broker accepts connections on {@code port}; fails with its log's tail if it dies or never does. */
    static void awaitListening(int port, Process broker, Path log) {
        try {
            Awaitility.await().atMost(LISTEN_BOUND).pollInterval(Duration.ofMillis(100)).until(() -> {
                if (!broker.isAlive()) throw new AssertionError("broker process died (exit " + broker.exitValue() + ")\n" + tail(log));
                return accepts(port);
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("broker did not start listening on " + port + " within " + LISTEN_BOUND.toSeconds()
                    + " s\n" + tail(log), e);
        }
    }

    static boolean accepts(int port) {
        try (Socket s = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }

    /** The last 40 lines of a broker's log, for a failure message. */
    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return "--- last lines of " + log + " ---\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log at " + log + ": " + e.getMessage() + ")";
        } catch (UncheckedIOException e) {
            return "(log " + log + " unreadable: " + e.getMessage() + ")";
        }
    }
}
