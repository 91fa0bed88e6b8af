package io.faultline.results;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;

/**
 * {@code faultline serve}: a read-only web view of the store on 127.0.0.1. {@code /} lists runs (newest first, verdicts
 * coloured) and campaigns; any other path is a file or folder inside the store. Anything that resolves outside the
 * store — "..", encoded "..", absolute tricks, symlinks whose target is outside — is answered 404, the same as a
 * missing file, so the server does not even confirm what exists outside.
 */
public final class StoreServer implements AutoCloseable {

    private static final Map<String, String> CONTENT_TYPES = Map.ofEntries(
            Map.entry("html", "text/html; charset=utf-8"),
            Map.entry("svg", "image/svg+xml"),
            Map.entry("json", "application/json"),
            Map.entry("jsonl", "application/x-ndjson; charset=utf-8"),
            Map.entry("edn", "text/plain; charset=utf-8"),
            Map.entry("log", "text/plain; charset=utf-8"),
            Map.entry("txt", "text/plain; charset=utf-8"),
            Map.entry("png", "image/png"),
            Map.entry("css", "text/css; charset=utf-8"));

    private final RunStore store;
    private final Path realRoot;
    private final HttpServer server;
    private final ExecutorService executor;

    private StoreServer(RunStore store, Path realRoot, HttpServer server, ExecutorService executor) {
        this.store = store;
        this.realRoot = realRoot;
        this.server = server;
        this.executor = executor;
    }

    /** Serves {@code root} on 127.0.0.1:{@code port} (0 picks a free port); returns once listening. */
    public static StoreServer start(Path root, int port) throws IOException {
        Files.createDirectories(root);
        RunStore store = new RunStore(root);
        Path realRoot = store.root().toRealPath();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        ExecutorService executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "store-server");
            t.setDaemon(true);
            return t;
        });
        StoreServer s = new StoreServer(store, realRoot, server, executor);
        server.createContext("/", s::handle);
        server.setExecutor(executor);
        server.start();
        return s;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** The socket address actually bound (always a loopback address). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + port() + "/");
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String method = ex.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                send(ex, 405, "text/plain; charset=utf-8", "method not allowed\n".getBytes(StandardCharsets.UTF_8));
                return;
            }
            String decoded = decodePath(ex.getRequestURI().getRawPath());
            if (decoded == null) {
                notFound(ex);
            } else if (decoded.equals("/")) {
                send(ex, 200, CONTENT_TYPES.get("html"), indexPage().getBytes(StandardCharsets.UTF_8));
            } else {
                Path file = resolveInside(decoded);
                if (file == null) {
                    notFound(ex);
                } else if (Files.isDirectory(file)) {
                    serveDirectory(ex, decoded, file);
                } else {
                    serveFile(ex, file);
                }
            }
        } catch (IOException | RuntimeException e) {
            // the client went away or the file vanished mid-request; nothing useful to answer
        }
    }

    /**
     * The real path of a request path if it exists inside the store, else null. Checked twice: the normalised
     * path must stay under the root (no ".."), then the real path (symlinks followed) must too.
     */
    Path resolveInside(String decodedPath) {
        if (decodedPath.indexOf('\0') >= 0 || decodedPath.indexOf('\\') >= 0 || !decodedPath.startsWith("/")) {
            return null;
        }
        try {
            Path candidate = realRoot.resolve(decodedPath.substring(1)).normalize();
            if (!candidate.startsWith(realRoot) || !Files.exists(candidate)) {
                return null;
            }
            Path real = candidate.toRealPath();
            return real.startsWith(realRoot) ? real : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Percent-decodes a raw URI path as UTF-8 ('+' stays '+'); null if malformed. */
    static String decodePath(String raw) {
        if (raw == null || raw.isEmpty()) {
            return null;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                if (i + 2 >= raw.length()) {
                    return null;
                }
                int hi = Character.digit(raw.charAt(i + 1), 16), lo = Character.digit(raw.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return null;
                }
                bytes.write(hi * 16 + lo);
                i += 2;
            } else {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(b, 0, b.length);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private void serveFile(HttpExchange ex, Path file) throws IOException {
        String name = file.getFileName().toString();
        String ext = name.contains(".") ? name.substring(name.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT) : "";
        String type = CONTENT_TYPES.getOrDefault(ext, "application/octet-stream");
        long size = Files.size(file);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        if (ex.getRequestMethod().equals("HEAD")) {
            ex.sendResponseHeaders(200, -1);
            return;
        }
        ex.sendResponseHeaders(200, size == 0 ? -1 : size);
        try (InputStream in = Files.newInputStream(file); OutputStream out = ex.getResponseBody()) {
            in.transferTo(out);
        }
    }

    private void serveDirectory(HttpExchange ex, String decoded, Path dir) throws IOException {
        if (!decoded.endsWith("/")) { // so relative links inside the folder's pages resolve
            ex.getResponseHeaders().set("Location", Html.href(decoded + "/"));
            send(ex, 301, "text/plain; charset=utf-8", new byte[0]);
            return;
        }
        Path index = dir.resolve("index.html");
        if (Files.isRegularFile(index) && resolveInside(decoded + "index.html") != null) {
            serveFile(ex, index.toRealPath());
            return;
        }
        StringBuilder b = new StringBuilder("<h1>").append(Html.esc(decoded)).append("</h1><ul>")
                .append("<li><a href=\"../\">../</a></li>");
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.sorted().toList()) {
                String n = p.getFileName().toString() + (Files.isDirectory(p) ? "/" : "");
                b.append("<li><a href=\"").append(Html.esc(Html.href(n))).append("\">").append(Html.esc(n))
                        .append("</a></li>");
            }
        }
        b.append("</ul>");
        send(ex, 200, CONTENT_TYPES.get("html"), Html.page(decoded, b.toString()).getBytes(StandardCharsets.UTF_8));
    }

    String indexPage() {
        StringBuilder b = new StringBuilder("<h1>Faultline store</h1><p class=\"note\">")
                .append(Html.esc(store.root())).append("</p>");
        store.latest().ifPresent(p -> b.append("<p><a href=\"/latest/\">latest run</a></p>"));
        List<RunStore.RunEntry> runs = store.listRuns();
        b.append("<h2>Runs</h2>");
        if (runs.isEmpty()) {
            b.append("<p class=\"note\">No runs yet.</p>");
        } else {
            b.append("<table id=\"runs\"><tr><th>started (UTC)</th><th>test</th><th>verdict</th><th></th></tr>");
            for (RunStore.RunEntry r : runs) {
                String base = "/" + r.testName() + "/" + r.timestamp() + "/";
                b.append("<tr><td class=\"mono\">").append(Html.esc(r.timestamp())).append("</td><td>")
                        .append(Html.esc(r.testName())).append("</td><td><span class=\"verdict ")
                        .append(Html.verdictClass(r.verdict())).append("\">")
                        .append(Html.esc(r.verdict().toUpperCase(Locale.ROOT))).append("</span></td><td>");
                if (r.hasReport()) {
                    b.append("<a href=\"").append(Html.esc(Html.href(base + "report.html"))).append("\">report</a> ");
                }
                b.append("<a href=\"").append(Html.esc(Html.href(base))).append("\">files</a></td></tr>");
            }
            b.append("</table>");
        }
        List<RunStore.CampaignEntry> campaigns = store.listCampaigns();
        if (!campaigns.isEmpty()) {
            b.append("<h2>Campaigns</h2><ul>");
            for (RunStore.CampaignEntry c : campaigns) {
                String href = "/" + RunStore.CAMPAIGNS + "/" + c.name() + "/" + c.timestamp() + "/";
                b.append("<li><a href=\"").append(Html.esc(Html.href(href))).append("\">").append(Html.esc(c.name()))
                        .append(" ").append(Html.esc(c.timestamp())).append("</a></li>");
            }
            b.append("</ul>");
        }
        return Html.page("Faultline store", b.toString());
    }

    private static void notFound(HttpExchange ex) throws IOException {
        send(ex, 404, "text/plain; charset=utf-8", "not found\n".getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange ex, int status, String type, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        boolean head = ex.getRequestMethod().equals("HEAD");
        ex.sendResponseHeaders(status, head || body.length == 0 ? -1 : body.length);
        if (!head && body.length > 0) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
