package io.faultline.harness;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A scenario run's test.json holds what `replay` needs to repeat it: the scenario, its settings and broker-props. */
class ScenarioReplayTest {
    /** test.json as TestRunner writes it for this scenario run, through the JSON file and back. */
    private static Map<String, Object> storedTestJson(Path dir, Scenario s, TestConfig config) throws Exception {
        var json = StoredRun.testJson(config.testName(), config, Instant.parse("2026-11-30T18:00:00Z"), "test");
        json.putAll(ScenarioSchedule.factory(s).testJsonEntries());
        Files.createDirectories(dir);
        StoredRun.JSON.writeValue(dir.resolve("test.json").toFile(), json);
        return StoredRun.readTestJson(dir);
    }

    @Test
    void replayOfAScenarioRunRepeatsItsScriptSettingsAndBrokerProperties(@TempDir Path dir) throws Exception {
        Scenario s = Scenarios.named("kip-101-loss");
        TestConfig config = ScenarioCommand.config(s, "broker-impl", "high-watermark", null, 42L);
        var back = storedTestJson(dir, s, config);

        assertEquals(config, StoredRun.configOf(back), "every setting, seed and broker-prop survives test.json");
        assertEquals(Map.of(TestConfig.TRUNCATION, "high-watermark"), StoredRun.configOf(back).brokerProperties());
        assertEquals(s, ScenarioSchedule.of(back).orElseThrow());
        var factory = ReplayCommand.scheduleOf(back);
        assertEquals(ScenarioSchedule.factory(s).testJsonEntries(), factory.testJsonEntries(),
                "replay builds the scenario's schedule, which records the same scenario again");
        TestConfig replayed = StoredRun.configOf(back);
        assertEquals(s.expectationFor("broker-impl", "high-watermark"),
                s.expectationFor(replayed.sut(), replayed.truncation().orElse(null)),
                "the replay states the same expectation: the truncation mode comes back from broker-props");
        assertTrue(s.expectationFor("broker-impl", "high-watermark") != s.expectationFor("broker-impl", null));
    }

    @Test
    void aRunOfRandomFaultsReplaysItsSeedsSchedule(@TempDir Path dir) throws Exception {
        TestConfig config = new TestConfig("apache-kafka", 3, "queue", List.of("partition"), 30, 10, 2, 1, "all", false,
                1, 3, false, "assign", 5, 7L, 10, 30);
        var json = StoredRun.testJson(config.testName(), config, Instant.EPOCH, "test");
        assertTrue(ScenarioSchedule.of(json).isEmpty());
        assertEquals(Map.of(), ReplayCommand.scheduleOf(json).testJsonEntries(), "no scenario entry: the random schedule");
    }

    @Test
    void aScenarioThisBuildCannotRepeatIsOneClearError(@TempDir Path dir) throws Exception {
        Scenario s = Scenarios.named("acks-1-failover");
        var json = new LinkedHashMap<>(storedTestJson(dir, s, ScenarioCommand.config(s, "apache-kafka", null, null, 1L)));
        json.put("scenario", Map.of("name", "acks-1-failover", "script", List.of("wait 1 s", "kill -9 the leader")));
        var changed = assertThrows(IllegalArgumentException.class, () -> ScenarioSchedule.of(json));
        assertTrue(changed.getMessage().contains("a replay would not repeat it"), changed.getMessage());
        json.put("scenario", Map.of("name", "no-such"));
        var unknown = assertThrows(IllegalArgumentException.class, () -> ScenarioSchedule.of(json));
        assertTrue(unknown.getMessage().contains("unknown scenario 'no-such'"), unknown.getMessage());
        json.put("scenario", "acks-1-failover");
        assertThrows(IllegalArgumentException.class, () -> ScenarioSchedule.of(json));
    }

    @Test
    void replayOfAScenarioRunsScheduleFileSaysToReplayTheRunFolder(@TempDir Path dir) throws Exception {
        Scenario s = Scenarios.named("min-isr-1");
        TestConfig config = ScenarioCommand.config(s, "apache-kafka", null, null, 5L);
        storedTestJson(dir, s, config);
        ScheduleFile.of(config, null, List.of(), "run " + dir).write(dir.resolve(ScheduleFile.RUN_FILE));
        var r = CliTestSupport.run("replay", "--schedule", dir.resolve(ScheduleFile.RUN_FILE).toString());
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode(), r.err());
        assertTrue(r.err().strip().lines().count() == 1 && r.err().contains("replay the run folder"), r.err());
    }

    @Test
    void aCutsRolesPrintSortedAndAStoredScriptInAnotherOrderStillReplays() {
        var cut = new Scenario.Step.Cut(Set.of(Scenario.Role.LEADER), Set.of(Scenario.Role.OTHERS, Scenario.Role.FOLLOWERS));
        assertEquals("cut [LEADER] from [FOLLOWERS, OTHERS]", cut.toString(), "a Set's order changes between JVMs");
        Scenario s = Scenarios.named("deposed-leader-returns");
        var stored = new java.util.ArrayList<>(ScenarioSchedule.script(s));
        stored.set(1, "cut [LEADER] from [OTHERS, FOLLOWERS]"); // as a run stored before the sort
        assertEquals(s, ScenarioSchedule.of(Map.of("scenario", Map.of("name", s.name(), "script", stored))).orElseThrow());
    }

    @Test
    void followersAreOrderedAsAnElectionTakesThemEvenWhereTheMetadataLosesTheAssignmentOrder() {
        assertEquals(List.of(3, 2, 1), ScenarioSchedule.electionOrder(List.of(3, 2, 1), List.of(1, 2, 3), true),
                "replicas in assignment order: taken as they are");
        assertEquals(List.of(3, 2, 1), ScenarioSchedule.electionOrder(List.of(1, 2, 3), List.of(3, 2, 1), false),
                "before 0.11 the replicas come as a set: the full ISR, first written in assignment order, gives it");
        assertEquals(List.of(1, 2, 3), ScenarioSchedule.electionOrder(List.of(1, 2, 3), List.of(3, 2), false),
                "a shrunk ISR tells nothing more");
    }

    @Test
    void aFetchCutMakesEachReplicaDropOnlyTheNamedFetchersAndPrintsInOneOrder() {
        var cut = new Scenario.Step.CutFetches(Map.of(Scenario.Role.FOLLOWER_2, Set.of(Scenario.Role.FOLLOWER_1, Scenario.Role.LEADER),
                Scenario.Role.LEADER, Set.of(Scenario.Role.FOLLOWER_1)));
        assertEquals("cut fetches: the leader from the first follower; the second follower from the leader and the first follower",
                cut.toString(), "sorted: replay compares this text");
        var roles = Map.of(Scenario.Role.LEADER, List.of("n2"), Scenario.Role.FOLLOWER_1, List.of("n3"),
                Scenario.Role.FOLLOWER_2, List.of("n1"));
        assertEquals(Map.of("n2", Set.of("n1"), "n3", Set.of("n1", "n2")), ScenarioSchedule.fetchGrudge(cut, roles).drops(),
                "the first follower drops both fetchers, the leader only the second follower");
        assertThrows(IllegalArgumentException.class, () -> new Scenario.Step.CutFetches(
                Map.of(Scenario.Role.LEADER, Set.of(Scenario.Role.LEADER))));
        Scenario s = Scenarios.named("kip-101-failover");
        assertEquals(List.of("partition", "kill"), s.packages(), "a fetch cut acts through the partition package");
        assertTrue(ScenarioSchedule.script(s).contains("wait 0.2 s"), "a sub-second wait prints as such");
        assertEquals(s, ScenarioSchedule.of(Map.of("scenario", Map.of("name", s.name(), "script", ScenarioSchedule.script(s)))).orElseThrow());
    }

    @Test
    void aDivergenceRunReplaysTheVariantItRan(@TempDir Path dir) throws Exception {
        Scenario cut = Scenarios.divergence(false), power = Scenarios.divergence(true);
        assertTrue(cut.summary().contains("byte cutting") && power.summary().contains("power-loss filesystem"),
                "the text says which way the tail was lost");
        assertEquals(List.of("kill", "disk"), cut.packages());
        assertEquals(List.of("kill", "power"), power.packages(), "power: the cluster starts on lazyfs");
        assertEquals(Scenarios.FLUSH_EVERY_5_SECONDS, ScenarioCommand.config(power, "broker-impl", null, null, 1L)
                .brokerProperties(), "the scenario's flush interval reaches the brokers");
        var json = storedTestJson(dir.resolve("cut"), cut, ScenarioCommand.config(cut, "broker-impl", "high-watermark", null, 9L));
        assertEquals(cut, ScenarioSchedule.of(json).orElseThrow());
        json = storedTestJson(dir.resolve("power"), power, ScenarioCommand.config(power, "broker-impl", null, null, 9L));
        assertEquals(power, ScenarioSchedule.of(json).orElseThrow());
        assertEquals(Scenarios.FLUSH_EVERY_5_SECONDS, StoredRun.configOf(json).brokerProperties());
    }

    @Test
    void aScenariosOneKeyNeverRetiresWhileRandomRunsKeepJepsensLimit() {
        int jepsen = io.faultline.workloads.queue.QueueOps.Options.defaults().maxWritesPerKey();
        TestRunner.FaultScheduleFactory random = NemesisSchedule::create;
        assertEquals(jepsen, random.maxWritesPerKey());
        assertTrue(ScenarioSchedule.factory(Scenarios.named("acks-1-failover")).maxWritesPerKey() >= 1000 * jepsen,
                "the script's partition keeps receiving writes after the faults, so a lost tail is proven");
    }

    @Test
    void eachScenarioRunsWithThePackagesItsScriptActsThrough() {
        assertEquals(List.of("partition", "kill"), Scenarios.named("acks-1-failover").packages());
        for (Scenario s : Scenarios.ALL) {
            TestConfig c = ScenarioCommand.config(s, "broker-impl", null, null, 3L);
            assertEquals(s.packages(), c.nemesis(), s.name());
            assertEquals(c, TestConfig.fromMap(c.asMap()), s.name() + " survives test.json");
        }
    }
}
