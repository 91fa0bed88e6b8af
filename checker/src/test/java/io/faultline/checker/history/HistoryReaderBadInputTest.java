package io.faultline.checker.history;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HistoryReaderBadInputTest {
    static final Op A = new Op(0, OpType.INVOKE, 0, 1, Op.CRASH, OpValue.None.INSTANCE, null);
    static final Op B = new Op(1, OpType.INFO, 0, 2, Op.CRASH, OpValue.None.INSTANCE, null);

    static Path write(Path dir, String text) throws IOException {
        Path f = dir.resolve("history.jsonl");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void aTornLastLineIsDroppedWithACaveat(@TempDir Path dir) throws IOException {
        Path f = write(dir, HistoryJson.toJson(A) + "\n" + HistoryJson.toJson(B) + "\n{\"index\":2,\"ty");
        HistoryReader.Read r = HistoryReader.readWithCaveats(f);
        assertEquals(List.of(A, B), r.ops());
        assertEquals(1, r.caveats().size());
        assertTrue(r.caveats().get(0).startsWith("dropped the last line of history.jsonl (line 3"), r.caveats()::toString);
    }

    @Test
    void aNonJsonLastLineIsDroppedWithACaveat(@TempDir Path dir) throws IOException {
        Path f = write(dir, HistoryJson.toJson(A) + "\nKilled\n\n");
        HistoryReader.Read r = HistoryReader.readWithCaveats(f);
        assertEquals(List.of(A), r.ops());
        assertTrue(r.caveats().get(0).contains("line 2"), r.caveats()::toString);
    }

    @Test
    void aWholeFileHasNoCaveats(@TempDir Path dir) throws IOException {
        Path f = write(dir, HistoryJson.toJson(A) + "\n" + HistoryJson.toJson(B) + "\n");
        assertEquals(List.of(), HistoryReader.readWithCaveats(f).caveats());
    }

    @Test
    void aBadMiddleLineNamesFileAndLine(@TempDir Path dir) throws IOException {
        Path f = write(dir, HistoryJson.toJson(A) + "\n[1,2]\n" + HistoryJson.toJson(B) + "\n");
        var e = assertThrows(HistoryReader.MalformedHistoryException.class, () -> HistoryReader.readWithCaveats(f));
        assertEquals("history.jsonl line 2: not a JSON object", e.getMessage());
        Path g = write(dir, HistoryJson.toJson(A) + "\n{\"index\":1,\"type\":\"ok\"}\n" + HistoryJson.toJson(B) + "\n");
        var e2 = assertThrows(HistoryReader.MalformedHistoryException.class, () -> HistoryReader.readWithCaveats(g));
        assertTrue(e2.getMessage().startsWith("history.jsonl line 2: op without type or f"), e2.getMessage());
        assertTrue(!e2.getMessage().contains("\n"));
    }

    static Path writeBytes(Path dir, byte[]... parts) throws IOException {
        var out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) out.writeBytes(p);
        Path f = dir.resolve("history.jsonl");
        Files.write(f, out.toByteArray());
        return f;
    }

    static byte[] utf8(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void aNonUtf8ByteInAMiddleLineNamesFileAndLine(@TempDir Path dir) throws IOException {
        Path f = writeBytes(dir, utf8(HistoryJson.toJson(A) + "\n{\"index\":1,\"error\":\"a"), new byte[] {(byte) 0xff},
                utf8("\"}\n" + HistoryJson.toJson(B) + "\n"));
        var e = assertThrows(HistoryReader.MalformedHistoryException.class, () -> HistoryReader.readWithCaveats(f));
        assertEquals("history.jsonl line 2: not UTF-8 text (byte 0xff at column 22)", e.getMessage());
        var strict = assertThrows(HistoryReader.MalformedHistoryException.class, () -> HistoryReader.readStrict(f));
        assertEquals(e.getMessage(), strict.getMessage());
    }

    @Test
    void aTornLastLineWithANonUtf8ByteIsDroppedWithACaveat(@TempDir Path dir) throws IOException {
        // A multi-byte character cut in half by the crash: its first byte is the file's last.
        Path f = writeBytes(dir, utf8(HistoryJson.toJson(A) + "\n" + HistoryJson.toJson(B) + "\n{\"error\":\"caf"),
                new byte[] {(byte) 0xc3});
        HistoryReader.Read r = HistoryReader.readWithCaveats(f);
        assertEquals(List.of(A, B), r.ops());
        assertEquals(List.of("dropped the last line of history.jsonl (line 3, torn or not JSON: not UTF-8 text "
                + "(byte 0xc3 at column 14))"), r.caveats());
    }
}
