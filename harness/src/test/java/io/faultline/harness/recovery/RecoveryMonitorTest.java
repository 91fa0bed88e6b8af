package io.faultline.harness.recovery;

import io.faultline.checker.Verdict;
import io.faultline.results.Liveness;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.faultline.harness.recovery.Observations.HEAL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How long the monitor polls, on a manual clock that only its sleeps move. */
class RecoveryMonitorTest {
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final Duration POLL = Duration.ofMillis(500);

    /** A cluster whose n3 comes back {@code recoversAfter} after the heal (never, when null). */
    private static Observation.Source cluster(Observations.ManualClock clock, Duration recoversAfter) {
        return () -> {
            double s = Duration.between(HEAL, clock.instant()).toMillis() / 1000.0;
            return recoversAfter != null && !clock.instant().isBefore(HEAL.plus(recoversAfter))
                    ? Observations.healthy(s) : Observations.n3Paused(s);
        };
    }

    private static RecoveryRecord record(RecoveryTracker.Findings f) {
        return new RecoveryRecord(new Liveness.Bounds(BOUND.toSeconds(), 1 << 20), null, 0, null, null, f, null);
    }

    @Test
    void pollsUntilEverythingIsRecoveredAndMeasuresFromTheHeal() {
        var clock = new Observations.ManualClock(HEAL);
        var monitor = new RecoveryMonitor(cluster(clock, Duration.ofSeconds(4)), clock, clock::advance, BOUND, POLL);
        clock.advance(Duration.ofSeconds(1)); // the final phase went by
        var f = monitor.finish(Duration.ofSeconds(5));
        assertEquals(HEAL.plusSeconds(4).toString(), f.allRecoveredAt());
        assertEquals(f.allRecoveredAt(), f.lastPollAt(), "it stops at the first poll that finds everything recovered");
        assertEquals(7, f.polls()); // at 1, 1.5, ..., 4 s
        assertEquals(Verdict.VALID, LivenessCheck.judge(record(f), null, List.of(), true).verdict());
    }

    @Test
    void theRecoveryWaitEndsAtTheFirstPollThatFindsEverythingRecoveredOrAtItsLength() throws Exception {
        var clock = new Observations.ManualClock(HEAL);
        var monitor = new RecoveryMonitor(cluster(clock, Duration.ofSeconds(4)), clock, clock::advance, BOUND, POLL);
        assertTrue(monitor.awaitRecovered(Duration.ofSeconds(10)));
        assertEquals(HEAL.plusSeconds(4), clock.instant(), "no longer than the cluster needed");

        var never = new Observations.ManualClock(HEAL);
        var stuck = new RecoveryMonitor(cluster(never, null), never, never::advance, BOUND, POLL);
        assertFalse(stuck.awaitRecovered(Duration.ofSeconds(10)));
        assertEquals(HEAL.plusSeconds(10), never.instant(), "the whole wait when it does not recover");
    }

    @Test
    void aClusterThatNeverRecoversIsPolledUntilTheBoundAndThenJudgedInvalid() {
        var clock = new Observations.ManualClock(HEAL);
        var monitor = new RecoveryMonitor(cluster(clock, null), clock, clock::advance, BOUND, POLL);
        var f = monitor.finish(Duration.ofSeconds(5));
        assertEquals(HEAL.plus(BOUND).toString(), f.lastPollAt());
        var l = LivenessCheck.judge(record(f), null, List.of(), true);
        assertEquals(Verdict.INVALID, l.verdict());
        assertEquals(Liveness.UNRESPONSIVE_BROKER, l.anomalies().get(0).name());
    }

    @Test
    void pollsThatTakeTimeStillEndWithOneBegunAtOrAfterTheBoundSoAStuckClusterIsJudged() {
        var clock = new Observations.ManualClock(HEAL);
        // every poll takes 0.3 s: without care the last one begins 0.1 s before the bound and decides nothing
        Observation.Source slow = () -> {
            var o = Observations.n3Paused(Duration.between(HEAL, clock.instant()).toMillis() / 1000.0);
            clock.advance(Duration.ofMillis(300));
            return o;
        };
        var f = new RecoveryMonitor(slow, clock, clock::advance, BOUND, POLL).finish(Duration.ofSeconds(5));
        assertFalse(java.time.Instant.parse(f.lastPollAt()).isBefore(HEAL.plus(BOUND)), f.lastPollAt());
        var l = LivenessCheck.judge(record(f), null, List.of(), true);
        assertEquals(Verdict.INVALID, l.verdict(), String.valueOf(l.reason()));
    }

    @Test
    void aFinalPhaseThatOutlastsTheBoundStillGetsItsSettleWindow() {
        var clock = new Observations.ManualClock(HEAL);
        // n3 comes back 93 s after the heal: after the bound, but within the settle window after a 90 s final phase
        var monitor = new RecoveryMonitor(cluster(clock, Duration.ofSeconds(93)), clock, clock::advance, BOUND, POLL);
        clock.advance(Duration.ofSeconds(90));
        var f = monitor.finish(Duration.ofSeconds(5));
        assertEquals(HEAL.plusSeconds(93).toString(), f.lastPollAt());
        var l = LivenessCheck.judge(record(f), null, List.of(), true);
        // fine at the end, but it was not serving by the bound: still a violation, named after what was wrong
        assertEquals(Verdict.INVALID, l.verdict());
        assertTrue(l.anomalies().get(0).explanation().contains("recovered only 93.0 s"), l.anomalies().get(0).explanation());
    }

    @Test
    void aSourceThatThrowsLeavesAGapNotAnError() {
        var clock = new Observations.ManualClock(HEAL);
        int[] calls = {0};
        Observation.Source flaky = () -> {
            if (calls[0]++ == 0) throw new IllegalStateException("boom");
            return Observations.healthy(Duration.between(HEAL, clock.instant()).toMillis() / 1000.0);
        };
        var f = new RecoveryMonitor(flaky, clock, clock::advance, BOUND, POLL).finish(Duration.ofSeconds(5));
        assertEquals(1, f.polls());
        assertEquals(Instant.parse(f.allRecoveredAt()), HEAL.plus(POLL));
    }
}
