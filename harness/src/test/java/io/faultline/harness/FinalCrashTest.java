package io.faultline.harness;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which runs end their final heal with a crash of every node (see {@link TestRunner#crashAllAtHeal}). */
class FinalCrashTest {
    private static TestConfig config(String workload, String... nemesis) {
        return new TestConfig("broker-impl", 3, workload, List.of(nemesis), 10, 10, 2, 1, "all", true, 2, 3, false,
                "assign", 5, 7, 1, 1);
    }

    @Test
    void queueRunsWhoseFaultsCrashProcessesEndWithACrashOfEveryNode() {
        assertTrue(TestRunner.crashAllAtHeal(config(NightlyMix.WORKLOAD, "partition", "kill", "pause", "clock", "link"), false));
        assertTrue(TestRunner.crashAllAtHeal(config("txn-queue", "partition", "kill", "pause"), false),
                "the transactional queue too: its final reads then read what every replica rebuilt from disk");
        assertTrue(TestRunner.crashAllAtHeal(config("queue", "partition", "kill"), false),
                "and the plain queue: what `test` runs by default");
    }

    @Test
    void nearMissNoProcessFaultsAScriptPowerLossOrAnotherWorkloadKeepTheHealAsItWas() {
        String nightly = NightlyMix.WORKLOAD;
        assertFalse(TestRunner.crashAllAtHeal(config(nightly, "partition", "pause"), false), "no kill among the faults");
        assertFalse(TestRunner.crashAllAtHeal(config(nightly, "partition", "kill"), true), "a scenario's script");
        assertFalse(TestRunner.crashAllAtHeal(config(nightly, "kill", "power"), false), "data on lazyfs");
        assertFalse(TestRunner.crashAllAtHeal(config("queue", "partition", "pause"), false), "the plain queue without kills");
        assertFalse(TestRunner.crashAllAtHeal(config("txn-queue", "partition", "pause"), false), "txn-queue without kills");
        assertFalse(TestRunner.crashAllAtHeal(config("offsets", "partition", "kill"), false));
    }
}
