package io.faultline.harness;

import io.faultline.checker.history.HistoryJson;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** `analyze` on damaged run folders: one line naming the file, the line and what is wrong; never a stack trace. */
class AnalyzeBadInputTest {
    static final TestConfig CONFIG = new TestConfig("apache-kafka", 3, "queue", List.of(), 10, 10, 2, 2, "all",
            true, 2, 3, false, "assign", 10, 1, 1, 1);

    static Path runDir(Path store) throws IOException {
        Path dir = store.resolve("t").resolve("20260101T000000.000Z");
        Files.createDirectories(dir);
        StoredRun.JSON.writeValue(dir.resolve("test.json").toFile(),
                StoredRun.testJson("t", CONFIG, Instant.EPOCH, "x"));
        return dir;
    }

    static String history(String tail) {
        var send = OpValue.Txn.of(new MicroOp.Send(1, 10, 0L));
        return HistoryJson.toJson(new Op(0, OpType.INVOKE, 0, 1, Op.SEND, OpValue.Txn.of(MicroOp.Send.invoke(1, 10)), null))
                + "\n" + HistoryJson.toJson(new Op(1, OpType.OK, 0, 2, Op.SEND, send, null)) + "\n" + tail;
    }

    static void assertOneLine(CliTestSupport.CliResult r, String... parts) {
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode(), r::toString);
        String err = r.err().strip();
        assertFalse(err.contains("\n"), () -> "one line, got: " + err);
        assertFalse(err.contains("Exception"), err);
        for (String p : parts) assertTrue(err.contains(p), () -> "'" + p + "' in: " + err);
    }

    @Test
    void aBadMiddleLineOfTheHistory(@TempDir Path store) throws IOException {
        Path dir = runDir(store);
        Files.writeString(dir.resolve("history.jsonl"), history("{oops\n" + HistoryJson.toJson(
                new Op(2, OpType.INVOKE, 1, 3, Op.CRASH, OpValue.None.INSTANCE, null)) + "\n"));
        assertOneLine(CliTestSupport.run("analyze", dir.toString()), "history.jsonl line 3");
    }

    @Test
    void aTornLastLineIsACaveat(@TempDir Path store) throws IOException {
        Path dir = runDir(store);
        Files.writeString(dir.resolve("history.jsonl"), history("{\"index\":2,\"ty"));
        var r = CliTestSupport.run("analyze", dir.toString());
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode(), "a dropped line: loss cannot be proven");
        assertFalse(Files.exists(dir.resolve("history.edn")), "EDN only when asked");
        @SuppressWarnings("unchecked")
        List<String> caveats = (List<String>) CliTestSupport.results(dir).get("caveats");
        assertTrue(caveats.get(0).startsWith("dropped the last line of history.jsonl (line 3"), caveats::toString);
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, CliTestSupport.run("analyze", "--edn", dir.toString()).exitCode());
        assertTrue(Files.exists(dir.resolve("history.edn")));
    }

    @Test
    void invalidTestJson(@TempDir Path store) throws IOException {
        Path dir = runDir(store);
        Files.writeString(dir.resolve("history.jsonl"), history(""));
        Files.writeString(dir.resolve("test.json"), "{\n  \"test-name\": \"t\",\n  \"seed\": 1,,\n}");
        assertOneLine(CliTestSupport.run("analyze", dir.toString()), "test.json line 3", "not valid JSON");
    }

    @Test
    void testJsonWithoutParameters(@TempDir Path store) throws IOException {
        Path dir = runDir(store);
        Files.writeString(dir.resolve("history.jsonl"), history(""));
        StoredRun.JSON.writeValue(dir.resolve("test.json").toFile(), Map.of("test-name", "t"));
        assertOneLine(CliTestSupport.run("analyze", dir.toString()), "test.json", "no \"parameters\" object");
        var params = new java.util.LinkedHashMap<>(CONFIG.asMap());
        params.remove("nodes");
        StoredRun.JSON.writeValue(dir.resolve("test.json").toFile(), Map.of("parameters", params));
        assertOneLine(CliTestSupport.run("analyze", dir.toString()), "test.json", "missing a setting");
    }

    @Test
    void anEmptyHistoryNeverReplacesStoredResults(@TempDir Path store) throws IOException {
        Path dir = runDir(store);
        Files.writeString(dir.resolve("history.jsonl"), history(""));
        CliTestSupport.run("analyze", dir.toString());
        byte[] results = Files.readAllBytes(dir.resolve("results.json"));
        byte[] report = Files.readAllBytes(dir.resolve("report.html"));
        Files.write(dir.resolve("history.jsonl"), new byte[0]);
        assertOneLine(CliTestSupport.run("analyze", dir.toString()), "history.jsonl holds no operations",
                "refusing to replace the stored results (verdict ");
        assertArrayEquals(results, Files.readAllBytes(dir.resolve("results.json")), "results.json kept");
        assertArrayEquals(report, Files.readAllBytes(dir.resolve("report.html")), "report.html kept");
    }

    @Test
    void aNonUtf8ByteInTheHistoryIsOneLine(@TempDir Path store) throws IOException {
        Path dir = runDir(store);
        byte[] head = history("{\"index\":2,\"error\":\"").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] tail = ("\"}\n" + HistoryJson.toJson(new Op(3, OpType.INVOKE, 1, 3, Op.CRASH, OpValue.None.INSTANCE, null))
                + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        var bytes = new java.io.ByteArrayOutputStream();
        bytes.writeBytes(head);
        bytes.write(0xfe);
        bytes.writeBytes(tail);
        Files.write(dir.resolve("history.jsonl"), bytes.toByteArray());
        assertOneLine(CliTestSupport.run("analyze", dir.toString()), "history.jsonl line 3", "not UTF-8");
    }
}
