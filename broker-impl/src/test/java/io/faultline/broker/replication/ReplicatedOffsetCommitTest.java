package io.faultline.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OffsetCommit on three in-JVM brokers with a replicated {@code __consumer_offsets} (min.insync.replicas=2): the
 * answer waits for the high watermark, times out while followers cannot fetch, and is refused below min ISR;
 * seeded bug offset-commit-unreplicated answers right after the leader's append.
 */
class ReplicatedOffsetCommitTest {
    private static final TopicPartition X = new TopicPartition("x", 0);

    @TempDir
    Path dir;
    private int clusters;

    /** What one commit got: the answer right after the call (null = still waiting) and after the scenario's step. */
    private record Answers(Errors atOnce, Errors later, long hwAtAnswer) {
    }

    private Answers commit(String scenario, SeededBug... bugs) {
        try (MetadataCluster c = new MetadataCluster(dir.resolve("c" + (++clusters)), 3,
                ReplicationConfig.DEFAULT.withReplicaLagTimeMaxMs(10_000))) {
            TopicPartition tp = c.createTopic(Topic.GROUP_METADATA_TOPIC_NAME, 3, 2);
            MetadataCluster.Broker leader = c.leaderOf(tp);
            List<MetadataCluster.Broker> followers = new ArrayList<>(c.brokers.values());
            followers.remove(leader);
            OffsetStore store = new OffsetStore(leader.partitions, 1, c.time);
            ReplicatedOffsetCommit commits = new ReplicatedOffsetCommit(leader.partitions, leader.replicas::leader,
                    store, SeededBugs.of(bugs));
            if (scenario.equals("followers-cut") || scenario.equals("below-min-isr")) {
                for (MetadataCluster.Broker f : followers) f.link(leader.id).cut(true);
            }
            if (scenario.equals("below-min-isr")) {
                store.commit("other", Map.of(X, new OffsetStore.CommittedOffset(1, -1, "", 0))); // they lag
                c.tick(16_000); // both fall out of the ISR
                assertEquals(List.of(leader.id), c.registration(tp).isr());
            }
            AtomicReference<Errors> answer = new AtomicReference<>();
            AtomicReference<Long> hw = new AtomicReference<>();
            commits.commit("g", Map.of(X, new OffsetStore.CommittedOffset(7, -1, "", 0)), e -> {
                hw.set(leader.partition(tp).highWatermark());
                answer.set(e);
            });
            Errors atOnce = answer.get();
            if (scenario.equals("followers-cut")) c.tick(5_250); // past offsets.commit.timeout.ms
            else c.replicate(2);
            return new Answers(atOnce, answer.get(), hw.get() == null ? -1 : hw.get());
        }
    }

    @Test
    void aCommitIsAnsweredOnceReplicated() {
        assertEquals(new Answers(null, Errors.NONE, 1), commit("healthy"));
    }

    @Test
    void aCommitTimesOutWhileFollowersCannotFetch() {
        assertEquals(new Answers(null, Errors.REQUEST_TIMED_OUT, 0), commit("followers-cut"));
    }

    @Test
    void aCommitBelowMinIsrIsRefused() {
        Answers a = commit("below-min-isr");
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, a.atOnce());
    }

    @Test
    void offsetCommitUnreplicated() {
        assertEquals(new Answers(Errors.NONE, Errors.NONE, 0), commit("healthy", SeededBug.OFFSET_COMMIT_UNREPLICATED),
                "answered before any follower has the commit");
        assertEquals(new Answers(Errors.NONE, Errors.NONE, 0),
                commit("followers-cut", SeededBug.OFFSET_COMMIT_UNREPLICATED), "answered though it never replicates");
        assertEquals(Errors.NONE, commit("below-min-isr", SeededBug.OFFSET_COMMIT_UNREPLICATED).atOnce());
    }
}
