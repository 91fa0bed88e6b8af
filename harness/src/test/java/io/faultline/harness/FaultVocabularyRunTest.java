package io.faultline.harness;

import io.faultline.checker.history.HistoryJson;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.nemesis.FaultPackages;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** `analyze` draws a run's faults by the vocabulary the run wrote into test.json, and old runs by the nemesis'. */
class FaultVocabularyRunTest {
    private static Path runWithFaults(Path store, String open, String close) throws IOException {
        Path dir = AnalyzeBadInputTest.runDir(store);
        StringBuilder h = new StringBuilder();
        long i = 0;
        for (String f : List.of(open, open, close, close)) {
            h.append(HistoryJson.toJson(new Op(i, OpType.INFO, Op.NEMESIS, 100 + i, f, new OpValue.Text("n1"), null)))
                    .append('\n');
            i++;
        }
        var send = OpValue.Txn.of(new io.faultline.checker.history.MicroOp.Send(1, 10, 0L));
        h.append(HistoryJson.toJson(new Op(i, OpType.INVOKE, 0, 200, Op.SEND,
                OpValue.Txn.of(io.faultline.checker.history.MicroOp.Send.invoke(1, 10)), null))).append('\n');
        h.append(HistoryJson.toJson(new Op(i + 1, OpType.OK, 0, 300, Op.SEND, send, null))).append('\n');
        Files.writeString(dir.resolve("history.jsonl"), h);
        return dir;
    }

    @SuppressWarnings("unchecked")
    private static void setFaults(Path dir, Object faults) throws IOException {
        Map<String, Object> testJson = StoredRun.readTestJson(dir);
        if (faults == null) testJson.remove(StoredRun.FAULTS);
        else testJson.put(StoredRun.FAULTS, faults);
        StoredRun.JSON.writeValue(dir.resolve("test.json").toFile(), testJson);
    }

    @Test
    void aRunWritesTheNemesisVocabularyIntoTestJson(@TempDir Path store) throws IOException {
        Path dir = AnalyzeBadInputTest.runDir(store);
        var written = io.faultline.results.FaultVocabulary.fromJson(StoredRun.readTestJson(dir).get(StoredRun.FAULTS));
        assertEquals(StoredRun.vocabularyOf(FaultPackages.legends()), written);
        assertEquals("#E9C46A", written.colourOf("partition"), "the nemesis' colour, not a table of the report's");
    }

    @Test
    void aCustomPackageRendersInTheColourTheRunWrote(@TempDir Path store) throws IOException {
        Path dir = runWithFaults(store, "dim-lights", "lights-on");
        setFaults(dir, List.of(Map.of("name", "brownout", "colour", "#123ABC", "opens", List.of("dim-lights"),
                "closes", List.of("lights-on"))));
        var r = CliTestSupport.run("analyze", dir.toString());
        assertTrue(r.err().isBlank(), r::toString); // unknown (no ending.json), but judged and reported
        String html = Files.readString(dir.resolve("report.html"));
        assertTrue(html.contains("brownout"), "the package is named");
        assertTrue(html.contains("#123ABC"), "in the run's colour");
        assertFalse(html.contains("dim-lights\",\"colour"), "the vocabulary is not shown as a parameter");
    }

    @Test
    void anOldRunWithoutAVocabularyIsDrawnByTheNemesisPackages(@TempDir Path store) throws IOException {
        Path dir = runWithFaults(store, "start-partition", "stop-partition");
        setFaults(dir, null);
        var r = CliTestSupport.run("analyze", dir.toString());
        assertTrue(r.err().isBlank(), r::toString); // unknown (no ending.json), but judged and reported
        assertTrue(Files.readString(dir.resolve("report.html")).contains("#E9C46A"));
    }
}
