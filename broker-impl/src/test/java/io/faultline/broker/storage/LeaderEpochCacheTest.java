package io.faultline.broker.storage;

import static org.junit.jupiter.api.Assertions.*;

import io.faultline.broker.storage.LeaderEpochCache.EpochEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaderEpochCacheTest {
    @TempDir
    Path dir;

    @Test
    void assignIgnoresRepeatsAndDropsConflictingEntries() {
        LeaderEpochCache c = new LeaderEpochCache(dir);
        c.assign(2, 10);
        c.assign(2, 15); // same epoch, later offset: no-op
        c.assign(4, 20);
        assertEquals(List.of(new EpochEntry(2, 10), new EpochEntry(4, 20)), c.entries());
        c.assign(3, 18); // older epoch at a lower offset than epoch 4: epoch 4 is removed (data wins)
        assertEquals(List.of(new EpochEntry(2, 10), new EpochEntry(3, 18)), c.entries());
        c.assign(3, 12); // same epoch, earlier offset: replaced
        assertEquals(List.of(new EpochEntry(2, 10), new EpochEntry(3, 12)), c.entries());
        c.assign(-1, 30); // NO_PARTITION_LEADER_EPOCH ignored
        assertEquals(Optional.of(3), c.latestEpoch());
    }

    @Test
    void endOffsetForFollowsKafkaIncludingKip279() {
        LeaderEpochCache c = new LeaderEpochCache(dir);
        assertEquals(EpochEndOffset.UNDEFINED, c.endOffsetFor(0, 5));
        c.assign(1, 0);
        c.assign(3, 10);
        c.assign(6, 25);
        assertEquals(new EpochEndOffset(6, 40), c.endOffsetFor(6, 40)); // latest: log end offset
        assertEquals(new EpochEndOffset(3, 25), c.endOffsetFor(3, 40));
        assertEquals(new EpochEndOffset(3, 25), c.endOffsetFor(5, 40)); // KIP-279: largest epoch <= 5 is 3
        assertEquals(new EpochEndOffset(1, 10), c.endOffsetFor(2, 40));
        assertEquals(new EpochEndOffset(0, 0), c.endOffsetFor(0, 40)); // below all: start of first epoch
        assertEquals(EpochEndOffset.UNDEFINED, c.endOffsetFor(7, 40));
        assertEquals(EpochEndOffset.UNDEFINED, c.endOffsetFor(-1, 40));
    }

    @Test
    void truncateFromEndAndStart() {
        LeaderEpochCache c = new LeaderEpochCache(dir);
        c.assign(1, 0);
        c.assign(2, 10);
        c.assign(3, 20);
        c.truncateFromEnd(20);
        assertEquals(List.of(new EpochEntry(1, 0), new EpochEntry(2, 10)), c.entries());
        c.truncateFromEnd(100);
        assertEquals(2, c.entries().size());
        c.assign(3, 20);
        c.truncateFromStart(15);
        assertEquals(List.of(new EpochEntry(2, 15), new EpochEntry(3, 20)), c.entries());
        c.truncateFromStart(5); // below the first entry: no change
        assertEquals(List.of(new EpochEntry(2, 15), new EpochEntry(3, 20)), c.entries());
        assertEquals(Optional.of(2), c.epochForOffset(17));
        assertEquals(Optional.empty(), c.epochForOffset(3));
    }

    @Test
    void persistsInKafkaFormatAndReloads() throws Exception {
        LeaderEpochCache c = new LeaderEpochCache(dir);
        c.assign(0, 0);
        c.assign(5, 42);
        assertEquals("0\n2\n0 0\n5 42\n", Files.readString(dir.resolve("leader-epoch-checkpoint")));
        assertEquals(c.entries(), new LeaderEpochCache(dir).entries());
        Files.writeString(dir.resolve("leader-epoch-checkpoint"), "0\n3\n0 0\n");
        assertEquals(List.of(), new LeaderEpochCache(dir).entries()); // malformed: ignored, recovery refills
        assertFalse(Files.exists(dir.resolve("leader-epoch-checkpoint.tmp")));
    }
}
