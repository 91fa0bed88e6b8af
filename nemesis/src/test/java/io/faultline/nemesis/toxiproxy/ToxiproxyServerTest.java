package io.faultline.nemesis.toxiproxy;

import eu.rekawek.toxiproxy.Proxy;
import eu.rekawek.toxiproxy.ToxiproxyClient;
import eu.rekawek.toxiproxy.model.ToxicDirection;
import eu.rekawek.toxiproxy.model.toxic.Latency;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server's conformance, driven through toxiproxy-java as the harness drives it, against an echo server on
 * 127.0.0.1. Timing assertions are lower bounds only ("at least the delay"); a busy machine can only make them
 * pass later, never fail.
 */
class ToxiproxyServerTest {
    private static final int WAIT_MS = 20_000;
    private ToxiproxyServer server;
    private ToxiproxyClient client;
    private EchoServer echo;
    private Proxy proxy;

    @BeforeEach
    void start() throws IOException {
        server = ToxiproxyServer.start("127.0.0.1", 0);
        client = new ToxiproxyClient("127.0.0.1", server.apiPort());
        echo = new EchoServer();
        proxy = client.createProxy("echo", "127.0.0.1:0", echo.address());
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        echo.close();
    }

    private Socket connect() throws IOException {
        String[] hostPort = proxy.getListen().split(":");
        Socket s = new Socket(hostPort[0], Integer.parseInt(hostPort[1]));
        s.setSoTimeout(WAIT_MS);
        s.setTcpNoDelay(true);
        return s;
    }

    /** Reads exactly n bytes (or fewer when the stream ends first). */
    private static byte[] read(Socket s, int n) throws IOException {
        InputStream in = s.getInputStream();
        var out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        while (out.size() < n) {
            int r = in.read(buf, 0, Math.min(buf.length, n - out.size()));
            if (r < 0) break;
            out.write(buf, 0, r);
        }
        return out.toByteArray();
    }

    private static byte[] payload(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) ('a' + i % 26);
        return b;
    }

    /** Milliseconds for one echo of n bytes through the connection. */
    private static long roundTripMillis(Socket s, int n) throws IOException {
        byte[] data = payload(n);
        long t0 = System.nanoTime();
        s.getOutputStream().write(data);
        s.getOutputStream().flush();
        assertArrayEquals(data, read(s, n));
        return (System.nanoTime() - t0) / 1_000_000;
    }

    @Test
    void versionAndProxyLifecycle() throws IOException {
        assertTrue(client.version().contains("\"version\""), client.version());
        assertEquals(List.of("echo"), client.getProxies().stream().map(Proxy::getName).toList());
        Proxy got = client.getProxy("echo");
        assertEquals(echo.address(), got.getUpstream());
        assertTrue(got.isEnabled());
        assertTrue(got.getListen().startsWith("127.0.0.1:") && !got.getListen().endsWith(":0"), got.getListen());

        EchoServer other = new EchoServer();
        try {
            got.setUpstream(other.address());
            assertEquals(other.address(), got.getUpstream());
            try (Socket s = connect()) {
                roundTripMillis(s, 10);
            }
            assertEquals(1, other.connections(), "the new upstream is used");
        } finally {
            other.close();
        }
        got.delete();
        assertTrue(client.getProxies().isEmpty());
        assertEquals(404, assertHttpError(() -> client.getProxy("echo")));
    }

    @Test
    void errorCodesAreToxiproxys() throws IOException {
        assertEquals(409, assertHttpError(() -> client.createProxy("echo", "127.0.0.1:0", echo.address())));
        assertEquals(404, assertHttpError(() -> client.getProxy("nope")));
        proxy.toxics().latency("slow", ToxicDirection.DOWNSTREAM, 10);
        assertEquals(409, assertHttpError(() -> proxy.toxics().latency("slow", ToxicDirection.UPSTREAM, 10)));
        assertEquals(404, assertHttpError(() -> proxy.toxics().get("nope")));
        assertEquals(404, status("GET", "/proxies/nope/toxics", null));
        assertEquals(400, status("POST", "/proxies", "{not json"));
        assertEquals(400, status("POST", "/proxies", "{\"name\": \"x\"}"), "upstream is required");
        assertEquals(400, status("POST", "/proxies/echo/toxics", "{\"type\": \"nonsense\"}"));
        assertEquals(400, status("POST", "/proxies/echo/toxics", "{\"type\": \"latency\", \"stream\": \"sideways\"}"));
        assertEquals(400, status("POST", "/proxies/echo/toxics", "{\"type\": \"latency\", \"attributes\": {\"latency\": \"x\"}}"));
        assertEquals(204, status("DELETE", "/proxies/echo/toxics/slow", null));
        assertEquals(404, status("DELETE", "/proxies/echo/toxics/slow", null));
    }

    @Test
    void toxicsListShowAndUpdateInToxiproxysShape() throws IOException {
        Latency latency = proxy.toxics().latency("lat", ToxicDirection.UPSTREAM, 100);
        latency.setJitter(7);
        latency.setLatency(250);
        Latency shown = proxy.toxics().get("lat", Latency.class);
        assertEquals(250, shown.getLatency());
        assertEquals(7, shown.getJitter(), "an update keeps the attributes it does not name");
        assertEquals(ToxicDirection.UPSTREAM, shown.getStream());
        assertEquals(1.0f, shown.getToxicity());
        assertEquals(1, proxy.toxics().getAll().size());
        String body = body("GET", "/proxies/echo/toxics/lat");
        assertTrue(body.contains("\"type\":\"latency\"") && body.contains("\"attributes\":{\"latency\":250,\"jitter\":7}"), body);
        String slicer = body("POST", "/proxies/echo/toxics", "{\"type\": \"slicer\", \"attributes\": {\"average_size\": 5}}");
        assertTrue(slicer.contains("\"name\":\"slicer_downstream\"") && slicer.contains("\"average_size\":5")
                && slicer.contains("\"size_variation\":0"), "default name and zero attributes: " + slicer);
    }

    @Test
    void latencyAddsAtLeastTheDelayEachWay() throws IOException {
        try (Socket s = connect()) {
            roundTripMillis(s, 10); // warm
            proxy.toxics().latency("down", ToxicDirection.DOWNSTREAM, 300);
            long down = roundTripMillis(s, 10);
            assertTrue(down >= 300, "downstream latency on an open connection: " + down + " ms");
            proxy.toxics().latency("up", ToxicDirection.UPSTREAM, 200);
            long both = roundTripMillis(s, 10);
            assertTrue(both >= 500, "both ways: " + both + " ms");
        }
    }

    @Test
    void bandwidthCapsTheRate() throws IOException {
        proxy.toxics().bandwidth("cap", ToxicDirection.DOWNSTREAM, 50); // 50 KB/s
        try (Socket s = connect()) {
            long ms = roundTripMillis(s, 100_000);
            // 100 kB at 50 KB/s takes 2 s; allow a quarter for the first 100 ms piece and rounding
            assertTrue(ms >= 1500, "100 kB at 50 KB/s took only " + ms + " ms");
        }
    }

    @Test
    void timeoutStopsDataAndClosesAfterItsTime() throws IOException {
        proxy.toxics().timeout("hold", ToxicDirection.DOWNSTREAM, 0);
        try (Socket s = connect()) {
            s.getOutputStream().write(payload(10));
            s.setSoTimeout(1000);
            assertThrows(SocketTimeoutException.class, () -> s.getInputStream().read(), "no data while held");
        }
        proxy.toxics().get("hold").remove();
        proxy.toxics().timeout("close", ToxicDirection.DOWNSTREAM, 300);
        try (Socket s = connect()) {
            s.getOutputStream().write(payload(10));
            assertEquals(0, read(s, 10).length, "the data is dropped and the connection closed");
        }
    }

    @Test
    void resetPeerResets() throws IOException {
        proxy.toxics().resetPeer("rst", ToxicDirection.UPSTREAM, 0);
        try (Socket s = connect()) {
            s.getOutputStream().write(payload(10));
            assertThrows(SocketException.class, () -> read(s, 10), "connection reset");
        }
    }

    @Test
    void limitDataClosesAfterNBytes() throws IOException {
        proxy.toxics().limitData("limit", ToxicDirection.DOWNSTREAM, 10);
        try (Socket s = connect()) {
            s.getOutputStream().write(payload(100));
            byte[] got = read(s, 100);
            assertArrayEquals(Arrays.copyOf(payload(100), 10), got);
        }
    }

    @Test
    void slicerSplitsWrites() throws IOException {
        proxy.toxics().slicer("slice", ToxicDirection.UPSTREAM, 10, 50_000); // ~10-byte pieces, 50 ms apart
        try (Socket s = connect()) {
            roundTripMillis(s, 100);
        }
        assertTrue(echo.reads(0) >= 2, "one 100-byte write arrived in " + echo.reads(0) + " reads");
    }

    @Test
    void toxicityZeroNeverAndOneAlwaysApplies() throws IOException {
        var limit = proxy.toxics().limitData("limit", ToxicDirection.DOWNSTREAM, 1);
        limit.setToxicity(0f);
        for (int i = 0; i < 5; i++) {
            try (Socket s = connect()) {
                assertEquals(100, read(echoOf(s, 100), 100).length, "toxicity 0 never applies");
            }
        }
        limit.setToxicity(1f);
        for (int i = 0; i < 5; i++) {
            try (Socket s = connect()) {
                assertEquals(1, read(echoOf(s, 100), 100).length, "toxicity 1 always applies");
            }
        }
    }

    private static Socket echoOf(Socket s, int n) throws IOException {
        s.getOutputStream().write(payload(n));
        return s;
    }

    @Test
    void removingAToxicRestoresAnOpenConnection() throws IOException {
        try (Socket s = connect()) {
            roundTripMillis(s, 10);
            proxy.toxics().latency("forever", ToxicDirection.DOWNSTREAM, 600_000);
            s.getOutputStream().write(payload(10));
            s.setSoTimeout(500);
            assertThrows(SocketTimeoutException.class, () -> s.getInputStream().read(), "held by the latency");
            proxy.toxics().get("forever").remove();
            s.setSoTimeout(WAIT_MS);
            assertArrayEquals(payload(10), read(s, 10), "released when the toxic goes");
            roundTripMillis(s, 10);
        }
    }

    @Test
    void aDisabledProxyRefusesConnections() throws IOException {
        try (Socket open = connect()) {
            roundTripMillis(open, 10);
            proxy.disable();
            assertFalse(client.getProxy("echo").isEnabled());
            assertTrue(read(open, 10).length == 0, "open connections are closed");
        }
        assertThrows(ConnectException.class, this::connect);
        proxy.enable();
        try (Socket s = connect()) {
            roundTripMillis(s, 10);
        }
    }

    @Test
    void resetEnablesEveryProxyAndRemovesEveryToxic() throws IOException {
        proxy.toxics().latency("a", ToxicDirection.DOWNSTREAM, 100);
        proxy.toxics().timeout("b", ToxicDirection.UPSTREAM, 0);
        proxy.disable();
        client.reset();
        Proxy after = client.getProxy("echo");
        assertTrue(after.isEnabled());
        assertTrue(after.toxics().getAll().isEmpty());
        try (Socket s = connect()) {
            roundTripMillis(s, 10);
        }
    }

    @Test
    void populateCreatesAndKeepsIdenticalProxies() throws IOException {
        String spec = "[{\"name\": \"echo\", \"listen\": \"" + proxy.getListen() + "\", \"upstream\": \"" + echo.address()
                + "\"}, {\"name\": \"two\", \"listen\": \"127.0.0.1:0\", \"upstream\": \"" + echo.address() + "\"}]";
        proxy.toxics().latency("kept", ToxicDirection.DOWNSTREAM, 1);
        String body = body("POST", "/populate", spec);
        assertTrue(body.contains("\"proxies\":[") && body.contains("\"name\":\"two\""), body);
        assertEquals(1, client.getProxy("echo").toxics().getAll().size(), "an identical proxy is kept with its toxics");
        assertEquals(2, client.getProxies().size());
        assertEquals(400, status("POST", "/populate", "[{\"name\": \"x\"}]"));
    }

    // ---- raw HTTP, for what toxiproxy-java cannot send ----

    private interface Call {
        void run() throws IOException;
    }

    /** The status toxiproxy-java reports in its exception message ("[404] proxy not found"). */
    private static int assertHttpError(Call call) {
        IOException e = assertThrows(IOException.class, call::run);
        assertTrue(e.getMessage().startsWith("["), e.getMessage());
        return Integer.parseInt(e.getMessage().substring(1, e.getMessage().indexOf(']')));
    }

    private HttpURLConnection request(String method, String path, String json) throws IOException {
        var c = (HttpURLConnection) new URL("http://127.0.0.1:" + server.apiPort() + path).openConnection();
        c.setRequestMethod(method);
        if (json != null) {
            c.setDoOutput(true);
            c.getOutputStream().write(json.getBytes(StandardCharsets.UTF_8));
        }
        return c;
    }

    private int status(String method, String path, String json) throws IOException {
        var c = request(method, path, json);
        int status = c.getResponseCode();
        if (status >= 400) {
            String error = new String(c.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(error.contains("\"error\"") && error.contains("\"status\":" + status), error);
        }
        return status;
    }

    private String body(String method, String path, String json) throws IOException {
        var c = request(method, path, json);
        assertTrue(c.getResponseCode() < 300, method + " " + path + " -> " + c.getResponseCode());
        return new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    private String body(String method, String path) throws IOException {
        return body(method, path, null);
    }
}
