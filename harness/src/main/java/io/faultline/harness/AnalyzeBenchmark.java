package io.faultline.harness;

import io.faultline.checker.bench.SyntheticHistory;
import io.faultline.checker.history.HistoryJson;
import io.faultline.checker.history.Op;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * Writes a stored run of about N synthetic queue events (a correct broker with a few planted anomalies) for timing
 * `faultline analyze` end to end:
 * <pre>
 * java -cp harness/target/classes:$(cat harness/target/faultline.classpath) \
 *      io.faultline.harness.AnalyzeBenchmark /tmp/bench-store 1000000
 * time bin/faultline analyze /tmp/bench-store/bench-queue/20260101T000000.000Z
 * </pre>
 */
public final class AnalyzeBenchmark {
    private AnalyzeBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path store = Path.of(args.length > 0 ? args[0] : "/tmp/faultline-bench-store");
        int events = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        Path dir = store.resolve("bench-queue").resolve("20260101T000000.000Z");
        Files.createDirectories(dir);
        List<Op> ops = SyntheticHistory.generate(42, events, 10, true).ops();
        try (BufferedWriter w = Files.newBufferedWriter(dir.resolve("history.jsonl"), StandardCharsets.UTF_8)) {
            for (Op op : ops) {
                w.write(HistoryJson.toJson(op));
                w.write('\n');
            }
        }
        var config = new TestConfig("apache-kafka", 3, "queue", List.of("partition"), 60, 100, 10, 10, "all",
                true, 2, 3, false, "assign", 10, 42, 10, 30);
        StoredRun.JSON.writeValue(dir.resolve("test.json").toFile(),
                StoredRun.testJson("bench-queue", config, Instant.parse("2026-01-01T00:00:00Z"), "bench"));
        System.out.println(ops.size() + " events written to " + dir);
    }
}
