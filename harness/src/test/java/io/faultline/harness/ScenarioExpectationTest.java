package io.faultline.harness;

import io.faultline.checker.Verdict;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What fast-leader-failover expects per release: a loss everywhere, a divergence only before KIP-279. */
class ScenarioExpectationTest {
    private final Scenario s = Scenarios.forRun("fast-leader-failover");

    @Test
    void aFixedReleaseMayLoseButMustNotDiverge() {
        var fixed = s.expectationFor("apache-kafka:2.1.1:zk", null);
        assertTrue(fixed.matches(Verdict.INVALID, List.of("lost-write 4")));
        assertTrue(fixed.matches(Verdict.INVALID, List.of("inconsistent-offsets 12")));
        assertFalse(fixed.matches(Verdict.INVALID, List.of("inconsistent-offsets 12", "replica-divergence 12")),
                "the replicas disagree: not what a release with KIP-279 does");
        assertTrue(fixed.describe().contains("without replica-divergence"), fixed.describe());
        assertFalse(s.expectationFor("apache-kafka", null).matches(Verdict.INVALID, List.of("replica-divergence 1")));
    }

    @Test
    void beforeKip279TheReplicasDiverge() {
        var old = s.expectationFor("apache-kafka:0.11.0.3:zk", null);
        assertTrue(old.matches(Verdict.INVALID, List.of("inconsistent-offsets 718", "replica-divergence 718")));
        assertFalse(old.matches(Verdict.INVALID, List.of("lost-write 3")), "a loss alone is not the divergence");
    }
}
