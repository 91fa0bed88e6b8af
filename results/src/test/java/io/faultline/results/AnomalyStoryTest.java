package io.faultline.results;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Example;
import io.faultline.checker.bench.SyntheticHistory;
import io.faultline.checker.history.Op;
import io.faultline.checker.queue.QueueChecker;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One sentence per anomaly, built from the events: examples the queue checker itself reports (a synthetic history
 * with planted anomalies), and node-log lines in broker-impl's and Apache Kafka's own wording placed around the
 * example's offset. Each category tells its own story; events that do not touch the offset stay out of it.
 */
class AnomalyStoryTest {
    private static final long S = 1_000_000_000L;
    private static final Instant STARTED = Instant.parse("2026-12-01T21:00:00Z");
    private static final java.util.Map<String, Example> FIRST = new java.util.HashMap<>();

    /** The checker's golden histories (QueueGoldenTest): between them they plant every kind of anomaly. */
    @BeforeAll
    static void checkHistoriesWithPlantedAnomalies() {
        for (int[] seedAndSize : new int[][]{{11, 20_000}, {12, 60_000}, {13, 60_000}}) {
            if (FIRST.keySet().containsAll(List.of("lost-write", "inconsistent-offsets", "duplicate"))) break;
            List<Op> history = SyntheticHistory.generate(seedAndSize[0], seedAndSize[1], 6, true).ops();
            CheckResult checked = QueueChecker.forRun(false).check(history);
            checked.examples().forEach((category, list) -> {
                // offsets of at least 2, so the events placed below them are real offsets
                list.stream().filter(x -> AnomalyStory.of(x) == null || AnomalyStory.of(x).offsets().get(0) >= 2)
                        .findFirst().ifPresent(x -> FIRST.putIfAbsent(category, x));
            });
        }
    }

    private static Example firstOf(String category) {
        assertTrue(FIRST.containsKey(category), "the checker reports a " + category + " example: " + FIRST.keySet());
        return FIRST.get(category);
    }

    private static StateEvents.Event line(String node, double seconds, String text) {
        List<StateEvents.Event> parsed = StateEvents.parse(node, STARTED.plusMillis(Math.round(seconds * 1000)), text);
        assertTrue(!parsed.isEmpty(), "a state line: " + text);
        return parsed.get(parsed.size() - 1);
    }

    private static StateTimeline timeline(StateEvents.Event... events) {
        List<StateEvents.Event> sorted = new ArrayList<>(List.of(events));
        sorted.sort(java.util.Comparator.comparing(StateEvents.Event::at));
        return new StateTimeline(sorted, STARTED, 120 * S, FaultBands.of(List.of()), p -> "#888888");
    }

    /** The sentence without its links. */
    private static String text(String html) {
        return html.replaceAll("<[^>]+>", "");
    }

    @Test
    void theCheckersExplanationsAreReadForOffsetsValuesAndTheWriter() {
        var inconsistent = AnomalyStory.of(firstOf("inconsistent-offsets"));
        assertNotNull(inconsistent, firstOf("inconsistent-offsets").explanation());
        assertEquals(1, inconsistent.offsets().size());
        assertEquals(2, inconsistent.values().size());
        var lost = AnomalyStory.of(firstOf("lost-write"));
        assertNotNull(lost, firstOf("lost-write").explanation());
        assertEquals(firstOf("lost-write").ops().get(0), lost.writerOp());
        var duplicate = AnomalyStory.of(firstOf("duplicate"));
        assertNotNull(duplicate, firstOf("duplicate").explanation());
        assertTrue(duplicate.offsets().size() >= 2, duplicate.toString());
        assertEquals(null, AnomalyStory.of(new Example("G1a", 1, "a poll returned a failed send", List.of())));
        var unseen = AnomalyStory.of(new Example("unseen", 4, "key 4: value 17 was acknowledged at offset 9 (op 30) but no"
                + " poll ever returned it", List.of(30L)));
        assertEquals(new AnomalyStory.Subject("unseen", 4, List.of(9L), List.of(17L), 30L, true), unseen);
    }

    @Test
    void anInconsistentOffsetIsTheTruncationBelowItAndTheElectionThatWroteThereAgain() {
        Example x = firstOf("inconsistent-offsets");
        var s = AnomalyStory.of(x);
        long o = s.offsets().get(0);
        String p = "fl1-" + s.key() + "-0";
        StateTimeline t = timeline(
                line("n2", 31.2, p + ": follower of 1 in epoch 2; truncating to our high watermark " + o),
                line("n2", 33.0, p + ": leader in epoch 3 from offset " + o + " (ISR [2])"),
                line("n1", 32.0, p + ": leader in epoch 4 from offset " + (o + 50) + " (ISR [1])"), // starts above it
                line("n3", 32.5, "fl1-" + (s.key() + 1) + "-0: follower of 1 in epoch 2; truncating to our high watermark 0"));
        String why = t.why(x, 34 * S, 35 * S, null);
        assertEquals("Why, from the node logs: Offset " + o + " of key " + s.key() + " holds two values ("
                + s.values().get(0) + " and " + s.values().get(1) + "): n2 truncated " + p + " to " + o
                + " at 31.2 s (high watermark), then n2 led epoch 3 from 33.0 s starting at offset " + o
                + ", so a second value was written at offset " + o + ".", text(why));
        assertTrue(why.contains("<a href=\"#state-ev-0\">n2 truncated"), "the truncation links to its row: " + why);
    }

    @Test
    void aLostWriteIsItsAcknowledgementTheLastReplicaThatHeldItAndTheLeaderThatWroteOverIt() {
        Example x = firstOf("lost-write");
        var s = AnomalyStory.of(x);
        long o = s.offsets().get(0);
        String p = "fl1-" + s.key() + "-0";
        StateTimeline t = timeline(
                // before the acknowledgement: not what removed it
                line("n3", 12.0, "Truncating partition " + p + " with TruncationState(offset=0, completed=true) due to"
                        + " local high watermark 0 (kafka.server.ReplicaFetcherThread)"),
                line("n2", 31.0, "[Broker id=2] Leader " + p + " with topic id Some(abc) starts at leader epoch 3 from"
                        + " offset " + (o - 2) + " with partition epoch 3, high watermark " + (o - 2) + ", ISR [2,1], adding"
                        + " replicas [] and removing replicas [] ."),
                line("n3", 31.3, "Truncating partition " + p + " with TruncationState(offset=" + (o - 1) + ", completed=true)"
                        + " due to leader epoch and offset EpochEndOffset(errorCode=0, partition=0, leaderEpoch=3)"),
                line("n1", 31.6, "Truncating partition " + p + " with TruncationState(offset=" + (o - 2) + ", completed=true)"
                        + " due to leader epoch and offset EpochEndOffset(errorCode=0, partition=0, leaderEpoch=3)"),
                line("n2", 32.0, "[Broker id=2] Leader " + p + " with topic id Some(abc) starts at leader epoch 4 from"
                        + " offset " + (o + 9) + " with partition epoch 4, high watermark " + (o + 9) + ", ISR [2], adding"
                        + " replicas [] and removing replicas [] ."));
        String why = text(t.why(x, 30 * S, 40 * S, Math.round(30.8 * S)));
        assertEquals("Why, from the node logs: Value " + s.values().get(0) + " at offset " + o + " of key " + s.key()
                + " was " + (s.acked() ? "acknowledged" : "written (its send's outcome unknown)") + " at 30.8 s (op "
                + s.writerOp() + "); n3 truncated " + p + " to " + (o - 1) + " at 31.3 s (diverging epoch); the last"
                + " replica that held it, n1, truncated " + p + " to " + (o - 2) + " at 31.6 s (diverging epoch); n2 led"
                + " epoch 3 from 31.0 s starting at offset " + (o - 2) + ", at or below offset " + o + ", and wrote over it.",
                why);
    }

    @Test
    void aDuplicateIsTheLeaderChangeBetweenItsTwoOffsets() {
        Example x = firstOf("duplicate");
        var s = AnomalyStory.of(x);
        long a = s.offsets().get(0), b = s.offsets().get(1);
        String p = "fl1-" + s.key() + "-0";
        StateTimeline t = timeline(
                line("n3", 20.0, p + ": leader in epoch 1 from offset " + a + " (ISR [3, 1])"), // at the first offset
                line("n1", 21.5, p + ": leader in epoch 2 from offset " + b + " (ISR [1])"));
        String why = text(t.why(x, 22 * S, 23 * S, null));
        assertEquals("Why, from the node logs: Value " + s.values().get(0) + " of key " + s.key() + " is at offsets " + a
                + " and " + b + ": between them the partition changed leader (n1 led epoch 2 from 21.5 s starting at"
                + " offset " + b + "), and the value was written again under the new leader.", why);
    }

    @Test
    void withoutAnEventAtTheOffsetTheEventsNearItAreListedAsBefore() {
        Example x = firstOf("inconsistent-offsets");
        var s = AnomalyStory.of(x);
        String p = "fl1-" + s.key() + "-0";
        long above = s.offsets().get(0) + 100;
        StateTimeline t = timeline(line("n2", 33.0, p + ": leader in epoch 3 from offset " + above + " (ISR [2])"));
        assertEquals("Why, from the node logs: n2 led epoch 3 from 33.0 s starting at offset " + above + ".",
                text(t.why(x, 34 * S, 35 * S, null)));
    }
}
