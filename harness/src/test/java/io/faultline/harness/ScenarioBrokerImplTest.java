package io.faultline.harness;

import io.faultline.checker.Verdict;
import io.faultline.docker.DockerBacked;
import io.faultline.results.RunStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every named scenario on a 3-node broker-impl, asserting the verdict it is meant to show (the README's scenario
 * table lists the runs behind each). One of them, KIP-101's loss in high-watermark mode (about 2 minutes), is in the
 * default suite; the others need the Maven profile {@code scenarios}
 * ({@code ./mvnw -pl harness -am verify -Pscenarios -Dtest='ScenarioBrokerImplTest' -Dsurefire.failIfNoSpecifiedTests=false}).
 */
@DockerBacked
class ScenarioBrokerImplTest {
    private static ScenarioCommand.Outcome run(String name, String truncation, Path store, long seed) throws Exception {
        Scenario s = Scenarios.forRun(name);
        TestConfig config = ScenarioCommand.config(s, "broker-impl", truncation, null, seed);
        var out = new ByteArrayOutputStream();
        var outcome = ScenarioCommand.run(s, config, new RunStore(store), new PrintStream(out, true, StandardCharsets.UTF_8));
        String log = out.toString(StandardCharsets.UTF_8);
        assertTrue(log.contains("scenario script finished"), "every step ran: " + log);
        String testJson = Files.readString(outcome.result().runDir().resolve("test.json"));
        assertTrue(testJson.contains("\"scenario\"") && testJson.contains(name), "test.json names the scenario: " + testJson);
        return outcome;
    }

    private static void assertLoss(ScenarioCommand.Outcome o) {
        assertEquals(Verdict.INVALID, o.result().verdict(), "anomalies " + o.result().anomalies() + " " + o.result().caveats());
        assertTrue(o.asExpected(), "a loss (lost-write or inconsistent-offsets): " + o.result().anomalies());
    }

    /**
     * The follower restarted with a high-watermark truncation loses what it had, then leads. Behind -Pscenarios since
     * December 2026: with broker-impl's controller fixes of that round the killed follower is usually fenced and out
     * of the ISR before the leader dies, so the precondition is reached only by timing (passed in one CI run, valid in
     * the next); docs/scenarios.md says why and what the script needs.
     */
    @Test
    @EnabledIfSystemProperty(named = "faultline.scenarios", matches = "true")
    void kip101LossInHighWatermarkModeLosesAcknowledgedWrites(@TempDir Path store) throws Exception {
        var o = run("kip-101-loss", "high-watermark", store, 21);
        assertLoss(o);
        assertTrue(Files.readString(o.result().runDir().resolve("nodes/n1/server.properties"))
                .contains("faultline.replication.truncation=high-watermark"), "the mode reached the brokers");
    }

    @Test
    @EnabledIfSystemProperty(named = "faultline.scenarios", matches = "true")
    void kip101LossInLeaderEpochModeKeepsAcknowledgedWrites(@TempDir Path store) throws Exception {
        var o = run("kip-101-loss", "leader-epoch", store, 21);
        assertEquals(Verdict.VALID, o.result().verdict(), "anomalies " + o.result().anomalies() + " " + o.result().caveats());
    }

    @Test
    @EnabledIfSystemProperty(named = "faultline.scenarios", matches = "true")
    void kip101DivergenceInHighWatermarkModeDiverges(@TempDir Path store) throws Exception {
        var o = run("kip-101-divergence", "high-watermark", store, 21);
        assertEquals(Verdict.INVALID, o.result().verdict(), "anomalies " + o.result().anomalies());
        assertTrue(o.asExpected(), "inconsistent offsets: " + o.result().anomalies());
    }

    @Test
    @EnabledIfSystemProperty(named = "faultline.scenarios", matches = "true")
    void kip101DivergenceDoesNotHappenInLeaderEpochMode(@TempDir Path store) throws Exception {
        var o = run("kip-101-divergence", "leader-epoch", store, 22);
        assertEquals(Verdict.VALID, o.result().verdict(), "anomalies " + o.result().anomalies() + " " + o.result().caveats());
    }

    @Test
    @EnabledIfSystemProperty(named = "faultline.scenarios", matches = "true")
    void uncleanElectionLosesAcknowledgedWrites(@TempDir Path store) throws Exception {
        assertLoss(run("unclean-election", null, store, 21));
    }

    @Test
    @EnabledIfSystemProperty(named = "faultline.scenarios", matches = "true")
    void acksOneFailoverLosesAcknowledgedWrites(@TempDir Path store) throws Exception {
        assertLoss(run("acks-1-failover", null, store, 21));
    }

    @Test
    @EnabledIfSystemProperty(named = "faultline.scenarios", matches = "true")
    void minIsrOneLosesWhenTheOnlyInSyncReplicaLosesPower(@TempDir Path store) throws Exception {
        assertLoss(run("min-isr-1", null, store, 21));
    }
}
