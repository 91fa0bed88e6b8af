package io.faultline.harness;

import io.faultline.checker.Verdict;
import io.faultline.results.BugsPage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The seeded-bug catalog, `test --bug`, and the `bugs` hunt with a stand-in runner (no Docker). */
class BugsCommandTest {
    /** The names broker-impl's SeededBug defines: a contract, so a rename on either side fails here. */
    static final List<String> CONTRACT = List.of("hw-from-leader-leo", "acks-all-leader-only", "min-isr-ignored",
            "follower-no-truncate", "election-ignores-isr", "epoch-not-bumped", "fenced-leader-serves", "read-past-hw",
            "isr-shrink-local", "dedup-not-rebuilt", "offset-commit-unreplicated", "recovery-keeps-torn-batch",
            "lso-ignores-open-txn", "markers-skipped-on-failover", "zombie-not-fenced", "aborted-index-not-recovered");

    private static void assertOneLineError(CliTestSupport.CliResult r, String expected) {
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode());
        String err = r.err().strip();
        assertEquals(1, err.lines().count(), "one line, got: " + err);
        assertTrue(err.contains(expected), "expected '" + expected + "' in: " + err);
    }

    @Test
    void catalogHasEveryContractNameWithAMixTheRunnerAccepts() {
        assertEquals(CONTRACT, SeededBugCatalog.names());
        for (var e : SeededBugCatalog.ALL) {
            TestConfig c = BugHunt.config(e.mix(), BugHunt.Shape.defaults(30), 1);
            assertEquals("broker-impl", c.sut());
            assertEquals(3, c.nodes());
            assertFalse(e.mix().nemesis().isEmpty(), e.name() + " runs under faults");
        }
        assertEquals("offsets", SeededBugCatalog.named("offset-commit-unreplicated").mix().workload(),
                "a commit's loss shows only where commits are the data");
        assertTrue(SeededBugCatalog.named("dedup-not-rebuilt").mix().idempotence());
        assertTrue(SeededBugCatalog.named("dedup-not-rebuilt").mix().nemesis().contains("kill"));
        assertTrue(SeededBugCatalog.named("recovery-keeps-torn-batch").mix().nemesis().contains("disk"));
        for (var e : SeededBugCatalog.ALL) {
            var script = e.mix().script();
            if (script.isEmpty()) continue;
            // a scripted mix runs with safe settings: the clean broker under it must stay valid
            var s = script.get().settings();
            assertEquals("all", s.acks(), e.name());
            assertFalse(s.unclean(), e.name());
            assertTrue(s.idempotence(), e.name());
            assertEquals(io.faultline.checker.Verdict.VALID, script.get().expectationFor("broker-impl", null).verdict(), e.name());
            TestConfig c = BugHunt.config(e.mix(), BugHunt.Shape.defaults(30), 1);
            assertEquals(ScenarioCommand.defaultTimeLimit(script.get()), c.timeLimitSeconds(), "the script's own time limit");
            assertEquals(script.get().packages(), c.nemesis());
        }
        assertEquals("isolated-leader", SeededBugCatalog.named("hw-from-leader-leo").mix().scenario());
        // the transaction bugs run generic mixes of the txn-queue workload: random partitions, kills and pauses, or the
        // nightly mix's compositions drawn at random; no script
        for (String txnBug : List.of("lso-ignores-open-txn", "markers-skipped-on-failover", "zombie-not-fenced",
                "aborted-index-not-recovered")) {
            var mix = SeededBugCatalog.named(txnBug).mix();
            assertEquals("txn-queue", mix.workload(), txnBug);
            assertEquals(null, mix.scenario(), txnBug + " runs no script");
            if (!mix.composed()) assertEquals(List.of("partition", "kill", "pause"), mix.nemesis(), txnBug);
        }
        var composed = SeededBugCatalog.named("markers-skipped-on-failover").mix();
        assertTrue(composed.composed());
        TestConfig c = BugHunt.config(composed, BugHunt.Shape.defaults(30), 1);
        assertEquals("txn-queue", c.workload(), "the workload keeps its own shape");
        assertEquals(NightlyMix.packages(SeededBugCatalog.Mix.COMPOSITIONS), c.nemesis());
        assertEquals(NightlyMix.Spec.allCompositions(), SeededBugCatalog.Mix.COMPOSITIONS.compositions());
        assertFalse(SeededBugCatalog.Mix.COMPOSITIONS.guided(), "drawn at random, not planned from a bug's coverage");
        assertTrue(composed.describe().contains("nightly compositions (random)"), composed.describe());
    }

    @Test
    void bugFlagSwitchesTheBugAndItsGuardOnlyOnBrokerImpl() {
        assertOneLineError(CliTestSupport.run("test", "--bug", "read-past-hw"), "apache-kafka has none: use --sut broker-impl");
        var r = CliTestSupport.run("test", "--sut", "broker-impl", "--bug", "read-past-hw", "--bug", "typo-bug");
        assertOneLineError(r, "unknown seeded bug 'typo-bug'; known: " + String.join(", ", CONTRACT));

        var options = new TestOptions();
        options.shape.sut = "broker-impl";
        options.bugs = List.of("read-past-hw", "dedup-not-rebuilt");
        TestConfig c = options.toConfig();
        assertEquals(Map.of("faultline.bug.read-past-hw", "true", "faultline.bug.dedup-not-rebuilt", "true",
                "faultline.bugs.allowed", "true"), c.brokerProperties());
        assertEquals(List.of("dedup-not-rebuilt", "read-past-hw"), SeededBugCatalog.switchedOn(c));
        // replay reads test.json's broker-props back: the same bugs run again
        assertEquals(c, TestConfig.fromMap(c.asMap()));
        assertEquals(Map.of(), SeededBugCatalog.properties(List.of()), "no bug, no guard either");
    }

    @Test
    void planDerivesEverySeedFromTheHuntsAndHasOneCleanSeriesPerDistinctMix() {
        var shape = BugHunt.Shape.defaults(30);
        BugHunt.Plan plan = BugHunt.plan(List.of(), 3, shape, 99);
        assertEquals(CONTRACT.size(), plan.bugs().size());
        Set<BugHunt.Control> mixes = new HashSet<>();
        SeededBugCatalog.ALL.forEach(e -> mixes.add(BugHunt.Control.of(e)));
        assertEquals(mixes, plan.clean().keySet());
        Set<Long> seeds = new HashSet<>();
        plan.bugs().forEach((e, cs) -> {
            assertEquals(3, cs.size());
            cs.forEach(c -> {
                seeds.add(c.seed());
                assertEquals(List.of(e.name()), SeededBugCatalog.switchedOn(c));
                assertEquals("true", c.brokerProperties().get("faultline.bugs.allowed"));
                e.brokerProperties().forEach((k, v) -> assertEquals(v, c.brokerProperties().get(k), e.name() + " " + k));
            });
        });
        plan.clean().forEach((m, cs) -> cs.forEach(c -> {
            seeds.add(c.seed());
            assertEquals(List.of(), c.brokerProperties().keySet().stream().filter(k -> k.startsWith("faultline.")).toList(),
                    "the clean broker has no switch at all");
            var expected = new java.util.TreeMap<>(m.mix().scenario() == null ? Map.<String, String>of()
                    : Scenarios.named(m.mix().scenario()).settings().brokerProps());
            if (m.mix().composed()) expected.putAll(NightlyMix.BROKER_DEFAULTS); // the nightly mix's own broker settings
            expected.putAll(m.brokerProperties());
            assertEquals(expected, c.brokerProperties(), "only the scenario's or the mix's own settings and the control's");
            assertEquals(m.mix().workload(), c.workload());
        }));
        assertEquals(3 * CONTRACT.size() + 3 * mixes.size(), seeds.size(), "every run its own seed");
        assertEquals(plan.seedLines(), BugHunt.plan(List.of(), 3, shape, 99).seedLines(), "the hunt replays from its seed");
        assertNotEquals(plan.seedLines(), BugHunt.plan(List.of(), 3, shape, 100).seedLines());

        BugHunt.Plan two = BugHunt.plan(List.of("follower-no-truncate", "epoch-not-bumped"), 2, shape, 5);
        assertEquals(List.of("follower-no-truncate", "epoch-not-bumped"),
                two.bugs().keySet().stream().map(SeededBugCatalog.Entry::name).toList());
        assertEquals(1, two.clean().size(), "both share one mix");
        assertThrows(IllegalArgumentException.class, () -> BugHunt.plan(List.of(), 0, shape, 1));

        BugHunt.Plan cleanOnly = BugHunt.plan(List.of("none"), 2, 2, shape, 5);
        assertEquals(0, cleanOnly.bugs().size());
        assertEquals(mixes, cleanOnly.clean().keySet(), "none: the clean broker under every mix");
        BugHunt.Plan bugsOnly = BugHunt.plan(List.of("read-past-hw"), 2, 0, shape, 5);
        assertEquals(1, bugsOnly.bugs().size());
        assertEquals(0, bugsOnly.clean().size());
    }

    @Test
    void huntStopsEachBugAtItsFirstDetectionAndCountsFalseAlarms(@TempDir Path dir) {
        BugHunt.Plan plan = BugHunt.plan(List.of("acks-all-leader-only", "follower-no-truncate", "epoch-not-bumped"), 3,
                BugHunt.Shape.defaults(30), 7);
        List<TestConfig> ran = new ArrayList<>();
        BugHunt.Runner runner = (c, mix) -> {
            ran.add(c);
            List<String> bugs = SeededBugCatalog.switchedOn(c);
            int nth = (int) ran.stream().filter(x -> SeededBugCatalog.switchedOn(x).equals(bugs)).count();
            if (bugs.equals(List.of("follower-no-truncate")) && nth == 2) throw new IllegalStateException("docker went away");
            boolean invalid = bugs.equals(List.of("acks-all-leader-only")) && nth == 2
                    || bugs.isEmpty() && nth == 3;
            return new TestRunner.Result(invalid ? Verdict.INVALID : Verdict.VALID, dir.resolve("run" + ran.size()),
                    invalid ? 1 : 0, invalid ? List.of("lost-write 3") : List.of(), List.of(), 100);
        };
        var out = new ByteArrayOutputStream();
        List<BugsPage.Input> partial = new ArrayList<>();
        BugsPage.Input in = BugHunt.run(plan, runner, new PrintStream(out, true), "t", partial::add, () -> false);

        assertEquals(2 + 3 + 3 + 3 * 2, ran.size(), "acks: 2 runs; follower-no-truncate: 3 (one failed); epoch: 3; clean: 3 per mix (2 mixes)");
        var acks = in.bugs().get(0);
        assertTrue(acks.detected());
        assertEquals(2, acks.runsUntilDetection());
        assertEquals(plan.bugs().values().iterator().next().get(1).seed(), acks.detection().orElseThrow().seed());
        assertEquals(List.of("lost-write"), acks.categories());
        var read = in.bugs().get(1);
        assertFalse(read.detected());
        assertEquals(3, read.attempts().size(), "a failed run is an unknown attempt, and the hunt goes on");
        assertEquals("unknown", read.attempts().get(1).verdict());
        assertEquals(1, in.falseAlarms());
        assertEquals(1, in.detected());
        assertEquals(2 + 3 + 3 + 3 * 2, partial.size(), "the page is rewritten after every run");
        assertTrue(out.toString().contains("DETECTED (lost-write 3)"), out.toString());
        assertTrue(out.toString().contains("FALSE ALARM"), out.toString());
    }

    @Test
    void noRunStartsOnceStopped(@TempDir Path dir) {
        BugHunt.Plan plan = BugHunt.plan(List.of("acks-all-leader-only"), 3, BugHunt.Shape.defaults(30), 7);
        List<TestConfig> ran = new ArrayList<>();
        BugsPage.Input in = BugHunt.run(plan, (c, mix) -> {
            ran.add(c);
            return new TestRunner.Result(Verdict.UNKNOWN, dir, 2, List.of(), List.of("interrupted"), 5);
        }, new PrintStream(new ByteArrayOutputStream()), "t", p -> {}, () -> !ran.isEmpty());
        assertEquals(1, ran.size(), "Ctrl-C during the first run: nothing more starts");
        assertEquals(1, in.bugs().get(0).attempts().size());
        assertEquals(0, in.clean().stream().mapToInt(c -> c.attempts().size()).sum());
    }

    @Test
    void bugsRefusesBadFlagsBeforeAnythingRuns() {
        assertOneLineError(CliTestSupport.run("bugs", "--only", "nope"), "unknown seeded bug 'nope'; known: hw-from-leader-leo");
        assertOneLineError(CliTestSupport.run("bugs", "--seeds", "0"), "--seeds must be at least 1");
        assertOneLineError(CliTestSupport.run("bugs", "--time-limit", "2"), "--time-limit must be at least 5");
    }
}
