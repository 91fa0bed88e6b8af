package io.faultline.checker.history;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static io.faultline.checker.history.MicroOp.rec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HistoryRoundTripTest {

    /** A history touching every value shape, including awkward ones (unknown offset, error text with quotes). */
    static List<Op> sample() throws IOException {
        AtomicLong clock = new AtomicLong();
        HistoryRecorder r = HistoryRecorder.inMemory(2, () -> clock.addAndGet(1000));
        r.invoke(0, Op.ASSIGN, new OpValue.Keys(List.of(1, 2), true));
        r.complete(0, OpType.OK, new OpValue.Keys(List.of(1, 2), true), null);
        r.invoke(1, Op.SEND, OpValue.Txn.of(MicroOp.Send.invoke(1, 10), MicroOp.Send.invoke(2, 20)));
        r.complete(1, OpType.OK, OpValue.Txn.of(new MicroOp.Send(1, 10, 0L), new MicroOp.Send(2, 20, 5L)), null);
        r.invoke(0, Op.POLL, OpValue.Txn.of(MicroOp.Poll.invoke()));
        r.complete(0, OpType.OK, OpValue.Txn.of(MicroOp.poll(Map.of(1, List.of(rec(0, 10)), 2, List.of()))), null);
        r.invoke(1, Op.SEND, OpValue.Txn.of(MicroOp.Send.invoke(1, 11)));
        r.complete(1, OpType.INFO, OpValue.Txn.of(MicroOp.Send.invoke(1, 11)), "timeout \"after\" 5s\nline2");
        r.nemesis(OpType.INFO, "kill", new OpValue.Text("n1 n2"), null);
        r.invoke(1, Op.CRASH, OpValue.None.INSTANCE);
        r.complete(1, OpType.INFO, OpValue.None.INSTANCE, null);
        r.invoke(0, Op.SUBSCRIBE, new OpValue.Keys(List.of(3), false));
        r.complete(0, OpType.FAIL, new OpValue.Keys(List.of(3), false), "no group");
        // a completed subscribe names the group its consumer joined (absent from older histories)
        r.invoke(0, Op.SUBSCRIBE, new OpValue.Keys(List.of(3), true));
        r.complete(0, OpType.OK, new OpValue.Keys(List.of(3), true, "q-group-new-\"1\""), null);
        // a tail reader's assign starts at the ends
        r.invoke(0, Op.ASSIGN, OpValue.Keys.tail(List.of(1, 3)));
        r.complete(0, OpType.OK, OpValue.Keys.tail(List.of(1, 3)), null);
        return r.ops();
    }

    @Test
    void recorderAssignsIndexesTimesAndRetiresProcessesAfterInfo() throws IOException {
        List<Op> ops = sample();
        for (int i = 0; i < ops.size(); i++) {
            assertEquals(i, ops.get(i).index());
        }
        assertTrue(ops.get(1).time() > ops.get(0).time());
        // Thread 1 got info at op 7: its next invocation (crash) runs as process 1 + 2 = 3, then 5 after.
        assertEquals(3, ops.get(9).process());
        assertEquals(Op.NEMESIS, ops.get(8).process());
        assertEquals("send", ops.get(7).f());
    }

    @Test
    void recorderRejectsBrokenDiscipline() {
        HistoryRecorder r = HistoryRecorder.inMemory(1);
        assertThrows(IllegalStateException.class, () -> r.complete(0, OpType.OK, OpValue.None.INSTANCE, null));
        r.invoke(0, Op.CRASH, OpValue.None.INSTANCE);
        assertThrows(IllegalStateException.class, () -> r.invoke(0, Op.CRASH, OpValue.None.INSTANCE));
        assertThrows(IllegalArgumentException.class, () -> r.invoke(1, Op.CRASH, OpValue.None.INSTANCE));
    }

    @Test
    void jsonlFileIsWrittenAsItHappensAndReadsBackEqual(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("history.jsonl");
        List<Op> expected = sample();
        try (HistoryRecorder r = HistoryRecorder.toFile(file, 2)) {
            r.invoke(0, Op.POLL, OpValue.Txn.of(MicroOp.Poll.invoke()));
            // Not closed yet: the line must already be on disk.
            List<Op> soFar = HistoryReader.readStrict(file);
            assertEquals(1, soFar.size());
            assertEquals(r.ops(), soFar);
        }
        Path file2 = dir.resolve("h2.jsonl");
        Files.writeString(file2, String.join("\n", expected.stream().map(HistoryJson::toJson).toList()) + "\n");
        assertEquals(expected, HistoryReader.readStrict(file2));
    }

    @Test
    void tornLastLineIsDroppedButTornMiddleLineIsAnError(@TempDir Path dir) throws IOException {
        List<Op> expected = sample();
        Path file = dir.resolve("h.jsonl");
        StringBuilder sb = new StringBuilder();
        for (Op op : expected) {
            sb.append(HistoryJson.toJson(op)).append('\n');
        }
        Files.writeString(file, sb + "{\"index\":99,\"type\":\"ok\",\"proc");
        assertEquals(expected, HistoryReader.read(file));
        assertThrows(IOException.class, () -> HistoryReader.readStrict(file));
        Files.writeString(file, "{\"index\":0,\"ty\n" + HistoryJson.toJson(expected.get(0)) + "\n",
                StandardOpenOption.TRUNCATE_EXISTING);
        assertThrows(IOException.class, () -> HistoryReader.read(file));
    }

    @Test
    void ednRoundTripAndJepsenShape(@TempDir Path dir) throws IOException {
        List<Op> expected = sample();
        Path file = dir.resolve("history.edn");
        EdnWriter.write(expected, file);
        assertEquals(expected, EdnReader.read(file));
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertEquals("{:index 0, :type :invoke, :process 0, :time 1000, :f :assign, :value [1 2], "
                + ":seek-to-beginning? true}", lines.get(0));
        assertEquals("{:index 3, :type :ok, :process 1, :time 4000, :f :send, "
                + ":value [[:send 1 [0 10]] [:send 2 [5 20]]]}", lines.get(3));
        assertEquals("{:index 5, :type :ok, :process 0, :time 6000, :f :poll, "
                + ":value [[:poll {1 [[0 10]], 2 []}]]}", lines.get(5));
        assertTrue(lines.get(8).contains(":process :nemesis"));
        assertTrue(lines.get(9).contains(":f :crash, :value nil"));
        assertEquals("{:index 14, :type :ok, :process 0, :time 15000, :f :subscribe, :value [3], "
                + ":seek-to-beginning? true, :group \"q-group-new-\\\"1\\\"\"}", lines.get(14));
    }

    @Test
    void aSubscribeWithoutAGroupReadsAsBefore() throws IOException {
        String old = "{\"index\":1,\"type\":\"ok\",\"process\":0,\"time\":5,\"f\":\"subscribe\",\"value\":[1,2]}";
        Op op = HistoryJson.fromJson(old);
        assertEquals(new OpValue.Keys(List.of(1, 2), false, null), op.value());
        String withGroup = "{\"index\":1,\"type\":\"ok\",\"process\":0,\"time\":5,\"f\":\"subscribe\","
                + "\"value\":[1,2],\"group\":\"g\"}";
        assertEquals(new OpValue.Keys(List.of(1, 2), false, "g"), HistoryJson.fromJson(withGroup).value());
    }

    @Test
    void ednReaderAcceptsAWholeVectorAndJepsenSpelling() {
        String edn = "[{:type :invoke, :f :send, :value [[:send 3 7]], :process 0, :time 1, :index 0}\n"
                + " {:type :ok, :f :send, :value [[:send 3 [12 7]]], :process 0, :time 2, :index 1}]";
        List<Op> ops = EdnReader.parse(edn);
        assertEquals(2, ops.size());
        assertEquals(new MicroOp.Send(3, 7, 12L), ops.get(1).mops().get(0));
        assertEquals(new MicroOp.Send(3, 7, null), ops.get(0).mops().get(0));
    }
}
