package io.faultline.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.ManualTime;
import io.faultline.broker.metadata.MetadataDelta;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord;
import io.faultline.broker.metadata.MetadataRecord.PartitionChangeRecord;
import io.faultline.broker.metadata.MetadataRecord.PartitionRecord;
import io.faultline.broker.storage.LogConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Roles come only from committed metadata: applyDelta creates, re-roles and removes the local partitions. */
class PartitionManagerTest {
    private static final int SELF = 1;
    @TempDir
    Path dir;
    private PartitionManager pm;
    private MetadataImage image = MetadataImage.EMPTY;
    private final Uuid id = Uuid.randomUuid();

    @BeforeEach
    void open() throws Exception {
        pm = new PartitionManager(SELF, LogStore.open(dir, tp -> LogConfig.DEFAULT, new ManualTime()), dir,
                new ManualTime());
    }

    @AfterEach
    void close() {
        pm.close();
    }

    private void commit(MetadataRecord... records) {
        MetadataImage next = image.apply(image.offset() + 1, List.of(records));
        pm.applyDelta(MetadataDelta.between(image, next), next);
        image = next;
    }

    private Partition partition(int p) {
        return pm.get(new TopicPartition("t", p)).orElseThrow();
    }

    private static MemoryRecords batch() {
        return MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes()));
    }

    @Test
    void leadersAndFollowersTakeTheEpochsReplicasAndIsrTheMetadataCarries() {
        commit(new MetadataRecord.TopicRecord("t", id),
                new PartitionRecord(id, 0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 5, 7),
                new PartitionRecord(id, 1, List.of(2, 1), List.of(2, 1), 2, 3, 3),
                new PartitionRecord(id, 2, List.of(2, 3), List.of(2, 3), 2, 0, 0));
        assertEquals(new PartitionRole.Leader(5, 7, List.of(1, 2, 3), Set.of(1, 2, 3)), partition(0).role());
        assertEquals(new PartitionRole.Follower(3, 3, 2, List.of(2, 1), Set.of(2, 1)), partition(1).role());
        assertTrue(pm.get(new TopicPartition("t", 2)).isEmpty(), "not a replica: not hosted here");
        assertEquals(id, partition(0).topicId());

        // a follower takes no produce and serves no consumer
        assertThrows(NotLeaderOrFollowerException.class, () -> partition(1).appendAsLeader(batch()));
        assertThrows(NotLeaderOrFollowerException.class, () -> partition(1).read(0, 1000, true, -1));
        assertThrows(NotLeaderOrFollowerException.class, () -> partition(1).requireLeader());
        partition(0).appendAsLeader(batch());
        assertEquals(5, partition(0).log().latestEpoch().orElseThrow(), "appends carry the committed epoch");

        // ISR shrink (partition epoch only), then leadership moves in both directions
        commit(new PartitionChangeRecord(id, 0, Optional.of(List.of(1, 2)), OptionalInt.empty(), 5, 8),
                new PartitionChangeRecord(id, 1, Optional.empty(), OptionalInt.of(1), 4, 4));
        assertEquals(new PartitionRole.Leader(5, 8, List.of(1, 2, 3), Set.of(1, 2)), partition(0).role());
        assertTrue(partition(1).isLeader());
        assertEquals(4, partition(1).leaderEpoch());
        commit(new PartitionChangeRecord(id, 0, Optional.empty(), OptionalInt.of(2), 6, 9));
        assertEquals(new PartitionRole.Follower(6, 9, 2, List.of(1, 2, 3), Set.of(1, 2)), partition(0).role());
        assertEquals(image, pm.image());
    }

    @Test
    void deletingATopicRemovesItsLogsAndARecreatedTopicStartsEmpty() throws Exception {
        commit(new MetadataRecord.TopicRecord("t", id), new PartitionRecord(id, 0, List.of(1), List.of(1), 1, 0, 0));
        partition(0).appendAsLeader(batch());
        assertTrue(Files.isDirectory(dir.resolve("t-0")));
        commit(new MetadataRecord.RemoveTopicRecord(id));
        assertTrue(pm.get(new TopicPartition("t", 0)).isEmpty());
        assertFalse(pm.all().iterator().hasNext());

        Uuid again = Uuid.randomUuid();
        commit(new MetadataRecord.TopicRecord("t", again), new PartitionRecord(again, 0, List.of(1), List.of(1), 1, 0, 0));
        assertEquals(again, partition(0).topicId());
        assertEquals(0, partition(0).log().logEndOffset(), "nothing of the deleted topic survives");
    }

    @Test
    void aStaleEpochIsIgnoredWithoutStoppingTheRest() {
        commit(new MetadataRecord.TopicRecord("t", id),
                new PartitionRecord(id, 0, List.of(1), List.of(1), 1, 4, 4));
        Partition p = partition(0);
        assertThrows(IllegalStateException.class, () -> p.makeLeader(3, 0, List.of(1), Set.of(1)));
        assertThrows(IllegalStateException.class, () -> p.makeLeader(4, 3, List.of(1), Set.of(1)),
                "same leader epoch, older partition epoch");
        assertEquals(4, p.leaderEpoch());
    }
}
