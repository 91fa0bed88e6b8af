package io.faultline.broker.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.metadata.MetadataRecord.ClientQuotaRecord;
import io.faultline.broker.metadata.MetadataRecord.ConfigRecord;
import io.faultline.broker.metadata.MetadataRecord.FenceBrokerRecord;
import io.faultline.broker.metadata.MetadataRecord.PartitionChangeRecord;
import io.faultline.broker.metadata.MetadataRecord.PartitionRecord;
import io.faultline.broker.metadata.MetadataRecord.RegisterBrokerRecord;
import io.faultline.broker.metadata.MetadataRecord.RemoveTopicRecord;
import io.faultline.broker.metadata.MetadataRecord.TopicRecord;
import io.faultline.broker.metadata.MetadataRecord.UnfenceBrokerRecord;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

/** Replay is pure and deterministic; the binary forms round-trip; deltas name what changed. */
class MetadataImageTest {
    private static final Uuid T = new Uuid(1, 2);

    private static List<MetadataRecord> history() {
        return List.of(
                new RegisterBrokerRecord(1, new Uuid(9, 1), 10, Map.of("PLAINTEXT", new Endpoint("a", 1)), null),
                new RegisterBrokerRecord(2, new Uuid(9, 2), 11, Map.of("PLAINTEXT", new Endpoint("b", 2)), "r1"),
                new UnfenceBrokerRecord(1, 10),
                new UnfenceBrokerRecord(2, 11),
                new TopicRecord("t", T),
                new ConfigRecord(ConfigResource.Type.TOPIC, "t", "min.insync.replicas", "2"),
                new PartitionRecord(T, 0, List.of(1, 2), List.of(1, 2), 1, 0, 0),
                new PartitionRecord(T, 1, List.of(2, 1), List.of(2, 1), 2, 0, 0),
                new FenceBrokerRecord(1, 10),
                new PartitionChangeRecord(T, 0, Optional.of(List.of(2)), OptionalInt.of(2), 1, 1),
                new ConfigRecord(ConfigResource.Type.BROKER, "", "x", "y"),
                new ClientQuotaRecord(new QuotaEntity(List.of(new QuotaEntity.Part("user", "alice"),
                        new QuotaEntity.Part("client-id", null))), "producer_byte_rate", 1024.0),
                new ClientQuotaRecord(new QuotaEntity(List.of(new QuotaEntity.Part("user", null))), "request_percentage", 2.5),
                new ClientQuotaRecord(new QuotaEntity(List.of(new QuotaEntity.Part("user", null))), "consumer_byte_rate", 9.0),
                new ClientQuotaRecord(new QuotaEntity(List.of(new QuotaEntity.Part("user", null))), "request_percentage", null));
    }

    @Test
    void replayingTheSameRecordsGivesTheSameImage() {
        MetadataImage a = MetadataImage.EMPTY.apply(7, history());
        MetadataImage b = MetadataImage.EMPTY;
        for (MetadataRecord r : history()) b = b.apply(List.of(r));
        // Equal but for where the brokers registered (one batch at 7 here, record by record at -1 there).
        assertEquals(a.toRecords(), b.withOffset(7).toRecords());
        assertEquals(a, MetadataImage.EMPTY.apply(7, a.toRecords()));
        PartitionRegistration p0 = a.topic("t").orElseThrow().partition(0);
        assertEquals(new PartitionRegistration(List.of(1, 2), List.of(2), 2, 1, 1), p0);
        assertTrue(a.broker(1).orElseThrow().fenced());
        // Entity parts in any order name the same entity; a removed key is gone.
        assertEquals(Map.of("producer_byte_rate", 1024.0), a.clientQuota(new QuotaEntity(List.of(
                new QuotaEntity.Part("client-id", null), new QuotaEntity.Part("user", "alice")))));
        assertEquals(Map.of("consumer_byte_rate", 9.0), a.clientQuota(new QuotaEntity(List.of(new QuotaEntity.Part("user", null)))));
    }

    @Test
    void batchesAndImagesRoundTripThroughTheBinaryForm() {
        assertEquals(history(), MetadataSerde.deserializeBatch(MetadataSerde.serializeBatch(history())));
        MetadataImage img = MetadataImage.EMPTY.apply(42, history());
        assertEquals(img, MetadataSerde.deserializeImage(MetadataSerde.serializeImage(img)));
        assertThrows(IllegalArgumentException.class, () -> MetadataSerde.deserializeBatch(new byte[] {1, 2, 3}));
        byte[] ok = MetadataSerde.serializeBatch(history());
        assertThrows(IllegalArgumentException.class,
                () -> MetadataSerde.deserializeBatch(java.util.Arrays.copyOf(ok, ok.length - 3)));
    }

    @Test
    void aBrokerRecordsTheOffsetOfItsRegistrationAndSnapshotsKeepIt() {
        MetadataImage img = MetadataImage.EMPTY
                .apply(5, List.of(new RegisterBrokerRecord(1, new Uuid(9, 1), 10, Map.of("P", new Endpoint("a", 1)), null)))
                .apply(9, List.of(new RegisterBrokerRecord(2, new Uuid(9, 2), 11, Map.of("P", new Endpoint("b", 2)), null)))
                .apply(12, List.of(new UnfenceBrokerRecord(1, 10)));
        assertEquals(5, img.broker(1).orElseThrow().registeredAt());
        assertEquals(9, img.broker(2).orElseThrow().registeredAt());
        MetadataImage restored = MetadataSerde.deserializeImage(MetadataSerde.serializeImage(img));
        assertEquals(img, restored);
        assertEquals(5, restored.broker(1).orElseThrow().registeredAt());
        // A re-registration moves it.
        MetadataImage again = img.apply(20, List.of(new RegisterBrokerRecord(1, new Uuid(9, 3), 21, Map.of("P", new Endpoint("a", 1)), null)));
        assertEquals(20, again.broker(1).orElseThrow().registeredAt());
    }

    @Test
    void illegalRecordsAreRefused() {
        MetadataImage img = MetadataImage.EMPTY.apply(history());
        assertThrows(IllegalStateException.class, () -> img.apply(List.of(new TopicRecord("t", Uuid.randomUuid()))));
        assertThrows(IllegalStateException.class, () -> img.apply(List.of(new FenceBrokerRecord(2, 99))));
        assertThrows(IllegalArgumentException.class,
                () -> img.apply(List.of(new PartitionChangeRecord(T, 1, Optional.empty(), OptionalInt.of(7), 1, 1))));
        // A change decided on a stale image (its epochs do not follow the current ones) cannot replay.
        assertThrows(IllegalStateException.class,
                () -> img.apply(List.of(new PartitionChangeRecord(T, 0, Optional.empty(), OptionalInt.of(1), 1, 1))));
        assertThrows(IllegalStateException.class, () -> img.apply(List.of(
                new RegisterBrokerRecord(2, new Uuid(9, 3), 11, Map.of(), null))));
    }

    @Test
    void theDeltaTellsEachBrokerItsNewRolesAndDeletedPartitions() {
        MetadataImage before = MetadataImage.EMPTY.apply(1, history().subList(0, 8));
        MetadataImage after = before.apply(2, history().subList(8, 11));
        MetadataDelta d = MetadataDelta.between(before, after);
        assertEquals(1, d.partitionChanges().size());
        MetadataDelta.LocalChanges on2 = d.localChanges(2);
        TopicIdPartition p0 = new TopicIdPartition(T, 0, "t");
        assertEquals(Map.of(p0, after.topic("t").orElseThrow().partition(0)), on2.leaders());
        assertEquals(Map.of(p0, after.topic("t").orElseThrow().partition(0)), d.localChanges(1).followers());
        assertEquals(java.util.Set.of(1), d.changedBrokers());
        assertTrue(d.brokerConfigsChanged());

        MetadataDelta fromEmpty = MetadataDelta.between(MetadataImage.EMPTY, before);
        assertEquals(java.util.Set.of(T), fromEmpty.createdTopics().keySet());
        assertEquals(2, fromEmpty.localChanges(1).leaders().size() + fromEmpty.localChanges(1).followers().size());

        MetadataImage deleted = after.apply(3, List.of(new RemoveTopicRecord(T)));
        MetadataDelta del = MetadataDelta.between(after, deleted);
        assertEquals(java.util.Set.of(T), del.deletedTopics().keySet());
        assertEquals(2, del.localChanges(2).deletes().size());
        assertTrue(deleted.topicConfigs().isEmpty());
    }
}
