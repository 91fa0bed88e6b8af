package io.faultline.harness;

import io.faultline.checker.Verdict;
import io.faultline.harness.mutants.Mutant;
import io.faultline.harness.mutants.MutantCatalog;
import io.faultline.harness.mutants.MutationOperator;
import io.faultline.results.MutantsPage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
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

/** `mutants`: the listing, the plan's seeds and the run loop (with a fake runner: no cluster here). */
class MutantsCommandTest {

    @Test
    void listPrintsTheSeededSelectionAndRunsNothing(@TempDir Path store) throws Exception {
        var terminal = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        CliTestSupport.CliResult r;
        System.setErr(new PrintStream(terminal, true));
        try {
            r = CliTestSupport.run("mutants", "--list", "--count", "4", "--seed", "7", "--packages", "replication,group",
                    "--store", store.toString());
        } finally {
            System.setErr(saved);
        }
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(terminal.toString().startsWith("faultline: mutants seed 7 "), "the seed comes first: " + terminal);
        List<String> lines = r.out().lines().toList();
        assertEquals(4, lines.size(), r.out());
        var command = new MutantsCommand();
        command.packages = List.of("replication", "group");
        var jars = command.jars();
        MutantCatalog catalog = MutantCatalog.of(jars.brokerJar(), jars.dependencies(), command.packageNames(), MutationOperator.all());
        assertEquals(catalog.select(7, 4).stream().map(Mutant::listing).toList(), lines);
        for (String line : lines) {
            // id, class:line, operator, description
            assertTrue(line.matches("m[0-9a-f]{8}  io\\.faultline\\.broker\\.(replication|group)\\.\\S+:\\d+  [a-z-]+  .+"), line);
        }
        assertFalse(Files.exists(store.resolve("mutants")), "--list runs nothing and writes no page");

        var again = CliTestSupport.run("mutants", "--list", "--count", "4", "--seed", "7", "--packages", "replication,group");
        assertEquals(r.out(), again.out(), "the same seed lists the same mutants");
        var other = CliTestSupport.run("mutants", "--list", "--count", "4", "--seed", "8", "--packages", "replication,group");
        assertNotEquals(r.out(), other.out());
    }

    @Test
    void badFlagsAreOneLine() {
        assertOneLine(CliTestSupport.run("mutants", "--list", "--operators", "flip"), "unknown mutation operator 'flip'");
        assertOneLine(CliTestSupport.run("mutants", "--list", "--packages", "nowhere"), "no class of package io.faultline.broker.nowhere");
        assertOneLine(CliTestSupport.run("mutants", "--list", "--mutant", "m00000000"), "no mutant m00000000");
        assertOneLine(CliTestSupport.run("mutants", "--unit-tests", "some"), "--unit-tests must be package or none");
        assertOneLine(CliTestSupport.run("mutants", "--runs", "0", "--unit-tests", "none"), "--runs 0 runs only the unit tests");
    }

    private static void assertOneLine(CliTestSupport.CliResult r, String expected) {
        assertNotEquals(0, r.exitCode());
        assertTrue(r.err().contains(expected), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
    }

    private static final Mutant A = new Mutant("maaaaaaaa", "io.faultline.broker.replication.LeaderState", "hw", 10,
            MutationOperator.NEGATE_CONDITIONALS, "negated conditional");
    private static final Mutant B = new Mutant("mbbbbbbbb", "io.faultline.broker.group.ClassicGroup", "join", 20,
            MutationOperator.REMOVE_VOID_CALL, "removed call to x");
    private static final Mutant DEAD = new Mutant("mdddddddd", "io.faultline.broker.storage.LogSegment", "read", 30,
            MutationOperator.MATH, "Replaced integer addition with subtraction");

    @Test
    void planDerivesEveryRunFromTheSeedUnderTheNightlyMix() {
        var shape = MutantHunt.Shape.defaults(60);
        MutantHunt.Plan plan = MutantHunt.plan(List.of(A, B), 3, 2, shape, 99);
        Set<Long> seeds = new HashSet<>();
        plan.mutants().values().forEach(cs -> cs.forEach(c -> seeds.add(c.seed())));
        plan.clean().forEach(c -> seeds.add(c.seed()));
        assertEquals(8, seeds.size(), "every run its own seed");
        TestConfig c = plan.clean().get(0);
        assertEquals(NightlyMix.WORKLOAD, c.workload());
        // every second run of a mutant (and of the unmutated broker) is the transactional queue under the same mix
        for (var cs : plan.mutants().values()) {
            assertEquals(List.of(NightlyMix.WORKLOAD, NightlyMix.TXN_WORKLOAD, NightlyMix.WORKLOAD),
                    cs.stream().map(TestConfig::workload).toList());
            assertEquals(NightlyMix.packages(MutantHunt.spec()), cs.get(1).nemesis());
        }
        assertEquals(NightlyMix.TXN_WORKLOAD, plan.clean().get(1).workload());
        assertEquals(NightlyMix.packages(MutantHunt.spec()), c.nemesis());
        // --guided plans from the hunt's coverage map; it draws from the same compositions and fault packages
        assertTrue(MutantHunt.spec(true).guided());
        assertFalse(MutantHunt.spec().guided());
        assertEquals(NightlyMix.packages(MutantHunt.spec()), NightlyMix.packages(MutantHunt.spec(true)));
        assertEquals("broker-impl", c.sut());
        assertEquals(60, c.timeLimitSeconds());
        assertEquals(RunShapeOptions.DEFAULT_BULK_SENDS, c.bulkSendsInEffect(), "bursts of traffic, as `test --mix nightly` has");
        assertEquals(plan.seedLines(), MutantHunt.plan(List.of(A, B), 3, 2, shape, 99).seedLines());
        assertNotEquals(plan.seedLines(), MutantHunt.plan(List.of(A, B), 3, 2, shape, 100).seedLines());
        assertThrows(IllegalArgumentException.class, () -> MutantHunt.plan(List.of(A), -1, 1, shape, 1));
        assertThrows(IllegalArgumentException.class, () -> MutantHunt.plan(List.of(A), 1, -1, shape, 1));
    }

    @Test
    void withTheRandomMixEveryRunIsTheStandardTestCommand() {
        MutantHunt.Plan plan = MutantHunt.plan(List.of(A), 1, 1, MutantHunt.Shape.defaults(90), 99, false);
        TestConfig c = plan.mutants().get(A).get(0);
        // exactly what `test --sut broker-impl --nodes 3 --time-limit 90 --seed S` runs
        TestOptions typed = new TestOptions();
        new picocli.CommandLine(typed).parseArgs("--sut", "broker-impl", "--nodes", "3", "--time-limit", "90", "--seed",
                Long.toString(c.seed()));
        assertEquals(typed.toConfig(), c);
        assertEquals("queue", c.workload());
        assertEquals(List.of("partition", "kill"), c.nemesis());
        // the same hunt seed draws the same run seeds under either mix
        assertEquals(MutantHunt.plan(List.of(A), 1, 1, MutantHunt.Shape.defaults(90), 99).seedLines(), plan.seedLines());
    }

    @Test
    void aBadMixOrAGuidedRandomHuntIsOneLine() {
        var r = CliTestSupport.run("mutants", "--mix", "chaos", "--count", "1", "--seed", "1");
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode(), r.err());
        assertTrue(r.err().contains("--mix must be nightly or random, got chaos"), r.err());
        var g = CliTestSupport.run("mutants", "--mix", "random", "--guided", "--count", "1", "--seed", "1");
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, g.exitCode(), g.err());
        assertTrue(g.err().contains("--guided plans the nightly mix's compositions"), g.err());
    }

    @Test
    void eachMutantRunsUntilDetectedTheCleanBrokerEveryRunAndThePageKeepsUnitKillsApart(@TempDir Path dir) throws Exception {
        MutantHunt.Plan plan = MutantHunt.plan(List.of(A, B, DEAD), 2, 2, MutantHunt.Shape.defaults(30), 5);
        Path jarA = dir.resolve("a.jar"), jarB = dir.resolve("b.jar");
        MutantHunt.Prepare prepare = m -> switch (m.id()) {
            case "maaaaaaaa" -> new MutantHunt.Prepared(jarA, "survived", "every test passed");
            case "mbbbbbbbb" -> new MutantHunt.Prepared(jarB, "killed", "2 failing tests");
            default -> new MutantHunt.Prepared(null, "not run", "not live: does not load");
        };
        List<String> ran = new ArrayList<>();
        List<TestConfig> aRuns = plan.mutants().get(A);
        MutantHunt.Runner runner = (c, jar) -> {
            ran.add(jar == null ? "clean" : jar.getFileName().toString());
            Path runDir = Files.createDirectories(dir.resolve("run-" + ran.size()));
            // A is detected in its second run only; B never; the clean broker never
            boolean invalid = jar == jarA && c.equals(aRuns.get(1));
            return new TestRunner.Result(invalid ? Verdict.INVALID : Verdict.VALID, runDir, invalid ? 1 : 0,
                    invalid ? List.of("lost-write 3") : List.of(), List.of(), 1.5);
        };
        var out = new ByteArrayOutputStream();
        List<MutantsPage.Input> partials = new ArrayList<>();
        MutantsPage.Input score = MutantHunt.run(plan, prepare, runner, new PrintStream(out, true), "now", "setup",
                partials::add, () -> false);
        assertEquals(List.of("a.jar", "a.jar", "b.jar", "b.jar", "clean", "clean"), ran, "A stops at its detection; dead never runs");
        assertEquals(ran.size(), partials.size(), "the page is rewritten after every run");
        var rows = score.mutants();
        assertEquals(3, rows.size());
        assertTrue(rows.get(0).detected());
        assertEquals(2, rows.get(0).detectingRun());
        assertEquals(List.of("lost-write"), rows.get(0).categories());
        assertFalse(rows.get(1).detected());
        assertEquals(0, rows.get(2).attempts().size());
        assertEquals(1, score.detected());
        assertEquals(1, score.killedByUnitTests());
        assertEquals(1, score.unitSurvivors());
        assertEquals(1, score.detectedOfUnitSurvivors());
        assertEquals(0, score.detectedOfUnitKilled(), "B: the unit tests kill it, the runs miss it");
        assertEquals(2, score.shownLive(), "A detected, B killed; the dead one shows nothing");
        assertEquals(0, score.falseAlarms());
        assertEquals(2, score.clean().size());
        String log = out.toString();
        assertTrue(log.contains("faultline: mutants: run 2 (at most 8): mutant maaaaaaaa"), log);
        assertTrue(log.contains("maaaaaaaa seed " + aRuns.get(1).seed() + ": DETECTED (lost-write 3)"), log);
        assertTrue(log.contains("mdddddddd skipped: not live"), log);

        Path page = MutantsPage.write(score, dir.resolve("page"));
        String html = Files.readString(page);
        assertTrue(html.contains("1 of 3 mutants detected by the harness; 1 of the 1 that broker-impl&#39;s unit tests let through")
                || html.contains("1 of 3 mutants detected by the harness; 1 of the 1 that broker-impl's unit tests let through"), html);
        assertTrue(html.contains("id=\"mutant-maaaaaaaa\""));
        @SuppressWarnings("unchecked")
        Map<String, Object> json = StoredRun.JSON.readValue(dir.resolve("page").resolve(MutantsPage.JSON).toFile(), Map.class);
        assertEquals(1, json.get("killedByUnitTests"));
        assertEquals(2, json.get("shownLive"));
        assertTrue(html.contains("0 of the 1 they kill; 1 of the 2 shown to change behaviour"), html);
        assertEquals(5, ((Number) json.get("seed")).intValue());
    }

    @Test
    void withNoRunsOnlyTheUnitTestsJudgeEachMutant(@TempDir Path dir) {
        MutantHunt.Plan plan = MutantHunt.plan(List.of(A, B), 0, 0, MutantHunt.Shape.defaults(30), 5);
        assertEquals(0, plan.totalRuns());
        MutantHunt.Prepare prepare = m -> new MutantHunt.Prepared(dir.resolve(m.id() + ".jar"),
                m == A ? "survived" : "killed", "");
        MutantsPage.Input score = MutantHunt.run(plan, prepare, (c, jar) -> { throw new AssertionError("no run"); },
                new PrintStream(new ByteArrayOutputStream(), true), "now", "setup", p -> {}, () -> false);
        assertEquals(List.of("survived", "killed"), score.mutants().stream().map(MutantsPage.Mutant::unitTests).toList());
        assertEquals(1, score.shownLive());
    }

    @Test
    void aStoppedHuntStartsNothingMore(@TempDir Path dir) {
        MutantHunt.Plan plan = MutantHunt.plan(List.of(A, B), 2, 2, MutantHunt.Shape.defaults(30), 5);
        List<String> ran = new ArrayList<>();
        boolean[] stop = {false};
        MutantsPage.Input score = MutantHunt.run(plan, m -> new MutantHunt.Prepared(dir.resolve(m.id()), null, null),
                (c, jar) -> {
                    ran.add(String.valueOf(jar));
                    stop[0] = true; // Ctrl-C during the first run
                    return new TestRunner.Result(Verdict.UNKNOWN, null, 2, List.of(), List.of("interrupted"), 1);
                }, new PrintStream(new ByteArrayOutputStream()), "now", "setup", p -> {}, () -> stop[0]);
        assertEquals(1, ran.size());
        assertEquals(1, score.mutants().size());
        assertEquals(0, score.clean().size());
    }
}
