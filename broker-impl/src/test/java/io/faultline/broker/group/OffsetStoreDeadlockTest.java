package io.faultline.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.api.ReplicatedOffsetCommit;
import io.faultline.broker.common.ManualTime;
import io.faultline.broker.common.SeededBugs;
import io.faultline.broker.metadata.MetadataDelta;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord;
import io.faultline.broker.metadata.MetadataRecord.PartitionRecord;
import io.faultline.broker.partition.LogStore;
import io.faultline.broker.partition.Partition;
import io.faultline.broker.partition.PartitionManager;
import io.faultline.broker.replication.LeaderState;
import io.faultline.broker.storage.LogConfig;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.protocol.Errors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two paths that deadlocked a coordinator (issue 30): an OffsetCommit appends under the offsets store's
 * partition lock and wakes waiting operations; a follower's fetch moves the high watermark and completes a waiting
 * OffsetFetch barrier, whose answer (under the operation's lock) reads the store under the partition lock. Waking
 * while holding the partition lock closes the cycle.
 */
class OffsetStoreDeadlockTest {
    private static final TopicPartition X = new TopicPartition("x", 0);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @TempDir
    Path dir;
    private final ManualTime time = new ManualTime();
    private PartitionManager pm;
    private Partition offsets;
    private OffsetStore store;
    private final List<Thread> started = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        pm = new PartitionManager(1, LogStore.open(dir, tp -> LogConfig.DEFAULT, time), dir, time);
        Uuid id = Uuid.randomUuid();
        MetadataImage image = MetadataImage.EMPTY.apply(1, List.of(
                new MetadataRecord.TopicRecord(Topic.GROUP_METADATA_TOPIC_NAME, id),
                new PartitionRecord(id, 0, List.of(1), List.of(1), 1, 1, 0)));
        pm.applyDelta(MetadataDelta.between(MetadataImage.EMPTY, image), image);
        offsets = pm.get(new TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME, 0)).orElseThrow();
        // Replication owns the high watermark: it moves only when a "follower fetch" below moves it.
        offsets.replicateWith(() -> { });
        store = new OffsetStore(pm, 1, time);
        store.loadPartition(0);
    }

    @AfterEach
    void close() {
        started.forEach(Thread::interrupt);
        pm.close();
    }

    private Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true); // a deadlocked thread must not keep the test JVM alive
        started.add(t);
        t.start();
        return t;
    }

    /** What a follower's fetch does on the leader: the high watermark follows its progress, waiters are woken. */
    private void followerFetch() {
        long end = offsets.log().logEndOffset();
        if (end > offsets.log().highWatermark()) offsets.log().updateHighWatermark(end);
        offsets.wakeWaiters();
    }

    /** An OffsetFetch: a barrier, then (as OffsetCommitApis.answerFetch) the store is read in the callback. */
    private void offsetFetch(ReplicatedOffsetCommit commits, String group, AtomicReference<Errors> answer) {
        commits.barrier(group, err -> {
            try {
                store.checkReadable(group);
                store.fetchAll(group);
                answer.set(err);
            } catch (RuntimeException e) {
                answer.set(Errors.forException(e));
            }
        });
    }

    private static String deadlockReport() {
        long[] ids = THREADS.findDeadlockedThreads();
        if (ids == null) return null;
        StringBuilder b = new StringBuilder("Java-level deadlock:\n");
        for (ThreadInfo i : THREADS.getThreadInfo(ids, true, true)) b.append(i);
        return b.toString();
    }

    private static void joinOrReportDeadlock(Thread... threads) throws InterruptedException {
        for (Thread t : threads) {
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                    .until(() -> !t.isAlive() || deadlockReport() != null);
        }
        assertNull(deadlockReport());
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(10));
            assertTrue(!t.isAlive(), t.getName() + " still running");
        }
    }

    private static boolean parkedOnReentrantLock(Thread t) {
        ThreadInfo i = THREADS.getThreadInfo(t.getId());
        return i != null && i.getThreadState() == Thread.State.WAITING && i.getLockName() != null
                && i.getLockName().contains("ReentrantLock");
    }

    @Test
    void aCommitWakingAWaiterNeverHoldsTheLockTheWaitersAnswerNeeds() throws Exception {
        // The follower's wake is held inside the barrier's tryComplete (under the operation's lock).
        AtomicReference<Thread> gated = new AtomicReference<>();
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Function<TopicPartition, Optional<LeaderState>> replicationLeader = tp -> {
            if (gated.compareAndSet(Thread.currentThread(), null)) {
                inside.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return Optional.empty();
        };
        ReplicatedOffsetCommit commits = new ReplicatedOffsetCommit(pm, replicationLeader, store, SeededBugs.NONE);
        AtomicReference<Errors> fetched = new AtomicReference<>();
        offsetFetch(commits, "g", fetched);
        assertNull(fetched.get(), "the barrier waits for the high watermark");

        Thread follower = new Thread(this::followerFetch, "follower-fetch");
        follower.setDaemon(true);
        started.add(follower);
        gated.set(follower);
        follower.start();
        assertTrue(inside.await(30, TimeUnit.SECONDS));

        // The commit's wake reaches the barrier while the follower's evaluation holds it.
        Thread committer = start("offset-commit", () -> commits.commit("g",
                Map.of(X, new OffsetStore.CommittedOffset(5, -1, "", 0)), e -> { }));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> parkedOnReentrantLock(committer));
        release.countDown();

        joinOrReportDeadlock(follower, committer);
        assertEquals(Errors.NONE, fetched.get());
    }

    @Test
    void commitsAndFetchesRacingFollowerFetchesAllFinish() throws Exception {
        ReplicatedOffsetCommit commits = new ReplicatedOffsetCommit(pm, tp -> Optional.empty(), store,
                SeededBugs.NONE);
        int rounds = 3_000;
        AtomicInteger answered = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            String group = "g" + w;
            threads.add(start("committer-" + w, () -> {
                for (int i = 0; i < rounds; i++) {
                    commits.commit(group, Map.of(X, new OffsetStore.CommittedOffset(i, -1, "", 0)), e -> { });
                }
            }));
            threads.add(start("fetcher-" + w, () -> {
                for (int i = 0; i < rounds; i++) {
                    AtomicReference<Errors> a = new AtomicReference<>();
                    offsetFetch(commits, group, a);
                    answered.incrementAndGet();
                }
            }));
        }
        Thread[] workers = threads.toArray(new Thread[0]);
        threads.add(start("follower-fetch", () -> {
            while (Arrays.stream(workers).anyMatch(Thread::isAlive)) followerFetch();
            followerFetch();
        }));
        joinOrReportDeadlock(threads.toArray(new Thread[0]));
        assertEquals(3 * rounds, answered.get());
    }
}
