package io.faultline.harness;

import io.faultline.checker.Verdict;
import io.faultline.docker.DockerBacked;
import io.faultline.results.Liveness;
import io.faultline.results.ReportInput;
import io.faultline.results.RunStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The recovery check on real 3-node broker-impl runs: a healthy run is recovered; a run whose final heal leaves one
 * broker frozen (paused through the runtime, not resumed) is invalid with that broker unresponsive.
 */
@DockerBacked
class RecoveryCheckDockerTest {
    /** 5 s of workload without faults, 2 s recovery wait, a drain of at most 20 s. */
    private static TestConfig config() {
        return new TestConfig("broker-impl", 3, "queue", List.of(), 5, 50, 3, 2, "all", true, 2, 3, false, "assign", 5,
                11, 2, 20);
    }

    /** No faults during the run; the final heal runs {@code atHeal} on the cluster and reports nothing wrong. */
    private static TestRunner.FaultScheduleFactory healThat(java.util.function.Consumer<io.faultline.docker.sut.SutCluster> atHeal) {
        return (config, cluster, recorder, topics, log) -> new FaultSchedule() {
            @Override
            public void start() {}

            @Override
            public List<String> active() {
                return List.of();
            }

            @Override
            public List<String> stopAndHeal(boolean quick) {
                atHeal.accept(cluster);
                return List.of();
            }

            @Override
            public Map<String, List<ReportInput.ClockPoint>> clockOffsets() {
                return Map.of();
            }
        };
    }

    private static TestRunner.Result run(Path store, TestRunner.FaultScheduleFactory faults) throws Exception {
        var terminal = new PrintStream(new ByteArrayOutputStream(), true);
        return new TestRunner(config(), new RunStore(store), terminal, faults)
                .withLivenessBounds(new Liveness.Bounds(10, 256 * 1024)).run();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> liveness(Path runDir) throws Exception {
        Map<String, Object> results = CliTestSupport.results(runDir);
        assertNotNull(results.get("liveness"), "results.json has a liveness part: " + results.keySet());
        return (Map<String, Object>) results.get("liveness");
    }

    @Test
    void aHealthyRunRecoversAndABrokerLeftFrozenAfterTheHealIsFlagged(@TempDir Path store) throws Exception {
        var healthy = run(store.resolve("healthy"), healThat(cluster -> {}));
        var l = liveness(healthy.runDir());
        assertEquals("VALID", l.get("verdict"), "liveness of the healthy run: " + l);
        assertEquals(Verdict.VALID, healthy.verdict(), "caveats " + healthy.caveats());
        assertNotNull(((Map<?, ?>) l.get("timings")).get("allRecovered"), "the recovery time is recorded");
        assertTrue(Files.size(healthy.runDir().resolve("nodes/n1/console.log")) > 0, "the console was streamed");
        for (String n : List.of("n1", "n2", "n3")) {
            assertTrue(Files.isDirectory(healthy.runDir().resolve("nodes/" + n)), "collected " + n);
        }
        // where the time went, the check included, beside the results
        Map<String, Object> results = CliTestSupport.results(healthy.runDir());
        var phases = ((List<Map<String, Object>>) results.get("phases")).stream().map(p -> p.get("phase")).toList();
        assertTrue(phases.containsAll(List.of("start-cluster", "workload", "final-heal", "collect-and-teardown", "check")), "phases " + phases);
        assertEquals(5, ((Map<?, ?>) results.get("overhead")).get("time-limit-seconds"), "overhead " + results.get("overhead"));
        // the cluster is removed beside the check, and the run ends only once it is gone
        String pid = Long.toString(ProcessHandle.current().pid());
        var left = io.faultline.docker.DockerEngine.client().listContainersCmd().withShowAll(true)
                .withLabelFilter(Map.of(io.faultline.docker.ResourceJanitor.OWNER_PID, pid)).exec();
        assertEquals(List.of(), left.stream().map(c -> String.join(",", c.getNames())).toList(), "no containers left");
        assertTrue(Files.readString(healthy.runDir().resolve("faultline.log")).contains("removing the cluster: "),
                "the removal's time is logged");

        var frozen = run(store.resolve("frozen"), healThat(cluster -> cluster.node("n3").pause()));
        var f = liveness(frozen.runDir());
        assertEquals("INVALID", f.get("verdict"), "liveness of the run with n3 frozen: " + f);
        assertEquals(Verdict.INVALID, frozen.verdict());
        var anomalies = (List<Map<String, Object>>) f.get("anomalies");
        assertTrue(anomalies.stream().anyMatch(a -> Liveness.UNRESPONSIVE_BROKER.equals(a.get("name"))
                && "broker n3".equals(a.get("subject")) && !((List<?>) a.get("timeline")).isEmpty()), "anomalies: " + anomalies);
        assertTrue(frozen.anomalies().contains(Liveness.UNRESPONSIVE_BROKER + " 1"), "the run's anomalies: " + frozen.anomalies());
        assertTrue(Files.readString(frozen.runDir().resolve("report.html")).contains("liveness/unresponsive-broker: broker n3"));
    }
}
