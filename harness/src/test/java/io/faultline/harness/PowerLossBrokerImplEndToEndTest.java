package io.faultline.harness;

import io.faultline.docker.DockerBacked;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Power loss on 3-node broker-impl (acks=all, RF 3, min ISR 2), every node's data on lazyfs, through the CLI: one
 * node at a time must lose nothing whatever the flushing, as a copy of every acknowledged record survives on a node
 * that kept power; so must every node at once when every append is fsynced. The report says which.
 *
 * <p>Both are behind -Pscenarios because broker-impl does not pass them today: the final drain reads nothing after
 * the power faults and the run is unknown (seed 18, one node at a time: 179 acknowledged, 7 never read); after every
 * node at once its metadata quorum (the controller's Raft log) also forgets its newest records. See README, "Power
 * loss". Each takes about 4 minutes on a busy 2-core machine.
 */
@DockerBacked
class PowerLossBrokerImplEndToEndTest {

    private static Path run(Path store, String nemesis, int exitCode, String... more) throws Exception {
        var args = new java.util.ArrayList<>(java.util.List.of("test", "--sut", "broker-impl", "--nodes", "3",
                "--nemesis", nemesis, "--time-limit", "30", "--seed", "18", "--store", store.toString()));
        args.addAll(java.util.List.of(more));
        var r = CliTestSupport.run(args.toArray(String[]::new));
        Path run = CliTestSupport.runDirs(store).get(0);
        String results = Files.readString(run.resolve("results.json"));
        assertEquals(true, CliTestSupport.results(run).get("complete"), "the run completed: " + results);
        assertEquals(exitCode, r.exitCode(), "results: " + results);
        assertTrue(Files.readString(run.resolve("history.jsonl")).contains("power lost on [n"), "power was lost");
        assertTrue(Files.readString(run.resolve("report.html")).contains("id=\"durability\""), "the report explains");
        return run;
    }

    @Test
    @EnabledIfSystemProperty(named = "faultline.scenarios", matches = "true")
    void oneNodeAtATimeLosesNothing(@TempDir Path store) throws Exception {
        Path run = run(store, "power-one", FaultlineCli.EXIT_VALID);
        Map<String, Object> results = CliTestSupport.results(run);
        assertTrue(String.valueOf(results.get("durability")).contains("at most 1 node(s) lost power at once"),
                String.valueOf(results.get("durability")));
    }

    @Test
    @EnabledIfSystemProperty(named = "faultline.scenarios", matches = "true")
    void everyNodeAtOnceWithAnFsyncPerMessageLosesNothing(@TempDir Path store) throws Exception {
        Path run = run(store, "power-all", FaultlineCli.EXIT_VALID, "--flush-messages", "1");
        assertTrue(String.valueOf(CliTestSupport.results(run).get("durability")).contains("log.flush.interval.messages=1"));
    }
}
