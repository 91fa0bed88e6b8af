package io.faultline.harness;

import io.faultline.docker.DockerBacked;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The offsets workload end to end on 3-node Apache Kafka under partitions and kills: the run completes, the
 * linearizability checker judges every key, and the verdict (whatever it is) is reached again by `analyze`.
 */
@DockerBacked
class OffsetsEndToEndTest {

    @Test
    @SuppressWarnings("unchecked")
    void offsetsRunUnderPartitionAndKillIsJudgedPerKey(@TempDir Path temp) throws Exception {
        String kept = System.getProperty("faultline.keepStore"); // keep the run for reading by hand
        Path store = kept == null ? temp : Path.of(kept);
        // Machinery is asserted (the run completes, both op kinds and faults ran, the register checker judges it),
        // not a verdict: 10 s of workload (faults every 5 s, ~1000 ops) and a 3 s recovery do.
        var r = CliTestSupport.run("test", "--workload", "offsets", "--nodes", "3", "--nemesis", "partition,kill",
                "--time-limit", "10", "--recovery", "3", "--nemesis-interval", "5", "--concurrency", "5", "--rate", "100",
                "--seed", "11", "--store", store.toString());
        // a kept store may hold other runs: this test's is the newest of its workload
        List<Path> runs = CliTestSupport.runDirs(store).stream().filter(p -> p.toString().contains("-offsets-")).sorted().toList();
        Path run = runs.get(runs.size() - 1);
        String resultsJson = Files.readString(run.resolve("results.json"));
        Map<String, Object> results = CliTestSupport.results(run);
        assertEquals(true, results.get("complete"), resultsJson);
        var checks = (Map<String, Object>) results.get("checks");
        assertEquals(List.of("linearizable"), checks.keySet().stream()
                        .filter(k -> !k.equals("replica-agreement") && !k.equals("segment-audit") && !k.equals("node-logs")).toList(),
                "only the register checker runs (besides the checks of the replicas' files and node logs every run gets)");
        var lin = (Map<String, Object>) checks.get("linearizable");
        assertNotEquals("UNKNOWN", lin.get("verdict"), "a 10 s history is small enough to judge: " + resultsJson);
        String history = Files.readString(run.resolve("history.jsonl"));
        assertTrue(history.contains("\"f\":\"write\"") && history.contains("\"f\":\"read\""), "reads and writes ran");
        assertTrue(history.contains("\"process\":-1"), "faults ran");
        var ops = io.faultline.checker.history.HistoryReader.read(run.resolve("history.jsonl"));
        var byOutcome = new java.util.TreeMap<String, Integer>();
        for (var op : ops) {
            if (op.process() >= 0 && op.type() != io.faultline.checker.history.OpType.INVOKE) {
                byOutcome.merge(op.f() + " " + op.type().name().toLowerCase(), 1, Integer::sum);
            }
        }
        System.out.println("offsets run outcomes: " + byOutcome);
        assertTrue(byOutcome.getOrDefault("write ok", 0) > 20 && byOutcome.getOrDefault("read ok", 0) > 20, "" + byOutcome);
        assertTrue(ops.stream().anyMatch(op -> "read".equals(op.f()) && op.type() == io.faultline.checker.history.OpType.OK
                && !op.value().toString().contains("nil")), "some read saw a committed offset");
        assertTrue(Files.readString(run.resolve("report.html")).contains("linearizable"), "the report shows the check");
        System.out.println("offsets run verdict " + results.get("verdict") + "; linearizable: " + lin);

        var again = CliTestSupport.run("analyze", run.toString());
        assertEquals(r.exitCode(), again.exitCode(), again.err());
    }
}
