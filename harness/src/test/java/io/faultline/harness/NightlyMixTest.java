package io.faultline.harness;

import io.faultline.checker.observe.CoverageMap;
import io.faultline.checker.observe.Transition;
import io.faultline.nemesis.compose.CompositionKind;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The nightly mix's flags and plans, without a cluster. */
class NightlyMixTest {
    private static void assertOneLineError(CliTestSupport.CliResult r, String expected) {
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode());
        String err = r.err().strip();
        assertEquals(1, err.lines().count(), "one line, got: " + err);
        assertTrue(err.contains(expected), "expected '" + expected + "' in: " + err);
    }

    private static CampaignCommand campaign(String... args) {
        var c = new CampaignCommand();
        new picocli.CommandLine(c).parseArgs(args);
        return c;
    }

    @Test
    void aCampaignWithoutNemesisRunsTheNightlyMixWithSafeSettingsAndItsOwnSeedPerRun() {
        var configs = campaign("--runs", "3", "--seed", "5", "--sut", "broker-impl", "--nodes", "3").configurations();
        assertEquals(3, configs.size());
        assertEquals(3, configs.stream().map(TestConfig::seed).distinct().count());
        for (TestConfig c : configs) {
            assertEquals(NightlyMix.WORKLOAD, c.workload());
            assertEquals("all", c.acks());
            assertTrue(c.idempotence());
            assertEquals(List.of("partition", "link", "pause", "clock", "kill", "stop", "membership", "disk"), c.nemesis());
            assertEquals("2", c.producerProperties().get("linger.ms"));
            assertNull(c.producerProperties().get("batch.size"), "the queue's own per-worker batching");
            assertEquals(RunShapeOptions.DEFAULT_BULK_SENDS, c.bulkSendsInEffect(), "bursts of traffic as in every queue run");
        }
        assertEquals(0.0, campaign("--runs", "1", "--seed", "5", "--bulk-sends", "0").configurations().get(0).bulkSends());
        assertEquals(configs, campaign("--runs", "3", "--seed", "5", "--sut", "broker-impl", "--nodes", "3").configurations());
        // naming packages is the random mix, as before
        var random = campaign("--nemesis", "kill", "--seed", "5").configurations();
        assertEquals(List.of("queue", "queue"), random.stream().map(TestConfig::workload).toList());
        assertEquals(List.of("1", "all"), random.stream().map(TestConfig::acks).toList());
    }

    @Test
    void producerSettingsAreFlagsButNotTheCheckersOnes() {
        var c = campaign("--producer-prop", "linger.ms=9", "--links", "false", "--seed", "1").configurations().get(0);
        assertEquals("9", c.producerProperties().get("linger.ms"));
        assertTrue(!c.nemesis().contains("link"));
        assertOneLineError(CliTestSupport.run("test", "--mix", "nightly", "--producer-prop", "acks=1"), "producer property acks");
        assertOneLineError(CliTestSupport.run("campaign", "--mix", "nightly", "--nemesis", "kill"), "--mix nightly chooses its own faults");
        assertOneLineError(CliTestSupport.run("test", "--mix", "random", "--guided"), "--guided plans the nightly mix");
        assertOneLineError(CliTestSupport.run("test", "--mix", "nightly", "--nemesis", "pause"), "--mix nightly chooses its own faults");
        assertOneLineError(CliTestSupport.run("test", "--mix", "weekly"), "--mix must be random or nightly");
        assertOneLineError(CliTestSupport.run("test", "--mix", "nightly", "--compositions", "meteor"), "unknown composition meteor");
        assertOneLineError(CliTestSupport.run("test", "--mix", "nightly", "--fault-density", "0"), "--fault-density");
        assertOneLineError(CliTestSupport.run("test", "--mix", "nightly", "--workload", "offsets"), "drives the queue or txn-queue workload");
    }

    @Test
    void theTransactionalQueueKeepsItsShapeAndTakesTheCompositionsWithItsCoordinatorsAsTheCoordinatorRole() {
        var spec = new NightlyMix.Spec(false, 0.5, 3, NightlyMix.Spec.allCompositions(), false, null);
        TestConfig base = campaign("--nemesis", "kill", "--seed", "5").configurations().get(0);
        TestConfig txn = new TestConfig(base.sut(), base.nodes(), "txn-queue", List.of("kill"), 60, base.rate(),
                base.concurrency(), 4, base.acks(), base.idempotence(), base.minIsr(), base.replicationFactor(),
                base.unclean(), base.subVia(), base.nemesisIntervalSeconds(), 5, base.recoverySeconds(), base.drainSeconds(),
                base.flushMessages(), base.flushMs(), Map.of(), Map.of());
        TestConfig nightly = NightlyMix.configure(txn, spec);
        assertEquals("txn-queue", nightly.workload(), "its own workload, not the nightly queue");
        assertEquals(NightlyMix.packages(spec), nightly.nemesis());
        assertEquals(Map.of(), nightly.producerProperties(), "no queue producer settings on transactional producers");
        assertEquals(4, nightly.keys());
        assertEquals("10", nightly.brokerProperties().get("leader.imbalance.check.interval.seconds"),
                "the controller's preferred-leader check runs within a run");
        var own = new TestConfig(txn.sut(), txn.nodes(), txn.workload(), txn.nemesis(), 60, txn.rate(), txn.concurrency(), 4,
                txn.acks(), txn.idempotence(), txn.minIsr(), txn.replicationFactor(), txn.unclean(), txn.subVia(),
                txn.nemesisIntervalSeconds(), 5, txn.recoverySeconds(), txn.drainSeconds(), txn.flushMessages(), txn.flushMs(),
                Map.of("leader.imbalance.check.interval.seconds", "300"), Map.of());
        assertEquals("300", NightlyMix.configure(own, spec).brokerProperties().get("leader.imbalance.check.interval.seconds"),
                "a --broker-prop of the user's wins");
        // reads from the closest replica: the rack-aware selector, and consumers in each node's rack and in none
        assertEquals(Workloads.RACK_AWARE_SELECTOR, nightly.brokerProperties().get("replica.selector.class"));
        List<String> racks = Workloads.clientRacks(nightly);
        assertEquals(base.nodes() + 1, racks.size());
        assertEquals(List.of("rack1", "rack2", "rack3"), racks.subList(0, 3));
        assertEquals("", racks.get(base.nodes()));
        assertEquals(List.of(), Workloads.clientRacks(txn), "without the selector no consumer names a rack");

        var states = ComposedSchedule.transactionStates(List.of("fl1-0", "fl1-1", "__transaction_state:7", "__transaction_state:31"));
        assertEquals(List.of(7, 31), states.stream().map(io.faultline.nemesis.ClusterView.PartitionRef::partition).toList());
        assertTrue(states.stream().allMatch(r -> r.topic().equals("__transaction_state")));
        assertEquals(List.of(), ComposedSchedule.transactionStates(List.of("fl1-0", "fl1-1")), "the queue: its group's coordinator");
    }

    @Test
    void aStoredRunPlansTheSameCompositionsAgainGuidedOrNot() {
        TestConfig config = campaign("--seed", "8", "--sut", "broker-impl", "--nodes", "3", "--time-limit", "300").configurations().get(0);
        var spec = new NightlyMix.Spec(false, 0.5, 3, NightlyMix.Spec.allCompositions(), true, null);
        var stored = NightlyMix.Spec.of(Map.of(NightlyMix.TEST_JSON_KEY, spec.toJson())).orElseThrow();
        assertEquals(ComposedSchedule.plan(config, spec, 4), ComposedSchedule.plan(config, stored, 4));

        var map = new CoverageMap();
        map.record("earlier", List.of(new Transition(1, "leader-moved", "p", ""), new Transition(2, "isr-shrink", "p", "")),
                List.of(new CoverageMap.Window(CompositionKind.ROLLING_RESTART.id(), 0, 3)));
        var guided = new NightlyMix.Spec(true, 0.5, 3, NightlyMix.Spec.allCompositions(), true, null).withCoverage(map.toJson());
        var guidedBack = NightlyMix.Spec.of(Map.of(NightlyMix.TEST_JSON_KEY,
                StoredRun.JSON.convertValue(guided.toJson(), Map.class))).orElseThrow();
        var plan = ComposedSchedule.plan(config, guided, 4);
        assertEquals(plan, ComposedSchedule.plan(config, guidedBack, 4), "the stored map plans the same run");
        assertTrue(plan.stream().allMatch(c -> c.choice().startsWith("guided")));
        assertNotEquals(plan, ComposedSchedule.plan(config, spec, 4));
    }

    @Test
    void theScheduleFileShowsEveryStepOfEveryKindIncludingReplicaSetChanges() {
        TestConfig config = campaign("--seed", "9", "--sut", "broker-impl", "--nodes", "3", "--time-limit", "600").configurations().get(0);
        var spec = new NightlyMix.Spec(false, 1.0, 0, NightlyMix.Spec.allCompositions(), true, null);
        var compositions = ComposedSchedule.plan(config, spec, 4);
        assertTrue(compositions.stream().anyMatch(c -> c.kind() == CompositionKind.REPLICA_SET_CHURN), "the seed draws a churn");
        // every step but the waits becomes a planned op (a churn's replica lists once failed to resolve: no schedule.json)
        var view = ComposedSchedule.planView(compositions);
        long steps = compositions.stream().flatMap(c -> c.steps().stream())
                .filter(s -> !(s instanceof io.faultline.nemesis.compose.Step.Wait)).count();
        assertEquals(steps, view.size());
        assertTrue(view.stream().anyMatch(p -> p.packageName().equals("membership")));
        assertTrue(view.stream().allMatch(p -> String.valueOf(p.op().value()).contains(": ")), "described by the step's roles");
    }

    @Test
    void replayOfANightlyRunUsesItsStoredMix() {
        var spec = new NightlyMix.Spec(true, 0.4, 5, List.of("rolling-restart", "flapping-partition"), false, new CoverageMap().toJson());
        Map<String, Object> testJson = StoredRun.JSON.convertValue(Map.of(NightlyMix.TEST_JSON_KEY, spec.toJson()), Map.class);
        assertEquals(Map.of(NightlyMix.TEST_JSON_KEY, spec.toJson()), ReplayCommand.scheduleOf(testJson).testJsonEntries(),
                "the replay stores the same mix again, so its own replay repeats it too");
        assertEquals(Map.of(), ReplayCommand.scheduleOf(Map.of()).testJsonEntries(), "a random run replays as one");
        assertOneLineError(CliTestSupport.run("replay", "--schedule", "/nonexistent/schedule.json"), "no schedule file");
    }
}
