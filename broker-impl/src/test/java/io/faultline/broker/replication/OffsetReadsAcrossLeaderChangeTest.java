package io.faultline.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.faultline.broker.api.ReplicatedOffsetCommit;
import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.SeededBugs;
import io.faultline.broker.group.OffsetStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Committed offsets read back as linearizable registers across replication and a coordinator change, on three
 * in-JVM brokers with a manual clock (the false alarms of the offsets workload on the unseeded broker came from
 * here): a reader must never see a commit that is not replicated yet (a leader change can still truncate it), and a
 * new coordinator must never answer from a view older than a commit its predecessor acknowledged.
 */
class OffsetReadsAcrossLeaderChangeTest {
    private static final TopicPartition X = new TopicPartition("x", 0);
    private static final String GROUP = "g";
    private static final TopicPartition OFFSETS = new TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME, 0);

    @TempDir
    Path dir;

    private static OffsetStore.CommittedOffset at(long offset) {
        return new OffsetStore.CommittedOffset(offset, -1, "", 0);
    }

    /** What a client's OffsetFetch gets from this store: the offset, "none", or "loading" (retry later). */
    private static String read(OffsetStore store) {
        try {
            store.checkReadable(GROUP);
        } catch (CoordinatorLoadInProgressException e) {
            return "loading";
        }
        return store.fetch(GROUP, X).map(c -> Long.toString(c.offset())).orElse("none");
    }

    private static OffsetStore coordinatorOn(MetadataCluster.Broker b, MetadataCluster c) {
        OffsetStore store = new OffsetStore(b.partitions, 1, c.time);
        store.loadPartition(0); // as GroupWiring does when the node starts to lead the partition
        return store;
    }

    @Test
    void aCommitIsReadOnlyOnceReplicated() {
        try (MetadataCluster c = new MetadataCluster(dir, 3, ReplicationConfig.DEFAULT.withReplicaLagTimeMaxMs(10_000))) {
            c.createTopic(Topic.GROUP_METADATA_TOPIC_NAME, 3, 2);
            MetadataCluster.Broker leader = c.leaderOf(OFFSETS);
            OffsetStore store = coordinatorOn(leader, c);
            var commits = new ReplicatedOffsetCommit(leader.partitions, leader.replicas::leader, store, SeededBugs.NONE);
            List<MetadataCluster.Broker> followers = new ArrayList<>(c.brokers.values());
            followers.remove(leader);
            followers.forEach(f -> f.link(leader.id).cut(true));

            AtomicReference<Errors> answer = new AtomicReference<>();
            commits.commit(GROUP, Map.of(X, at(7)), answer::set);
            assertNull(answer.get(), "not answered before replication");
            assertEquals("none", read(store), "an unreplicated commit is not visible (a new leader may never have it)");

            followers.forEach(f -> f.link(leader.id).cut(false));
            c.replicate(2);
            assertEquals(Errors.NONE, answer.get());
            assertEquals("7", read(store));
        }
    }

    @Test
    void aNewCoordinatorAnswersNoViewOlderThanAnAcknowledgedCommit() {
        try (MetadataCluster c = new MetadataCluster(dir, 3, ReplicationConfig.DEFAULT.withReplicaLagTimeMaxMs(10_000))) {
            c.createTopic(Topic.GROUP_METADATA_TOPIC_NAME, 3, 2);
            MetadataCluster.Broker old = c.leaderOf(OFFSETS);
            // The controller elects the first live ISR member in replica order: a, once the old leader is gone.
            List<MetadataCluster.Broker> followers = c.registration(OFFSETS).replicas().stream()
                    .filter(id -> id != old.id).map(c.brokers::get).toList();
            MetadataCluster.Broker a = followers.get(0);
            MetadataCluster.Broker b = followers.get(1);
            OffsetStore store = coordinatorOn(old, c);
            var commits = new ReplicatedOffsetCommit(old.partitions, old.replicas::leader, store, SeededBugs.NONE);
            AtomicReference<Errors> first = new AtomicReference<>();
            commits.commit(GROUP, Map.of(X, at(5)), first::set);
            c.replicate(3);
            assertEquals(Errors.NONE, first.get());

            AtomicReference<Errors> second = new AtomicReference<>();
            commits.commit(GROUP, Map.of(X, at(7)), second::set);
            b.replicas.fetchers().doWorkOnce(); // both followers copy 7
            a.replicas.fetchers().doWorkOnce();
            a.replicas.fetchers().doWorkOnce(); // a reports it has 7; the HW waits for b
            b.replicas.fetchers().doWorkOnce(); // b too: the HW passes 7, which is acknowledged; only b hears the HW
            assertEquals(Errors.NONE, second.get(), "7 is acknowledged");
            assertEquals("7", read(store));
            assertEquals(1, a.partition(OFFSETS).highWatermark(), "a has 7 above its high watermark");

            old.crash();
            c.tick(3_000); // the old leader is fenced; a leads, with 7 in its log above its high watermark
            assertEquals(a.id, c.leaderOf(OFFSETS).id);
            OffsetStore successor = coordinatorOn(a, c);
            String early = read(successor);
            assertNotEquals("5", early, "a view older than the acknowledged commit 7");
            assertEquals("loading", early, "the tail it loaded is not replicated in its term yet");

            c.replicate(3); // b fetches from the new leader: the high watermark passes the loaded tail
            assertEquals("7", read(successor));
        }
    }

    @Test
    void aReadIsAnsweredOnlyOnceABarrierReplicatesInTheLeadersEpoch() {
        try (MetadataCluster c = new MetadataCluster(dir, 3, ReplicationConfig.DEFAULT.withReplicaLagTimeMaxMs(10_000))) {
            c.createTopic(Topic.GROUP_METADATA_TOPIC_NAME, 3, 2);
            MetadataCluster.Broker leader = c.leaderOf(OFFSETS);
            OffsetStore store = coordinatorOn(leader, c);
            var commits = new ReplicatedOffsetCommit(leader.partitions, leader.replicas::leader, store, SeededBugs.NONE);
            AtomicReference<Errors> healthy = new AtomicReference<>();
            commits.barrier(GROUP, healthy::set);
            assertNull(healthy.get(), "waits for a follower to fetch the barrier");
            c.replicate(2);
            assertEquals(Errors.NONE, healthy.get());

            // Cut off from both followers (which a controller would soon replace): it must not answer from its view.
            for (MetadataCluster.Broker f : c.brokers.values()) if (f != leader) f.link(leader.id).cut(true);
            AtomicReference<Errors> cutOff = new AtomicReference<>();
            commits.barrier(GROUP, cutOff::set);
            c.replicate(2);
            assertNull(cutOff.get());
            c.time.advance(ReplicatedOffsetCommit.COMMIT_TIMEOUT_MS + 250);
            c.tick(250);
            assertEquals(Errors.NOT_COORDINATOR, cutOff.get(), "the client looks for the coordinator again");
        }
    }

    @Test
    void theSeededBugShowsACommitBeforeItIsReplicated() {
        try (MetadataCluster c = new MetadataCluster(dir, 3, ReplicationConfig.DEFAULT.withReplicaLagTimeMaxMs(10_000))) {
            c.createTopic(Topic.GROUP_METADATA_TOPIC_NAME, 3, 2);
            MetadataCluster.Broker leader = c.leaderOf(OFFSETS);
            OffsetStore store = coordinatorOn(leader, c);
            var commits = new ReplicatedOffsetCommit(leader.partitions, leader.replicas::leader, store,
                    SeededBugs.of(SeededBug.OFFSET_COMMIT_UNREPLICATED));
            for (MetadataCluster.Broker f : c.brokers.values()) if (f != leader) f.link(leader.id).cut(true);
            AtomicReference<Errors> answer = new AtomicReference<>();
            commits.commit(GROUP, Map.of(X, at(7)), answer::set);
            assertEquals(Errors.NONE, answer.get(), "answered at once");
            assertEquals("7", read(store), "and shown although no follower has it");
        }
    }
}
