package io.faultline.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.faultline.broker.replication.ReadReplicaSelector.Candidate;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ReadReplicaSelectorTest {
    private static final List<Candidate> FOLLOWERS = List.of(
            new Candidate(2, "b", 100, 0, 5), new Candidate(3, "c", 90, 0, 9), new Candidate(4, "c", 95, 10, 1));

    @Test
    void theLeaderServesAConsumerWithoutARackOrInItsOwnRack() {
        assertEquals(OptionalInt.empty(), ReadReplicaSelector.select("", "a", FOLLOWERS, 50));
        assertEquals(OptionalInt.empty(), ReadReplicaSelector.select(null, "a", FOLLOWERS, 50));
        assertEquals(OptionalInt.empty(), ReadReplicaSelector.select("b", "b", FOLLOWERS, 50));
    }

    @Test
    void aFollowerInTheConsumersRackWithTheLongestLogServesIt() {
        assertEquals(OptionalInt.of(2), ReadReplicaSelector.select("b", "a", FOLLOWERS, 50));
        assertEquals(OptionalInt.of(4), ReadReplicaSelector.select("c", "a", FOLLOWERS, 50));
        assertEquals(OptionalInt.empty(), ReadReplicaSelector.select("z", "a", FOLLOWERS, 50), "no replica in that rack");
    }

    @Test
    void onlyAFollowerHoldingTheFetchOffsetQualifies() {
        assertEquals(OptionalInt.of(3), ReadReplicaSelector.select("c", "a", FOLLOWERS, 5), "4's log starts at 10");
        assertEquals(OptionalInt.empty(), ReadReplicaSelector.select("c", "a", FOLLOWERS, 96), "neither has 96 yet");
        assertEquals(OptionalInt.of(2), ReadReplicaSelector.select("b", "a", FOLLOWERS, 100), "its log end is enough");
        List<Candidate> unknownStart = List.of(new Candidate(5, "d", 10, -1, 0));
        assertEquals(OptionalInt.of(5), ReadReplicaSelector.select("d", "a", unknownStart, 3));
    }

    @Test
    void equalLogsGoToTheMostRecentlyCaughtUp() {
        List<Candidate> tied = List.of(new Candidate(2, "b", 100, 0, 7), new Candidate(3, "b", 100, 0, 8));
        assertEquals(OptionalInt.of(3), ReadReplicaSelector.select("b", "a", tied, 0));
    }
}
