package io.faultline.results;

import io.faultline.checker.Example;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The state timeline from real node logs: fixtures are lines copied from a 3-node Apache Kafka 4.4 run and a
 * 3-node broker-impl run of this project (partition + kill, 30 s; the run's topic prefix shortened to fl1).
 */
class StateTimelineTest {
    private static final long S = 1_000_000_000L;

    private static Path fixture(String system) throws Exception {
        return Path.of(StateTimelineTest.class.getResource("/state-logs/" + system).toURI());
    }

    private static List<StateEvents.Event> of(List<StateEvents.Event> events, String node, StateEvents.Kind kind) {
        return events.stream().filter(e -> e.node().equals(node) && e.kind() == kind).toList();
    }

    @Test
    void kafkaLogsGiveLeadersFollowersIsrTruncationsAndFencing() throws Exception {
        var events = StateEvents.read(fixture("kafka-4.4"), ZoneOffset.UTC, p -> true);
        var n3Leader = of(events, "n3", StateEvents.Kind.LEADER);
        assertEquals(1, n3Leader.size(), events.toString());
        assertEquals("fl1-1-0", n3Leader.get(0).partition());
        assertEquals(1, n3Leader.get(0).epoch());
        assertEquals(122L, n3Leader.get(0).from());
        assertEquals(Instant.parse("2026-12-01T20:55:30.693Z"), n3Leader.get(0).at());
        assertEquals(List.of(0, 1), of(events, "n1", StateEvents.Kind.FOLLOWER).stream().map(StateEvents.Event::epoch).toList());
        var truncations = of(events, "n1", StateEvents.Kind.TRUNCATE);
        assertEquals(1, truncations.size(), "the no-op 'has no effect' line is not a truncation: " + truncations);
        assertEquals("high watermark", truncations.get(0).detail());
        assertEquals(0L, truncations.get(0).to());
        assertEquals(2, of(events, "n1", StateEvents.Kind.ISR).size(), "ISR-only changes reach the leader as skipped become-leader");
        assertFalse(of(events, "n2", StateEvents.Kind.FENCED).isEmpty(), "the controllers' fencing record of broker 2");
        assertFalse(of(events, "n2", StateEvents.Kind.UNFENCED).isEmpty());
    }

    @Test
    void brokerImplLogsGiveTheSameKindsAndOneTruncationWithItsCause() throws Exception {
        var events = StateEvents.read(fixture("broker-impl"), ZoneOffset.UTC, p -> true);
        assertEquals(List.of(0, 2, 4), of(events, "n3", StateEvents.Kind.LEADER).stream().map(StateEvents.Event::epoch).toList());
        assertEquals(1, of(events, "n3", StateEvents.Kind.ISR).size());
        var cut = of(events, "n2", StateEvents.Kind.TRUNCATE);
        assertEquals(1, cut.size(), "the diverging-epoch line and the log's own line are one truncation: " + cut);
        assertEquals(51L, cut.get(0).from());
        assertEquals(50L, cut.get(0).to());
        assertTrue(cut.get(0).detail().startsWith("diverging epoch 0"), cut.get(0).detail());
        assertEquals(1, of(events, "n1", StateEvents.Kind.FENCED).size());
    }

    @Test
    void anAnomalyIsExplainedByTheTruncationsAndElectionsOnItsPartitionJustBeforeIt() throws Exception {
        Instant started = Instant.parse("2026-12-01T20:55:10Z");
        var events = StateEvents.read(fixture("kafka-4.4"), ZoneOffset.UTC, p -> true);
        var timeline = new StateTimeline(events, started, 60 * S, FaultBands.of(List.of()), p -> "#888888");
        String why = timeline.why(new Example("lost-write", 1, "value 5 of key 1 was acknowledged but never read",
                List.of(1L)), 40 * S, 41 * S);
        assertTrue(why.startsWith("Why, from the node logs: "), why);
        assertTrue(why.contains("n3 truncated fl1-1-0 to 0 at 10.1 s (high watermark)"), why);
        assertTrue(why.contains("n3 led epoch 1 from 20.7 s starting at offset 122"), why);
        assertTrue(why.contains("n1 led epoch 2 from 32.9 s starting at offset 419"), why);
        assertFalse(why.contains("9.4 s"), "n1's truncation at 9.4 s is more than 30 s before the anomaly: " + why);
        assertTrue(why.contains("<a href=\"#state-ev-"), "each event links to its row");
        assertEquals("", timeline.why(new Example("lost-write", 7, "x", List.of()), 40 * S, 41 * S),
                "no event on key 7's partition");

        String html = timeline.html();
        assertTrue(html.contains("<svg id=\"state-timeline\""));
        for (String node : List.of("n1", "n2", "n3")) assertTrue(html.contains(">" + node + "</text>"), node + "'s lane");
        assertTrue(html.contains("became leader") && html.contains("truncated") && html.contains("fenced"));
        for (int i = 0; i < events.size(); i++) assertTrue(html.contains("id=\"state-ev-" + i + "\""), "row " + i);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"lost-write", "inconsistent-offsets", "duplicate"})
    void lossDivergenceAndDuplicationAreEachExplainedFromTheBrokerImplEvents(String category) throws Exception {
        // broker-impl fixture: n3 led fl1-1-0 in epochs 0, 2 and 4; n2 cut fl1-3-0 back on a diverging epoch
        Instant started = Instant.parse("2026-12-01T20:57:00Z");
        var events = StateEvents.read(fixture("broker-impl"), ZoneOffset.UTC, p -> true);
        var timeline = new StateTimeline(events, started, 60 * S, FaultBands.of(List.of()), p -> "#888888");
        String onKey1 = timeline.why(new Example(category, 1, "x", List.of(1L)), 55 * S, 56 * S);
        assertTrue(onKey1.contains("n1 led epoch 3 from 36.7 s starting at offset 651")
                && onKey1.contains("n3 led epoch 4 from 54.3 s starting at offset 930"), category + ": " + onKey1);
        assertFalse(onKey1.contains("epoch 2"), "n3's epoch 2 at 24.4 s is more than 30 s before: " + onKey1);
        String onKey3 = timeline.why(new Example(category, 3, "x", List.of(1L)), 40 * S, 41 * S);
        assertTrue(onKey3.contains("n2 truncated fl1-3-0 from 51 to 50 at 37.0 s (diverging epoch 0"), category + ": " + onKey3);
    }

    private static io.faultline.checker.history.Op nemesis(long index, double seconds, String f, String value) {
        return new io.faultline.checker.history.Op(index, io.faultline.checker.history.OpType.INFO,
                io.faultline.checker.history.Op.NEMESIS, Math.round(seconds * S), f, new io.faultline.checker.history.OpValue.Text(value), null);
    }

    @Test
    void killsPowerLossesAndPausesFromTheNemesisRecordAreDownAndUpEventsPerNode() {
        Instant started = Instant.parse("2026-12-01T20:55:10Z");
        var history = List.of(
                nemesis(1, 30.3, "kill", "primaries [fl1-0-0]"), // the invocation: no node named yet
                nemesis(2, 33.8, "kill", "killed [n3]"),
                nemesis(3, 40.3, "start", "started [n3]"),
                nemesis(4, 44.0, "power-off", "power lost on [n1, n2] (forgot 3 unsynced writes)"),
                nemesis(5, 47.5, "power-on", "powered on [n1, n2]"),
                nemesis(6, 50.0, "pause", "paused [n2]"),
                nemesis(7, 52.0, "resume", "resumed [n2]"),
                nemesis(8, 55.0, "start-partition", "cut {n1=[n2], n2=[n1]}"));
        var faults = StateEvents.nodeFaults(history, started);
        assertEquals(List.of("n3 DOWN killed 33.8", "n3 UP restarted 40.3", "n1 DOWN power lost 44.0",
                        "n2 DOWN power lost 44.0", "n1 UP powered on 47.5", "n2 UP powered on 47.5", "n2 DOWN paused 50.0",
                        "n2 UP resumed 52.0"),
                faults.stream().map(e -> e.node() + " " + e.kind() + " " + e.detail() + " "
                        + String.format(java.util.Locale.ROOT, "%.1f", java.time.Duration.between(started, e.at()).toMillis() / 1000.0)).toList());
        var events = StateEvents.withNodeFaults(List.of(), history, started);
        String html = new StateTimeline(events, started, 60 * S, FaultBands.of(List.of()), p -> "#888888").html();
        assertTrue(html.contains("fill=\"#212529\""), "a node's lane is black while it is down");
        assertTrue(html.contains("✕") && html.contains("↑"), "down and up marks");
        assertTrue(html.contains("<td>down</td>") && html.contains("<td>killed</td>") && html.contains("<td>power lost</td>"),
                "the table lists them");
    }

    @Test
    void aFollowerMissingFromItsPartitionsIsrIsOutOfSyncUntilItRejoins() {
        Instant started = Instant.parse("2026-12-01T20:57:00Z");
        var events = new java.util.ArrayList<StateEvents.Event>();
        events.addAll(StateEvents.parse("n3", started.plusSeconds(10), "fl1-1-0: leader in epoch 2 from offset 243 (ISR [3])"));
        events.addAll(StateEvents.parse("n1", started.plusSeconds(11), "fl1-1-0: follower of 3 in epoch 2"));
        events.addAll(StateEvents.parse("n3", started.plusSeconds(20), "fl1-1-0: ISR is now [3, 1] (partition epoch 5)"));
        assertEquals(List.of(StateEvents.Kind.LEADER, StateEvents.Kind.FOLLOWER, StateEvents.Kind.ISR),
                events.stream().map(StateEvents.Event::kind).toList());
        String lanes = new StateTimeline(events, started, 60 * S, FaultBands.of(List.of()), p -> "#888888").lanes("");
        String n1 = lanes.substring(lanes.indexOf(">n1</text>"), lanes.indexOf(">n3</text>"));
        int orange = n1.indexOf("fill=\"#f08c00\""), blue = n1.indexOf("fill=\"#4dabf7\"");
        assertTrue(orange >= 0, "n1 follows outside the ISR [3] from 11 s: " + n1);
        assertTrue(blue > orange, "and follows in sync once the ISR is [3, 1]: " + n1);
    }

    @Test
    void logsWithoutStateLinesGiveANoteNotAnError() {
        var timeline = new StateTimeline(List.of(), Instant.EPOCH, S, FaultBands.of(List.of()), p -> "#888888");
        assertTrue(timeline.html().contains("No replication state changes were found"));
        assertEquals(List.of(), StateEvents.read(Path.of("/no/such/dir"), ZoneOffset.UTC, p -> true));
    }
}
