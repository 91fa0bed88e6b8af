package io.faultline.harness;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad flags get one clear line and exit code 2, before anything starts. */
class CliFlagsTest {
    private static void assertOneLineError(CliTestSupport.CliResult r, String expected) {
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode());
        String err = r.err().strip();
        assertEquals(1, err.lines().count(), "one line, got: " + err);
        assertTrue(err.startsWith("faultline: "), err);
        assertTrue(err.contains(expected), "expected '" + expected + "' in: " + err);
        assertTrue(!err.contains("Exception") && !err.contains("\tat "), "no stack trace: " + err);
    }

    @Test
    void unknownFlagIsOneLine() {
        assertOneLineError(CliTestSupport.run("test", "--acks-mode", "1"), "--acks-mode");
    }

    @Test
    void badValuesAreExplained() {
        assertOneLineError(CliTestSupport.run("test", "--acks", "2"), "--acks must be 0, 1 or all");
        assertOneLineError(CliTestSupport.run("test", "--nodes", "abc"), "--nodes");
        assertOneLineError(CliTestSupport.run("test", "--nemesis", "partition,meteor"), "unknown --nemesis package 'meteor'");
        assertOneLineError(CliTestSupport.run("test", "--rf", "3", "--min-isr", "4"), "--min-isr must be between 1 and --rf");
        assertOneLineError(CliTestSupport.run("test", "--sut", "redis"), "--sut must be apache-kafka or broker-impl");
        assertOneLineError(CliTestSupport.run("campaign", "--nemesis", "kill+flood"), "unknown --nemesis package 'flood'");
        assertOneLineError(CliTestSupport.run("analyze", "/nonexistent/run"), "/nonexistent/run");
    }

    @Test
    void replayAndShrinkRefuseWhatTheyCannotUse(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        assertOneLineError(CliTestSupport.run("replay"), "replay needs a RUN_DIR or --schedule FILE");
        assertOneLineError(CliTestSupport.run("replay", "--schedule", dir.resolve("none.json").toString()), "no schedule file");
        var config = new TestOptions().toConfig();
        StoredRun.JSON.writeValue(dir.resolve("test.json").toFile(), StoredRun.testJson("t", config, java.time.Instant.EPOCH, "x"));
        assertOneLineError(CliTestSupport.run("shrink", dir.toString()), "has no results.json");
        java.nio.file.Files.writeString(dir.resolve("results.json"), "{\"verdict\":\"VALID\",\"checks\":{}}");
        assertOneLineError(CliTestSupport.run("shrink", dir.toString()), "is VALID, not invalid: nothing to shrink");
        java.nio.file.Files.writeString(dir.resolve("results.json"), "{\"verdict\":\"INVALID\",\"checks\":{}}");
        assertOneLineError(CliTestSupport.run("shrink", dir.toString()), "has no schedule.json");
        assertOneLineError(CliTestSupport.run("shrink", dir.toString(), "--budget", "0"), "--budget must be at least 1 minute");
    }

    @Test
    void replicationFollowsClusterSizeUnlessGiven() {
        var one = new TestOptions();
        one.shape.nodes = 1;
        TestConfig c = one.toConfig();
        assertEquals(1, c.replicationFactor());
        assertEquals(1, c.minIsr());
        var five = new TestOptions();
        TestConfig d = five.toConfig();
        assertEquals(3, d.replicationFactor());
        assertEquals(2, d.minIsr());
    }

    @Test
    void configSurvivesTestJson() {
        var o = new TestOptions();
        o.shape.seed = 42L;
        TestConfig c = o.toConfig();
        var json = StoredRun.testJson("t", c, java.time.Instant.EPOCH, "x");
        var read = StoredRun.JSON.convertValue(json, java.util.Map.class);
        @SuppressWarnings("unchecked")
        TestConfig back = StoredRun.configOf((java.util.Map<String, Object>) read);
        assertEquals(c, back);
        assertEquals(0.5, back.faultOverlap(), "the random mix overlaps faults by default, and a replay does too");
    }

    @Test
    void aRunStoredBeforeOverlapsReplaysWithoutThem() {
        var c = new TestOptions().toConfig();
        var params = new java.util.LinkedHashMap<>(c.asMap());
        params.remove("fault-overlap");
        assertEquals(0.0, TestConfig.fromMap(params).faultOverlap());
        assertOneLineError(CliTestSupport.run("test", "--fault-overlap", "1.5"), "--fault-overlap must be between 0 and 1");
    }

    @Test
    void bulkSendsAreOnByDefaultForTheQueuesAndARunStoredBeforeThemReplaysWithout() {
        var c = new TestOptions().toConfig();
        assertEquals(0.02, c.bulkSends());
        assertEquals(0.02, c.bulkSendsInEffect(), "the plain queue sends in bulk too");
        var params = new java.util.LinkedHashMap<>(c.asMap());
        assertEquals(0.02, params.get("bulk-sends"));
        params.remove("bulk-sends");
        assertEquals(0.0, TestConfig.fromMap(params).bulkSends());
        var txn = new TestOptions();
        txn.shape.workload = "txn-queue";
        assertEquals(0.0, txn.toConfig().bulkSendsInEffect(), "the transactional queue sends its own way");
        assertFalse(new TestOptions().toConfig().withBulkSends(0).asMap().containsKey("bulk-sends"), "off: test.json as before");
        assertOneLineError(CliTestSupport.run("test", "--bulk-sends", "-1"), "--bulk-sends must be between 0 and 1");
    }

    @Test
    void campaignMatrixHasOneRunPerPointWithItsOwnSeed() {
        var campaign = new CampaignCommand();
        new picocli.CommandLine(campaign).parseArgs("--acks", "1,all", "--min-isr", "1,2", "--unclean", "false,true",
                "--nemesis", "partition,kill,pause,clock", "--seed", "5");
        var configs = campaign.configurations();
        assertEquals(32, configs.size());
        assertEquals(32, configs.stream().map(TestConfig::seed).distinct().count(), "each run has its own seed");
        assertEquals(configs, campaignConfigsWithSeed5(), "the campaign seed fixes every run's seed");
        assertTrue(configs.stream().noneMatch(c -> c.idempotence() && !"all".equals(c.acks())));
    }

    private static java.util.List<TestConfig> campaignConfigsWithSeed5() {
        var again = new CampaignCommand();
        new picocli.CommandLine(again).parseArgs("--acks", "1,all", "--min-isr", "1,2", "--unclean", "false,true",
                "--nemesis", "partition,kill,pause,clock", "--seed", "5");
        return again.configurations();
    }
}
