package io.faultline.harness;

import io.faultline.docker.DockerBacked;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our own broker as a 3-node system under test: its controller quorum and replication carry the queue workload
 * through partitions and kills, and the checker finds nothing lost (acks=all, RF 3, min ISR 2).
 */
@DockerBacked
class BrokerImplClusterEndToEndTest {

    @Test
    void threeNodeClusterStaysValidUnderPartitionsAndKills(@TempDir Path store) throws Exception {
        var r = CliTestSupport.run("test", "--sut", "broker-impl", "--nodes", "3", "--nemesis", "partition,kill",
                "--time-limit", "40", "--seed", "7", "--store", store.toString());
        Path run = CliTestSupport.runDirs(store).get(0);
        String results = Files.readString(run.resolve("results.json"));
        Map<String, Object> parsed = CliTestSupport.results(run);
        assertEquals(true, parsed.get("complete"), "the run completed: " + results);
        assertEquals(FaultlineCli.EXIT_VALID, r.exitCode(), "results: " + results);
        String history = Files.readString(run.resolve("history.jsonl"));
        assertTrue(history.contains("\"process\":-1"), "faults ran");
        for (int i = 1; i <= 3; i++) {
            assertTrue(Files.size(run.resolve("nodes/n" + i + "/console.log")) > 0, "the log of n" + i);
        }
    }
}
