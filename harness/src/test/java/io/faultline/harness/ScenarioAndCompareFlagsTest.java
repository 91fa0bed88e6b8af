package io.faultline.harness;

import io.faultline.checker.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** scenario and compare: what they refuse in one line, and what they plan, without a cluster. */
class ScenarioAndCompareFlagsTest {
    private static void assertOneLineError(CliTestSupport.CliResult r, String expected) {
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode(), r.err());
        String err = r.err().strip();
        assertEquals(1, err.lines().count(), "one line, got: " + err);
        assertTrue(err.startsWith("faultline: ") && err.contains(expected), "expected '" + expected + "' in: " + err);
    }

    @Test
    void badScenarioAndCompareFlagsAreOneLine() {
        assertOneLineError(CliTestSupport.run("scenario", "nope"), "unknown scenario 'nope'; known: acks-1-failover");
        assertOneLineError(CliTestSupport.run("scenario", "kip-101-loss", "--truncation", "high-watermark"),
                "--truncation is a broker-impl setting: Apache Kafka always truncates by leader epoch");
        assertOneLineError(CliTestSupport.run("scenario", "kip-101-loss", "--sut", "broker-impl", "--truncation", "sideways"),
                "--truncation must be leader-epoch or high-watermark");
        assertOneLineError(CliTestSupport.run("scenario", "acks-1-failover", "--sut", "redis"), "--sut must be apache-kafka or broker-impl");
        assertOneLineError(CliTestSupport.run("scenario", "acks-1-failover", "--time-limit", "5"), "shorter than the script");
        assertOneLineError(CliTestSupport.run("compare", "--sut", "apache-kafka"), "compare needs at least two systems");
        assertOneLineError(CliTestSupport.run("compare", "--sut", "apache-kafka,redis"), "--sut must be apache-kafka or broker-impl, got redis");
        assertOneLineError(CliTestSupport.run("compare", "--sut", "apache-kafka,apache-kafka"), "names apache-kafka twice");
        assertOneLineError(CliTestSupport.run("test", "--sut", "apache-kafka,broker-impl"), "test runs one system");
    }

    @Test
    void truncationAndBrokerPropertiesAreBrokerImplsAndSurviveTestJson() {
        assertOneLineError(CliTestSupport.run("test", "--truncation", "high-watermark"),
                "--truncation is a broker-impl setting: Apache Kafka always truncates by leader epoch");
        assertOneLineError(CliTestSupport.run("test", "--sut", "broker-impl", "--truncation", "sideways"),
                "--truncation must be leader-epoch or high-watermark, got sideways");
        assertOneLineError(CliTestSupport.run("test", "--broker-prop", "faultline.bug.x=true"),
                "faultline.bug.x is a broker-impl setting");
        // every broker-impl node would refuse it at start and exit: refused here, before any cluster
        assertOneLineError(CliTestSupport.run("test", "--sut", "broker-impl", "--broker-prop", "faultline.bug.read-past-hw=true"),
                "faultline.bug.read-past-hw is a seeded bug: broker-impl runs it only with faultline.bugs.allowed=true; "
                        + "use --bug read-past-hw, which sets both");
        assertOneLineError(CliTestSupport.run("compare", "--sut", "apache-kafka,broker-impl", "--truncation", "high-watermark"),
                "run one --sut at a time");

        TestConfig c = ScenarioCommand.config(Scenarios.named("kip-101-loss"), "broker-impl", "high-watermark", null, 3L);
        assertEquals(java.util.Optional.of("high-watermark"), c.truncation());
        TestConfig back = TestConfig.fromMap(c.asMap());
        assertEquals(c, back);
        var old = new java.util.LinkedHashMap<>(c.asMap());
        old.remove("broker-props");
        assertEquals(java.util.Map.of(), TestConfig.fromMap(old).brokerProperties(), "runs stored before broker-props");
    }

    @Test
    void aScenariosProducerSettingsReachTheWorkloadAndReplay() {
        TestConfig c = ScenarioCommand.config(Scenarios.named("diverged-leader-returns"), "broker-impl", null, null, 5L);
        assertEquals(java.util.Map.of("batch.size", "1"), c.producerProperties());
        assertEquals(c, TestConfig.fromMap(c.asMap()), "test.json keeps them, so replay uses them");
        assertEquals(java.util.Map.of("batch.size", "1"), Workloads.queueSettings(c).extraProducer());
        TestConfig plain = ScenarioCommand.config(Scenarios.named("deposed-leader-returns"), "broker-impl", null, null, 5L);
        assertEquals(java.util.Map.of(), Workloads.queueSettings(plain).extraProducer());
        assertFalse(plain.asMap().containsKey("producer-props"), "test.json of other runs looks as it always did");
        assertEquals(java.util.Map.of(), TestConfig.fromMap(plain.asMap()).producerProperties());
        var offsets = new java.util.LinkedHashMap<>(c.asMap());
        offsets.put("workload", "offsets");
        var e = assertThrows(IllegalArgumentException.class, () -> TestConfig.fromMap(offsets));
        assertTrue(e.getMessage().contains("queue workload only"), e.getMessage());
        var acks = new java.util.LinkedHashMap<>(c.asMap());
        acks.put("producer-props", java.util.Map.of("acks", "1"));
        e = assertThrows(IllegalArgumentException.class, () -> TestConfig.fromMap(acks));
        assertTrue(e.getMessage().contains("set by --acks"), e.getMessage());
    }

    @Test
    void scenarioListPrintsEveryScenario() {
        var r = CliTestSupport.run("scenario");
        assertEquals(FaultlineCli.EXIT_VALID, r.exitCode());
        for (Scenario s : Scenarios.ALL) assertTrue(r.out().contains(s.name() + ": "), r.out());
    }

    @Test
    void everyScenarioStatesItsSettingsAndAnExpectationForBothSystems() {
        for (Scenario s : Scenarios.ALL) {
            for (String sut : List.of("apache-kafka", "broker-impl")) {
                assertNotNull(s.expectationFor(sut, null), s.name() + " on " + sut);
            }
            TestConfig c = ScenarioCommand.config(s, "apache-kafka", null, null, 7L);
            assertEquals(s.settings().acks(), c.acks());
            assertEquals(s.settings().replicationFactor(), c.replicationFactor());
            assertEquals(s.settings().unclean(), c.unclean());
            assertEquals(1, c.keys(), "one key: every write goes to the targeted partition");
            assertTrue(c.timeLimitSeconds() >= s.scriptSeconds() + ScenarioCommand.AFTER_SCRIPT_SECONDS, s.name());
        }
        Scenario kip = Scenarios.named("kip-101-loss");
        assertEquals(Verdict.VALID, kip.expectationFor("apache-kafka", null).verdict());
        assertEquals(Verdict.INVALID, kip.expectationFor("broker-impl", "high-watermark").verdict());
        assertEquals(Verdict.VALID, kip.expectationFor("broker-impl", "leader-epoch").verdict());
        assertEquals(Verdict.INVALID, Scenarios.named("acks-1-failover").expectationFor("apache-kafka", null).verdict());
    }

    @Test
    void aLossCountsWhetherTheDrainSawItAsLostOrAsAReusedOffset() {
        var lost = Scenarios.named("acks-1-failover").expectationFor("apache-kafka", null);
        assertTrue(lost.matches(Verdict.INVALID, List.of("lost-write 281", "unseen 408")));
        assertTrue(lost.matches(Verdict.INVALID, List.of("inconsistent-offsets 2", "unseen 7")));
        assertTrue(!lost.matches(Verdict.INVALID, List.of("duplicate 3")), "another anomaly is not the expected loss");
        assertTrue(!lost.matches(Verdict.VALID, List.of()));
        var valid = Scenarios.named("kip-101-loss").expectationFor("apache-kafka", null);
        assertTrue(valid.matches(Verdict.VALID, List.of()) && !valid.matches(Verdict.INVALID, List.of("lost-write 1")));
    }

    @Test
    void aCutDropsBothWays() {
        var g = ScenarioSchedule.grudge(Set.of("n1"), Set.of("n2", "n3"));
        assertTrue(!g.connected("n1", "n2") && !g.connected("n3", "n1"));
        assertTrue(g.connected("n2", "n3"));
        assertEquals(4, g.ruleCount());
    }

    @Test
    void compareRunsTheSameSeedAndScheduleOnEachSystem() {
        var compare = new CompareCommand();
        new picocli.CommandLine(compare).parseArgs("--sut", "apache-kafka,broker-impl", "--seed", "9", "--nemesis",
                "partition,kill", "--nodes", "3");
        var plan = compare.plan();
        assertEquals(List.of("apache-kafka", "broker-impl"), plan.configs().stream().map(TestConfig::sut).toList());
        assertEquals(plan.configs().get(0).withSut("broker-impl"), plan.configs().get(1), "everything but the system is equal");
        assertEquals(9L, plan.configs().get(1).seed());

        var scenario = new CompareCommand();
        new picocli.CommandLine(scenario).parseArgs("--sut", "broker-impl,apache-kafka", "--scenario", "acks-1-failover", "--seed", "4");
        var p2 = scenario.plan();
        assertEquals("acks-1-failover", p2.scenario().name());
        assertTrue(p2.configs().stream().allMatch(c -> c.seed() == 4 && c.acks().equals("1") && c.nodes() == 3));
    }

    @Test
    void campaignTakesSeveralSystemsAsOneMoreAxisWithPairedSeeds() {
        var campaign = new CampaignCommand();
        new picocli.CommandLine(campaign).parseArgs("--sut", "apache-kafka,broker-impl", "--acks", "1,all",
                "--nemesis", "partition", "--seed", "5");
        var configs = campaign.configurations();
        assertEquals(4, configs.size());
        assertEquals(List.of("apache-kafka", "apache-kafka", "broker-impl", "broker-impl"), configs.stream().map(TestConfig::sut).toList());
        assertEquals(configs.get(0).withSut("broker-impl"), configs.get(2), "the same run on the other system");
        assertEquals("broker-impl", CampaignCommand.describe(configs.get(3)).get("sut"));
    }

    @Test
    void compareRunsPrintsOneSummaryLinePerRunLabelledByWhatDiffers(@TempDir Path dir) throws Exception {
        // two broker-impl runs in two truncation modes, one of them invalid: neither verdict may be lost in the summary
        var o = new TestOptions();
        o.shape.seed = 3L;
        Map<String, String> verdicts = Map.of("leader-epoch", "VALID", "high-watermark", "INVALID");
        for (String mode : List.of("leader-epoch", "high-watermark")) {
            Path run = Files.createDirectories(dir.resolve(mode));
            StoredRun.JSON.writeValue(run.resolve("test.json").toFile(), StoredRun.testJson("t", o.toConfig()
                    .withSut("broker-impl").withBrokerProperties(Map.of(TestConfig.TRUNCATION, mode)), java.time.Instant.EPOCH, "x"));
            Files.writeString(run.resolve("history.jsonl"), "");
            StoredRun.JSON.writeValue(run.resolve("results.json").toFile(), Map.of("verdict", verdicts.get(mode),
                    "complete", true, "summary", Map.of("anomalyCounts", Map.of("inconsistent-offsets",
                            mode.equals("high-watermark") ? 317 : 0))));
        }
        var r = CliTestSupport.run("compare", "--runs", dir.resolve("leader-epoch") + "," + dir.resolve("high-watermark"),
                "--store", dir.resolve("store").toString());
        List<String> lines = r.err().lines().filter(l -> l.startsWith("faultline: broker-impl")).toList();
        assertEquals(List.of("faultline: broker-impl · faultline.replication.truncation=leader-epoch: VALID — "
                        + dir.resolve("leader-epoch").toRealPath(),
                "faultline: broker-impl · faultline.replication.truncation=high-watermark: INVALID (inconsistent-offsets 317) — "
                        + dir.resolve("high-watermark").toRealPath()), lines, r.err());
    }

    @Test
    void compareRunsBuildsThePageFromStoredRunsOnly(@TempDir Path dir) throws Exception {
        var o = new TestOptions();
        o.shape.seed = 3L;
        for (String sut : List.of("apache-kafka", "broker-impl")) {
            Path run = Files.createDirectories(dir.resolve(sut));
            StoredRun.JSON.writeValue(run.resolve("test.json").toFile(),
                    StoredRun.testJson("t", o.toConfig().withSut(sut), java.time.Instant.EPOCH, "x"));
        }
        var r = CliTestSupport.run("compare", "--runs", dir.resolve("apache-kafka") + "," + dir.resolve("broker-impl"),
                "--store", dir.resolve("store").toString());
        assertEquals(FaultlineCli.EXIT_VALID, r.exitCode(), r.err());
        Path page = Files.list(dir.resolve("store/compare")).findFirst().orElseThrow().resolve("compare.html");
        String html = Files.readString(page);
        assertTrue(html.contains("<th>apache-kafka</th><th>broker-impl</th>"), html);
        assertTrue(html.contains("cannot read the run"), "runs without a history say so");
        assertOneLineError(CliTestSupport.run("compare", "--runs", dir.resolve("nothing").toString()), "is not a run folder");
    }
}
