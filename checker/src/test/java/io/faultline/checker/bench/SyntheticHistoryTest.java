package io.faultline.checker.bench;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.EdnReader;
import io.faultline.checker.history.EdnWriter;
import io.faultline.checker.history.HistoryJson;
import io.faultline.checker.history.HistoryReader;
import io.faultline.checker.history.Op;
import io.faultline.checker.queue.QueueAnomaly;
import io.faultline.checker.queue.QueueChecker;
import io.faultline.checker.queue.TotalQueueChecker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The benchmark's generator doubles as a randomized test of the analysis: clean must pass, planted must be found. */
class SyntheticHistoryTest {

    @Test
    void cleanSyntheticHistoryIsValidWithNothingFound() {
        for (long seed = 1; seed <= 2; seed++) {
            List<Op> ops = SyntheticHistory.generate(seed, 40_000, 6, false).ops();
            CheckResult r = QueueChecker.forRun(false).check(ops);
            assertEquals(Verdict.VALID, r.verdict(), r::toString);
            r.counts().forEach((c, n) -> assertEquals(0L, n, c));
            CheckResult t = new TotalQueueChecker().check(ops);
            assertEquals(Verdict.VALID, t.verdict(), t::toString);
        }
    }

    @Test
    void everyPlantedAnomalyIsFound() {
        SyntheticHistory.Result h = SyntheticHistory.generate(7, 300_000, 8, true);
        assertTrue(h.planted().size() >= 5, () -> "too few planted: " + h.planted());
        CheckResult r = QueueChecker.forRun(false).check(h.ops());
        assertEquals(Verdict.INVALID, r.verdict());
        for (Map.Entry<QueueAnomaly, Integer> e : h.planted().entrySet()) {
            assertTrue(r.count(e.getKey().wireName()) >= e.getValue(), () -> e + " not found in " + r.counts());
        }
        // Categories nothing was planted for, and which nothing planted can cause, stay clean.
        assertEquals(0L, r.count("precommitted-read"));
        assertEquals(0L, r.count("nonmonotonic-send"));
    }

    @Test
    void largeHistoryRoundTripsThroughJsonlAndEdn(@TempDir Path dir) throws IOException {
        List<Op> ops = SyntheticHistory.generate(3, 20_000, 4, true).ops();
        StringBuilder jsonl = new StringBuilder();
        ops.forEach(op -> jsonl.append(HistoryJson.toJson(op)).append('\n'));
        assertEquals(ops, HistoryReader.read(new StringReader(jsonl.toString()), false));
        StringWriter edn = new StringWriter();
        EdnWriter.write(ops, edn);
        assertEquals(ops, EdnReader.parse(edn.toString()));
    }
}
