package io.faultline.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.ManualTime;
import io.faultline.broker.metadata.MetadataDelta;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord;
import io.faultline.broker.metadata.MetadataRecord.PartitionRecord;
import io.faultline.broker.partition.LogStore;
import io.faultline.broker.partition.Partition;
import io.faultline.broker.partition.PartitionManager;
import io.faultline.broker.storage.LogConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.internals.Topic;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An OffsetCommit and an OffsetDelete / DeleteGroups of the same group racing: the committer is held between its
 * append and its in-memory update; whatever order they end in, the in-memory view must be what the log replays to.
 */
class OffsetStoreRaceTest {
    private static final TopicPartition X = new TopicPartition("x", 0);
    private static final String GROUP = "g";

    @TempDir
    Path dir;
    private final ManualTime time = new ManualTime();
    private PartitionManager pm;
    private OffsetStore store;
    /** The thread to hold right after its next append to the offsets partition. */
    private final AtomicReference<Thread> holdAfterAppend = new AtomicReference<>();
    private final CountDownLatch appended = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void open() throws Exception {
        pm = new PartitionManager(1, LogStore.open(dir, tp -> LogConfig.DEFAULT, time), dir, time);
        Uuid id = Uuid.randomUuid();
        MetadataImage image = MetadataImage.EMPTY.apply(1, List.of(
                new MetadataRecord.TopicRecord(Topic.GROUP_METADATA_TOPIC_NAME, id),
                new PartitionRecord(id, 0, List.of(1), List.of(1), 1, 1, 0)));
        pm.applyDelta(MetadataDelta.between(MetadataImage.EMPTY, image), image);
        Partition offsets = pm.get(new TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME, 0)).orElseThrow();
        // Runs after every leader append, in the appending thread: commits at once, and holds the chosen thread.
        offsets.replicateWith(() -> {
            long end = offsets.log().logEndOffset();
            if (end > offsets.log().highWatermark()) offsets.log().updateHighWatermark(end);
            if (holdAfterAppend.compareAndSet(Thread.currentThread(), null)) {
                appended.countDown();
                await(release);
            }
        });
        store = new OffsetStore(pm, 1, time);
    }

    @AfterEach
    void close() {
        release.countDown();
        pm.close();
    }

    private static void await(CountDownLatch l) {
        try {
            assertTrue(l.await(30, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static OffsetStore.CommittedOffset at(long offset) {
        return new OffsetStore.CommittedOffset(offset, -1, "", 0);
    }

    /** Commits 2 for X (held after its append) while {@code other} runs; returns memory's and the log's view. */
    private List<Optional<Long>> raceCommitWith(Runnable other) throws Exception {
        store.commit(GROUP, Map.of(X, at(1)));
        Thread committer = new Thread(() -> store.commit(GROUP, Map.of(X, at(2))), "committer");
        holdAfterAppend.set(committer);
        committer.start();
        await(appended);
        Thread deleter = new Thread(other, "deleter");
        deleter.start();
        // The deleter either finishes or waits for the committer's partition lock.
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                !deleter.isAlive() || deleter.getState() == Thread.State.BLOCKED);
        release.countDown();
        committer.join(30_000);
        deleter.join(30_000);
        OffsetStore replayed = new OffsetStore(pm, 1, time);
        replayed.load();
        return List.of(store.fetch(GROUP, X).map(OffsetStore.CommittedOffset::offset),
                replayed.fetch(GROUP, X).map(OffsetStore.CommittedOffset::offset));
    }

    @Test
    void offsetDeleteRacingACommitLeavesMemoryAsTheLogSays() throws Exception {
        List<Optional<Long>> views = raceCommitWith(() -> store.deleteOffsets(GROUP, List.of(X)));
        assertEquals(views.get(1), views.get(0), "in memory vs replayed from the log");
        assertEquals(Optional.empty(), views.get(0), "the delete ran after the commit's append");
    }

    @Test
    void deleteGroupRacingACommitLeavesMemoryAsTheLogSays() throws Exception {
        List<Optional<Long>> views = raceCommitWith(() -> store.deleteGroup(GROUP));
        assertEquals(views.get(1), views.get(0), "in memory vs replayed from the log");
        assertEquals(Optional.empty(), views.get(0));
    }
}
