package io.faultline.harness;

import io.faultline.docker.DockerBacked;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole product on real Apache Kafka: one command gives a verdict and a complete run folder. */
@DockerBacked
class CliEndToEndTest {

    @Test
    void faultFreeQueueRunIsValidWithNothingUnseen(@TempDir Path store) throws Exception {
        // no faults, so nothing to recover from: no recovery wait, and 10 s of workload already give thousands of ops
        var r = CliTestSupport.run("test", "--nemesis", "none", "--time-limit", "10", "--recovery", "0", "--nodes", "3",
                "--seed", "7", "--store", store.toString());
        Path run = CliTestSupport.runDirs(store).get(0);
        assertEquals(FaultlineCli.EXIT_VALID, r.exitCode(), "exit code; results: " + Files.readString(run.resolve("results.json")));
        Map<String, Object> results = CliTestSupport.results(run);
        assertEquals("VALID", results.get("verdict"));
        assertEquals(true, results.get("complete"));
        @SuppressWarnings("unchecked")
        var queue = (Map<String, Object>) ((Map<String, Object>) results.get("checks")).get("queue");
        @SuppressWarnings("unchecked")
        var counts = (Map<String, Number>) queue.get("counts");
        assertEquals(0, counts.get("unseen").intValue(), "every acknowledged value was read in the final drain");
        assertEquals(0, counts.get("lost-write").intValue());
        @SuppressWarnings("unchecked")
        var stats = (Map<String, Number>) queue.get("stats");
        assertTrue(stats.get("ok-sent-values").intValue() > 100, "10 s of sends: " + stats);
        assertTrue(stats.get("ok-polls").intValue() > 50, "10 s of polls: " + stats);
    }

    @Test
    void partitionAndKillRunIsValidAndLeavesACompleteRunFolder(@TempDir Path store) throws Exception {
        var r = CliTestSupport.run("test", "--nemesis", "partition,kill", "--time-limit", "20",
                "--nemesis-interval", "5", "--store", store.toString());
        List<Path> runs = CliTestSupport.runDirs(store);
        assertEquals(1, runs.size());
        Path run = runs.get(0);
        assertEquals(FaultlineCli.EXIT_VALID, r.exitCode(), "exit code; results: " + Files.readString(run.resolve("results.json")));
        for (String f : List.of("test.json", "history.jsonl", "history.edn", "results.json", "report.html", "faultline.log")) {
            assertTrue(Files.size(run.resolve(f)) > 0, f + " is written");
        }
        assertTrue(Files.isDirectory(run.resolve("plots")) && Files.list(run.resolve("plots")).findAny().isPresent(), "plots");
        for (int i = 1; i <= 5; i++) {
            assertTrue(Files.size(run.resolve("nodes/n" + i + "/logs/server.log")) > 0, "server.log of n" + i);
            assertTrue(Files.isRegularFile(run.resolve("nodes/n" + i + "/data/kafka/meta.properties")), "data of n" + i);
        }
        String history = Files.readString(run.resolve("history.jsonl"));
        assertTrue(history.contains("\"process\":-1"), "fault ops are in the history");
        assertTrue(Files.readString(run.resolve("faultline.log")).contains("seed "), "the log starts with the seed");
        Path latest = store.resolve("latest");
        assertEquals(run.toRealPath(), latest.toRealPath(), "store/latest points at the newest run");

        // analyze re-checks the stored history without a cluster and reaches the same verdict
        var again = CliTestSupport.run("analyze", run.toString());
        assertEquals(FaultlineCli.EXIT_VALID, again.exitCode(), again.err());
    }

    @Test
    void brokerImplSingleNodeRunsUnderProcessFaults(@TempDir Path store) throws Exception {
        var r = CliTestSupport.run("test", "--sut", "broker-impl", "--nodes", "1", "--nemesis", "kill,pause",
                "--time-limit", "20", "--nemesis-interval", "4", "--seed", "3", "--store", store.toString());
        Path run = CliTestSupport.runDirs(store).get(0);
        Map<String, Object> results = CliTestSupport.results(run);
        assertEquals(true, results.get("complete"), "the run completed");
        assertEquals(FaultlineCli.EXIT_VALID, r.exitCode(), "results: " + Files.readString(run.resolve("results.json")));
        String history = Files.readString(run.resolve("history.jsonl"));
        assertTrue(history.contains("\"f\":\"kill\"") || history.contains("\"f\":\"pause\""), "faults ran");
        assertTrue(Files.isDirectory(run.resolve("nodes/n1/data/broker")), "broker data collected");
    }
}
