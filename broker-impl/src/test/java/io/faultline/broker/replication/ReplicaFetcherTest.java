package io.faultline.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.ManualTime;
import io.faultline.broker.storage.LogConfig;
import io.faultline.broker.storage.PartitionLog;
import io.faultline.broker.storage.RecoveryState;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The follower's error handling: fencing, back-off, out-of-range truncation, a diverging answer that repeats. */
class ReplicaFetcherTest {
    @TempDir
    Path dir;

    private InJvmCluster cluster(TruncationMode mode) {
        return new InJvmCluster(dir, 2, 1, ReplicationConfig.DEFAULT.withTruncation(mode));
    }

    private static ReplicaFetcher fetcherOf(InJvmCluster c, int id) {
        return c.node(id).fetchers.fetcherFor(InJvmCluster.TP).orElseThrow();
    }

    @Test
    void followerCopiesTheLeadersBatchesWithTheirOffsetsAndEpochsAndTakesItsHighWatermark() {
        try (InJvmCluster c = cluster(TruncationMode.LEADER_EPOCH)) {
            c.elect(1);
            c.produce("a", "b");
            c.elect(1); // epoch 1, same leader
            c.produce("c");
            c.replicate(1);
            assertEquals(Records.dump(c.node(1).log), Records.dump(c.node(2).log));
            assertEquals(List.of("0:a@0", "1:b@0", "2:c@1"), Records.dump(c.node(2).log));
            assertEquals(c.node(1).log.epochEntries(), c.node(2).log.epochEntries());
            assertEquals(0, c.node(2).log.highWatermark(), "learns the HW one round later");
            c.replicate(1);
            assertEquals(3, c.node(1).log.highWatermark());
            assertEquals(3, c.node(2).log.highWatermark());
        }
    }

    @Test
    void aStaleEpochIsFencedAndWaitsForMetadata() {
        try (InJvmCluster c = cluster(TruncationMode.LEADER_EPOCH)) {
            c.elect(1);
            c.pause(2);
            c.elect(1); // node 2 misses epoch 1
            c.node(2).paused = false;
            c.replicate(1);
            assertEquals(Optional.of(ReplicaFetcher.Status.FENCED), fetcherOf(c, 2).status(InJvmCluster.TP));
            assertEquals(Optional.of(Errors.FENCED_LEADER_EPOCH), fetcherOf(c, 2).lastError(InJvmCluster.TP));
            c.tell(c.node(2));
            c.produce("a");
            c.replicate(1);
            assertEquals(List.of("a"), c.node(2).values());
        }
    }

    @Test
    void aLeaderBehindOurEpochAndANetworkErrorBackOffThenRetry() {
        try (InJvmCluster c = cluster(TruncationMode.LEADER_EPOCH)) {
            c.elect(1);
            c.produce("a");
            c.pause(1);
            c.elect(1); // only node 2 hears of epoch 1: the leader answers UNKNOWN_LEADER_EPOCH
            c.node(1).paused = false;
            c.replicate(1);
            assertEquals(Optional.of(ReplicaFetcher.Status.DELAYED), fetcherOf(c, 2).status(InJvmCluster.TP));
            assertEquals(Optional.of(Errors.UNKNOWN_LEADER_EPOCH), fetcherOf(c, 2).lastError(InJvmCluster.TP));
            c.tell(c.node(1));
            c.replicate(1);
            assertEquals(List.of(), c.node(2).values(), "still backing off");
            c.node(2).link(1).cut(true);
            c.tick(ReplicationConfig.DEFAULT.fetchBackoffMs());
            c.replicate(1);
            assertEquals(Optional.of(Errors.NETWORK_EXCEPTION), fetcherOf(c, 2).lastError(InJvmCluster.TP));
            c.node(2).link(1).cut(false);
            c.tick(ReplicationConfig.DEFAULT.fetchBackoffMs());
            c.replicate(1);
            assertEquals(List.of("a"), c.node(2).values());
        }
    }

    @Test
    void aFollowerLongerThanTheLeaderCutsBackToTheLeadersEndWhenItDoesNotSendEpochs() {
        try (InJvmCluster c = cluster(TruncationMode.HIGH_WATERMARK)) {
            c.elect(1);
            c.produce("a");
            c.replicate(2);
            c.pause(2);
            c.produce("b", "c");
            c.node(1).crash(); // node 2 never got b, c
            c.node(2).paused = false;
            c.fence(1);
            c.elect(2);
            c.produce("x");
            c.node(2).crash();
            c.restart(1); // node 1 (HW 1) truncates to its HW in this mode...
            c.fence(2);
            c.forceElect(1, Set.of(1));
            c.produce("y", "z", "w"); // ...then leads again and grows past node 2
            c.node(1).crash();
            c.restart(2);
            c.forceElect(2, Set.of(2)); // node 2 leads with [a, x]; node 1 has [a, y, z, w]
            c.restart(1);
            c.replicate(3);
            assertEquals(List.of("a", "x"), c.node(1).values(), "out of range: cut to the leader's end, then fetched");
        }
    }

    /**
     * A leader that answers every fetch with the same diverging epoch, one our truncation cannot act on (our log
     * already ends there and our last epoch starts below it): the fetcher must not spin on it, truncating and
     * logging in a tight loop as issue 25's deposed leaders did (3 million lines). It counts the repeat, reports it
     * and backs the partition off.
     */
    @Test
    void theSameDivergingAnswerAgainIsCountedAndBackedOffNotRetriedAtOnce() throws Exception {
        ManualTime time = new ManualTime();
        try (PartitionLog log = PartitionLog.open(dir.resolve("t-0"), LogConfig.DEFAULT, time, RecoveryState.UNKNOWN)) {
            log.appendAsLeader(Records.values("a", "b"), 0);
            AtomicInteger fetches = new AtomicInteger();
            LeaderEndpoint stuckLeader = new LeaderEndpoint() {
                @Override
                public ApiMessage send(ApiKeys apiKey, short version, ApiMessage request) {
                    fetches.incrementAndGet();
                    FetchResponseData.PartitionData pd = new FetchResponseData.PartitionData().setPartitionIndex(0)
                            .setHighWatermark(2).setLogStartOffset(0).setRecords(MemoryRecords.EMPTY);
                    pd.setDivergingEpoch(new FetchResponseData.EpochEndOffset().setEpoch(0).setEndOffset(2));
                    FetchResponseData resp = new FetchResponseData();
                    resp.responses().add(new FetchResponseData.FetchableTopicResponse()
                            .setTopicId(InJvmCluster.TOPIC_ID).setPartitions(List.of(pd)));
                    return resp;
                }

                @Override
                public void close() {
                }
            };
            ReplicaFetcher fetcher = new ReplicaFetcher(2, 1, stuckLeader, time, ReplicationConfig.DEFAULT);
            fetcher.addPartition(InJvmCluster.TP, InJvmCluster.TOPIC_ID, ReplicaLog.of(log), 0);

            assertTrue(fetcher.doWork());
            assertEquals(Optional.of(0L), fetcher.repeatedDivergences(InJvmCluster.TP), "a first answer is acted on");
            assertEquals(Optional.of(ReplicaFetcher.Status.FETCHING), fetcher.status(InJvmCluster.TP));
            assertTrue(fetcher.doWork());
            assertEquals(Optional.of(1L), fetcher.repeatedDivergences(InJvmCluster.TP));
            assertEquals(Optional.of(ReplicaFetcher.Status.DELAYED), fetcher.status(InJvmCluster.TP));
            assertFalse(fetcher.doWork(), "backing off: no fetch until the back-off is over");
            assertEquals(2, fetches.get());
            time.advance(ReplicationConfig.DEFAULT.fetchBackoffMs());
            assertTrue(fetcher.doWork());
            assertEquals(Optional.of(2L), fetcher.repeatedDivergences(InJvmCluster.TP));
            assertEquals(2, log.logEndOffset(), "nothing below the shared prefix was cut");
        }
    }
}
