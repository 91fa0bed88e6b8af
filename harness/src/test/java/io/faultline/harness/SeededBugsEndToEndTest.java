package io.faultline.harness;

import io.faultline.docker.DockerBacked;
import io.faultline.results.BugsPage;
import io.faultline.results.RunStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The harness catches broker bugs: short runs of a 3-node broker-impl with one seeded bug each find a loss
 * (acks=all answered after the leader's append) and a divergence (a follower that never truncates). The full score,
 * every bug and the clean broker, is `bin/faultline bugs`; its long form here runs with -Pscenarios.
 */
@DockerBacked
class SeededBugsEndToEndTest {

    /**
     * At most two short runs per bug; the hunt stops a bug at its first invalid run. Behind -Pscenarios: whether a
     * randomly timed fault lands where the bug shows is chance, and in a CI run follower-no-truncate escaped both
     * of its runs (valid, valid), so as a default-suite test it would fail at random.
     */
    @Test
    @EnabledIfSystemProperty(named = "faultline.scenarios", matches = "true")
    void lossAndDivergenceBugsAreDetectedByShortRuns(@TempDir Path store) throws Exception {
        BugHunt.Plan full = BugHunt.plan(List.of("acks-all-leader-only", "follower-no-truncate"), 2,
                BugHunt.Shape.defaults(30), 1130);
        // the clean broker under this mix is in the default suite already (BrokerImplClusterEndToEndTest)
        BugHunt.Plan plan = new BugHunt.Plan(full.seed(), full.bugs(), Map.of());
        BugsPage.Input score = hunt(plan, store);

        var loss = score.bugs().get(0);
        assertTrue(loss.detected(), "acks-all-leader-only: " + loss.attempts());
        assertTrue(loss.categories().stream().anyMatch(c -> List.of("lost-write", "inconsistent-offsets").contains(c)),
                "a loss: " + loss.categories());
        var divergence = score.bugs().get(1);
        assertTrue(divergence.detected(), "follower-no-truncate: " + divergence.attempts());
        assertDetectionReplays(divergence, "follower-no-truncate");
        assertDetectionReplays(loss, "acks-all-leader-only");
        assertTrue(Files.readString(BugsPage.write(score, store.resolve("bugs"))).contains("2 of 2 seeded bugs detected"));
    }

    /** Every seeded bug detected and no false alarm on the clean broker: the bar of `bugs --seeds 3` (long). */
    @Test
    @EnabledIfSystemProperty(named = "faultline.scenarios", matches = "true")
    void everySeededBugIsDetectedAndTheCleanBrokerIsValid(@TempDir Path store) throws Exception {
        BugsPage.Input score = hunt(BugHunt.plan(List.of(), 3, BugHunt.Shape.defaults(30), 1130), store);
        for (var b : score.bugs()) assertTrue(b.detected(), b.name() + ": " + b.attempts());
        assertEquals(0, score.falseAlarms(), "false alarms: " + score.clean());
    }

    private static BugsPage.Input hunt(BugHunt.Plan plan, Path store) {
        var runStore = new RunStore(store);
        var log = new PrintStream(new ByteArrayOutputStream(), true);
        return BugHunt.run(plan, (c, mix) -> new TestRunner(c, runStore, log, BugHunt.schedule(mix)).run(), System.err, "test");
    }

    /** The detecting run's test.json carries the bug, so `replay RUN_DIR` runs the same broker again. */
    private static void assertDetectionReplays(BugsPage.Bug bug, String name) throws Exception {
        Path run = Path.of(bug.detection().orElseThrow().runDir());
        TestConfig stored = StoredRun.configOf(run.resolve("test.json"), StoredRun.readTestJson(run));
        assertEquals(List.of(name), SeededBugCatalog.switchedOn(stored));
        assertEquals("true", stored.brokerProperties().get(SeededBugCatalog.ALLOWED));
        assertEquals(bug.detection().orElseThrow().seed(), stored.seed());
    }
}
