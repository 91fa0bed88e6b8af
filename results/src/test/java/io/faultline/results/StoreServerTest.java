package io.faultline.results;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StoreServerTest {

    @TempDir
    Path tmp;
    private StoreServer server;
    private RunDir run;

    /** Status line, headers and body of one raw request: the path is sent exactly as given, never normalised. */
    record Response(int status, String headers, String body) {
    }

    Response get(String rawPath) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + rawPath + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int split = all.indexOf("\r\n\r\n");
            String head = all.substring(0, split);
            return new Response(Integer.parseInt(head.split(" ")[1]), head, all.substring(split + 4));
        }
    }

    @BeforeEach
    void start() throws Exception {
        Path root = tmp.resolve("store");
        RunStore store = new RunStore(root);
        RunDir older = store.newRun("queue", Instant.parse("2026-11-03T09:00:00Z"));
        older.writeResults(Map.of("verdict", "VALID"));
        run = store.newRun("queue", Instant.parse("2026-11-03T10:00:00Z"));
        run.writeResults(Map.of("verdict", "INVALID"));
        Files.writeString(run.reportHtml(), "<html><body>the report</body></html>");
        Files.createDirectories(run.plotsDir());
        Files.writeString(run.plotsDir().resolve("throughput.svg"), "<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
        Files.writeString(run.historyJsonl(), "{\"index\":0}\n");
        Files.writeString(tmp.resolve("secret.txt"), "outside the store");
        Files.createSymbolicLink(run.dir().resolve("escape.txt"), tmp.resolve("secret.txt"));
        Files.createSymbolicLink(run.dir().resolve("escape-dir"), tmp);
        Path campaign = store.newCampaign("acks-grid", Instant.parse("2026-11-03T08:00:00Z"));
        CampaignPage.write(new CampaignInput("acks-grid", Instant.parse("2026-11-03T08:00:00Z"), java.util.List.of(
                new CampaignInput.Run(Map.of("acks", "1"), run.dir(), "invalid", Map.of(), 1, 1, 1))), campaign);
        server = StoreServer.start(root, 0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void servesFilesInsideTheStoreWithContentTypes() throws Exception {
        String base = "/queue/" + run.timestamp() + "/";
        Response report = get(base + "report.html");
        assertEquals(200, report.status());
        assertTrue(report.body().contains("the report"));
        assertTrue(report.headers().toLowerCase().contains("content-type: text/html"));
        assertTrue(get(base + "plots/throughput.svg").headers().toLowerCase().contains("image/svg+xml"));
        assertTrue(get(base + "history.jsonl").headers().toLowerCase().contains("application/x-ndjson"));
        assertTrue(get(base + "results.json").headers().toLowerCase().contains("application/json"));
        assertEquals(200, get("/latest/report.html").status(), "latest is a symlink inside the store");
        assertEquals(301, get("/queue/" + run.timestamp()).status(), "folders get their trailing slash");
        assertEquals(200, get(base).status(), "folder listing");
    }

    @Test
    void indexListsRunsNewestFirstWithColouredVerdicts() throws Exception {
        Response index = get("/");
        assertEquals(200, index.status());
        String body = index.body();
        int newer = body.indexOf("20261103T100000.000"), older = body.indexOf("20261103T090000.000");
        assertTrue(newer > 0 && older > newer, "newest first");
        assertTrue(body.contains("v-invalid\">INVALID") && body.contains("v-valid\">VALID"));
        assertTrue(body.contains("href=\"/queue/" + run.timestamp() + "/report.html\""));
        String campaign = "/campaigns/acks-grid/20261103T080000.000/";
        assertTrue(body.contains("href=\"" + campaign + "\""), "campaigns listed");
        Response page = get(campaign);
        assertEquals(200, page.status());
        assertTrue(page.body().contains("Campaign acks-grid"), "a folder with index.html serves it");
        assertEquals(200, get(campaign + "../../../queue/" + run.timestamp() + "/report.html").status(),
                "the campaign's relative report links resolve inside the store");
    }

    @Test
    void refusesEverythingOutsideTheStoreWith404() throws Exception {
        String base = "/queue/" + run.timestamp() + "/";
        for (String path : new String[]{
                "/../../etc/passwd",
                "/%2e%2e/%2e%2e/etc/passwd",
                "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
                "/queue/../../secret.txt",
                "/..%2f..%2fsecret.txt",
                "/%2fetc%2fpasswd",
                "/..%5c..%5csecret.txt",
                "/%00",
                base + "escape.txt",
                base + "escape-dir/secret.txt",
                base + "escape-dir/",
                "/nope.html"}) {
            Response r = get(path);
            assertEquals(404, r.status(), path);
            assertFalse(r.body().contains("outside the store") || r.body().contains("root:"), path);
        }
    }

    @Test
    void onlyBindsTheLoopbackAddress() {
        assertTrue(server.address().getAddress().isLoopbackAddress(), server.address().toString());
        assertTrue(server.port() > 0, "port 0 picks a free port");
    }
}
