package io.faultline.docker.probe;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** Talks to a {@link ProbeNode} from the host; empty when the node does not answer within the timeout. */
public final class ProbeClient {
    private ProbeClient() {}

    public static Optional<String> ask(String ip, String line, int timeoutMillis) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(ip, ProbeNode.PORT), timeoutMillis);
            s.setSoTimeout(timeoutMillis);
            var out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8);
            var in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            out.println(line);
            return Optional.ofNullable(in.readLine());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Waits until the probe answers ping (it needs a moment after a start). */
    public static void awaitUp(String ip, long timeoutMillis) {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < deadline) {
            if (ask(ip, "ping", 1000).filter("pong"::equals).isPresent()) return;
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        throw new AssertionError("probe at " + ip + " did not answer within " + timeoutMillis + " ms");
    }
}
