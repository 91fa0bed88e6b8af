package io.faultline.checker.history;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.faultline.checker.bench.SyntheticHistory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The byte-level reader must build exactly what streaming Jackson builds, or step aside. */
class FastJsonlTest {

    /** What the streaming reader (the reference) makes of the whole file, as HistoryReader did before. */
    static List<Op> viaJackson(Path file) throws IOException {
        List<Op> ops = new ArrayList<>();
        try (JsonParser p = HistoryJson.FACTORY.createParser(Files.readAllBytes(file))) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                assertEquals(JsonToken.START_OBJECT, t);
                ops.add(HistoryJson.read(p));
            }
        }
        return ops;
    }

    @Test
    void aSyntheticHistoryReadsExactlyAsJacksonReadsIt(@TempDir Path dir) throws IOException {
        List<Op> ops = SyntheticHistory.generate(7, 20_000, 6, true).ops();
        StringBuilder sb = new StringBuilder();
        for (Op op : ops) sb.append(HistoryJson.toJson(op)).append('\n');
        Path f = dir.resolve("history.jsonl");
        Files.writeString(f, sb);
        List<Op> fast = FastJsonl.tryRead(f);
        assertNotNull(fast);
        assertEquals(ops, fast);
        assertEquals(viaJackson(f), fast);
    }

    @Test
    void everyShapeOurWriterMakesRoundTrips(@TempDir Path dir) throws IOException {
        List<Op> ops = List.of(
                new Op(0, OpType.INVOKE, 0, 1, Op.ASSIGN, new OpValue.Keys(List.of(0, 1, 2), true), null),
                new Op(1, OpType.OK, 0, 2, Op.SUBSCRIBE, new OpValue.Keys(List.of(), false), null),
                new Op(1, OpType.OK, 0, 2, Op.SUBSCRIBE, new OpValue.Keys(List.of(4), true, "fl-group-new-\"x\""), null),
                new Op(1, OpType.OK, 0, 2, Op.ASSIGN, OpValue.Keys.tail(List.of(4, 5)), null),
                new Op(2, OpType.INFO, Op.NEMESIS, 3, "kill", new OpValue.Text("primaries [fl-3-0]"), null),
                new Op(3, OpType.FAIL, 4, 4, Op.SEND, OpValue.Txn.of(new MicroOp.Send(-3, -7, null)), "timeout: x"),
                new Op(4, OpType.OK, 4, 5, Op.SEND, OpValue.Txn.of(new MicroOp.Send(3, 7, 0L),
                        new MicroOp.Send(Integer.MAX_VALUE, Long.MAX_VALUE, 999_999_999_999_999_999L)), null),
                new Op(5, OpType.OK, 5, Long.MAX_VALUE, Op.POLL, OpValue.Txn.of(MicroOp.Poll.invoke(),
                        new MicroOp.Poll(Map.of()), new MicroOp.Poll(Map.of(3, List.of(), 1,
                                List.of(new MicroOp.Record(0, 1), new MicroOp.Record(5, -2))))), null),
                new Op(6, OpType.INFO, 6, 7, Op.CRASH, OpValue.None.INSTANCE, "ünïcode and \"quotes\"\n"),
                new Op(7, OpType.OK, 7, 8, "txn", new OpValue.Txn(List.of()), null));
        StringBuilder sb = new StringBuilder();
        for (Op op : ops) sb.append(HistoryJson.toJson(op)).append("\r\n\n  \n");
        Path f = dir.resolve("history.jsonl");
        Files.writeString(f, sb.substring(0, sb.length() - 6)); // no newline after the last op
        assertEquals(ops, FastJsonl.tryRead(f));
    }

    @Test
    void linesOutsideTheCanonicalShapeReadAsJacksonReadsThem(@TempDir Path dir) throws IOException {
        String text = String.join("\n",
                "{ \"index\" : 1, \"type\":\"ok\", \"process\":0,\"time\":5,\"f\":\"send\",\"value\":[[\"send\",1,[2,3]]]}",
                "{\"value\":[[\"send\",1,[2,3]]],\"type\":\"ok\",\"f\":\"send\"}",
                "{\"index\":2,\"type\":\"ok\",\"process\":0,\"time\":1.5e3,\"f\":\"s\\u0065nd\",\"value\":[[\"send\",1,2]]}",
                "{\"index\":3,\"type\":\"ok\",\"process\":0,\"time\":1234567890123456789,\"f\":\"poll\","
                        + "\"value\":[[\"poll\",{\"007\":[[1,2]]}]],\"extra\":{\"a\":[1]}}",
                "{\"index\":4,\"type\":\"ok\",\"process\":0,\"time\":0,\"f\":\"assign\",\"value\":[1,2],"
                        + "\"seekToBeginning\":true,\"f\":\"assign\"}",
                "{\"index\":5,\"type\":\"ok\",\"f\":\"send\",\"value\":[[\"send\",1,[null,3]],[\"poll\",null]]}",
                "{\"index\":6,\"type\":\"info\",\"f\":\"kill\",\"value\":\"caf\u00e9\",\"error\":null}",
                "");
        Path f = dir.resolve("history.jsonl");
        Files.write(f, text.getBytes(StandardCharsets.UTF_8));
        List<Op> fast = FastJsonl.tryRead(f);
        assertNotNull(fast);
        assertEquals(viaJackson(f), fast);
        assertEquals(7, fast.size());
    }

    @Test
    void aLineJacksonCannotReadLeavesTheFileToTheCarefulReader(@TempDir Path dir) throws IOException {
        String good = HistoryJson.toJson(HistoryReaderBadInputTest.A);
        for (String bad : List.of("{\"index\":2,\"ty", "Killed", good + good, "{\"index\":1}", "[1,2]")) {
            Path f = dir.resolve("history.jsonl");
            Files.writeString(f, good + "\n" + bad + "\n");
            assertNull(FastJsonl.tryRead(f), bad);
        }
    }

    @Test
    void aLineLongerThanTheBufferIsRead(@TempDir Path dir) throws IOException {
        List<MicroOp.Record> recs = new ArrayList<>();
        for (int i = 0; i < 200_000; i++) recs.add(new MicroOp.Record(i, i * 3L));
        Op big = new Op(0, OpType.OK, 0, 1, Op.POLL, OpValue.Txn.of(new MicroOp.Poll(Map.of(1, recs))), null);
        Op small = new Op(1, OpType.OK, 0, 2, Op.CRASH, OpValue.None.INSTANCE, null);
        Path f = dir.resolve("history.jsonl");
        Files.writeString(f, HistoryJson.toJson(small) + "\n" + HistoryJson.toJson(big) + "\n"
                + HistoryJson.toJson(small) + "\n");
        assertEquals(List.of(small, big, small), FastJsonl.tryRead(f));
    }

    @Test
    void readingInTwoHalvesGivesTheSameOpsWhereverTheSplitFalls(@TempDir Path dir) throws IOException {
        List<Op> ops = SyntheticHistory.generate(5, 300, 3, true).ops();
        StringBuilder sb = new StringBuilder();
        for (Op op : ops) sb.append(HistoryJson.toJson(op)).append('\n');
        // Blank lines and no final newline: each half must skip and stop exactly as one pass does.
        int cut = sb.indexOf("\n", 400) + 1;
        String text = "\n" + sb.substring(0, cut) + "\n \n" + sb.substring(cut, sb.length() - 1);
        Path f = dir.resolve("history.jsonl");
        Files.writeString(f, text);
        List<Op> whole = FastJsonl.tryRead(f, 0, Long.MAX_VALUE);
        assertEquals(ops, whole, () -> "whole: " + (whole == null ? null : whole.size()));
        long size = Files.size(f);
        for (long split = 0; split <= size + 1; split += (split < 600 || split > size - 600 ? 1 : 97)) {
            assertEquals(whole, FastJsonl.tryReadInTwo(f, split), "split at " + split);
        }
    }

    @Test
    void aBadLineInEitherHalfLeavesTheFileToTheCarefulReader(@TempDir Path dir) throws IOException {
        String good = HistoryJson.toJson(HistoryReaderBadInputTest.A);
        Path f = dir.resolve("history.jsonl");
        Files.writeString(f, good + "\nKilled\n" + good + "\n" + good + "\n{\"index\":2,\"ty");
        long size = Files.size(f);
        for (long split = 0; split <= size; split++) {
            assertNull(FastJsonl.tryReadInTwo(f, split), "split at " + split);
        }
    }

    @Test
    void aLargeFileIsReadInTwoHalvesToTheSameOps(@TempDir Path dir) throws IOException {
        List<Op> ops = SyntheticHistory.generate(9, 40_000, 6, true).ops();
        StringBuilder sb = new StringBuilder();
        for (Op op : ops) sb.append(HistoryJson.toJson(op)).append('\n');
        Path f = dir.resolve("history.jsonl");
        Files.writeString(f, sb);
        org.junit.jupiter.api.Assertions.assertTrue(Files.size(f) >= FastJsonl.PARALLEL_FROM_BYTES, "too small a file");
        assertEquals(ops, FastJsonl.tryRead(f));
    }
}
