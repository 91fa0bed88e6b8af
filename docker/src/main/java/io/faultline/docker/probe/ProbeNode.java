package io.faultline.docker.probe;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A stand-in node program for testing the runtime and the faults without a real system under test.
 * It answers a line protocol on port 7000: {@code ping} → {@code pong}; {@code time} → its wall clock
 * (currentTimeMillis, which libfaketime moves); {@code sleep N} → how many ms a sleep of N ms took by
 * nanoTime (which libfaketime must not move). A SIGTERM runs a shutdown hook that says so in the log
 * and in /data/shutdown-hook-ran.
 */
public final class ProbeNode {
    public static final int PORT = 7000;
    public static final String SHUTDOWN_MARKER = "/data/shutdown-hook-ran";
    public static final String SHUTDOWN_LINE = "probe: shutdown hook ran";

    private ProbeNode() {}

    public static void main(String[] args) throws IOException {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println(SHUTDOWN_LINE);
            System.out.flush();
            try {
                Files.writeString(Path.of(SHUTDOWN_MARKER), Long.toString(System.currentTimeMillis()));
            } catch (IOException ignored) {
                // the log line above is the other witness
            }
        }));
        try (ServerSocket server = new ServerSocket(PORT)) {
            System.out.println("probe: listening on " + PORT);
            System.out.flush();
            while (true) {
                Socket s = server.accept();
                Thread t = new Thread(() -> serve(s), "probe-conn");
                t.setDaemon(true);
                t.start();
            }
        }
    }

    private static void serve(Socket socket) {
        try (socket;
             var in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
             var out = new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] parts = line.trim().split("\\s+");
                switch (parts[0]) {
                    case "ping" -> out.println("pong");
                    case "time" -> out.println(System.currentTimeMillis());
                    case "sleep" -> {
                        long start = System.nanoTime();
                        Thread.sleep(Long.parseLong(parts[1]));
                        out.println((System.nanoTime() - start) / 1_000_000);
                    }
                    default -> out.println("error: unknown command " + parts[0]);
                }
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            // a client went away or sent garbage: only this connection ends
        }
    }
}
