package io.faultline.broker.txn;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.faultline.broker.api.BrokerContext;
import io.faultline.broker.common.ManualTime;
import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.SeededBugs;
import io.faultline.broker.config.BrokerConfig;
import io.faultline.broker.metadata.MetadataDelta;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord;
import io.faultline.broker.partition.LogStore;
import io.faultline.broker.partition.PartitionManager;
import io.faultline.broker.partition.ProducerIdManager;
import io.faultline.broker.storage.LogConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded bug markers-skipped-on-failover: a node that becomes the coordinator of a {@code __transaction_state}
 * partition holding a PREPARE_COMMIT (its predecessor failed between the prepare and the markers) must write the
 * transaction's markers before it records it complete. With the bug it records it complete and writes none.
 */
class SeededCoordinatorBugTest {
    private static final String TXN_ID = "worker-1";
    private static final TopicPartition DATA = new TopicPartition("data", 0);

    @TempDir
    Path dir;

    /** Each marker request the coordinator sends: leader, producer, epoch, commit, partitions. */
    record Sent(int leader, long producerId, short epoch, boolean commit, List<TopicPartition> partitions) {}

    /** Loads a partition whose last state of {@link #TXN_ID} is PREPARE_COMMIT; the markers sent until it completes. */
    private List<Sent> markersSentWhenLoadingAPreparedCommit(SeededBug... bugs) throws Exception {
        ManualTime time = new ManualTime();
        PartitionManager pm = new PartitionManager(1, LogStore.open(dir.resolve("logs"), tp -> LogConfig.DEFAULT, time),
                dir.resolve("logs"), time, SeededBugs.of(bugs));
        Properties props = new Properties();
        props.setProperty("node.id", "1");
        props.setProperty("listeners", "PLAINTEXT://127.0.0.1:9092");
        props.setProperty("log.dirs", dir.resolve("logs").toString());
        props.setProperty("offsets.topic.num.partitions", "1");
        BrokerConfig config = BrokerConfig.from(props);
        TransactionStateTopic topic = new TransactionStateTopic(new BrokerContext(config, "cluster", "PLAINTEXT", null,
                null, pm, time, null, null));
        // This node leads the (single) __transaction_state partition, alone in its ISR.
        Uuid id = Uuid.randomUuid();
        MetadataImage image = MetadataImage.EMPTY.apply(1, List.of(new MetadataRecord.TopicRecord(TransactionStateTopic.NAME, id),
                new MetadataRecord.PartitionRecord(id, 0, List.of(1), List.of(1), 1, 3, 3, List.of(), List.of())));
        pm.applyDelta(MetadataDelta.between(MetadataImage.EMPTY, image), image);
        // What the previous coordinator persisted: the transaction prepared to commit on one data partition.
        TxnMetadata ongoing = TxnMetadata.fresh(TXN_ID, 42, 60_000, 0)
                .transitionTo(TransactionState.ONGOING, 42, (short) 0, 60_000, Set.of(DATA), 1);
        TxnMetadata prepared = ongoing.transitionTo(TransactionState.PREPARE_COMMIT, 2);
        pm.get(topic.topicPartition(TXN_ID)).orElseThrow().appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(0L, TxnLogCodec.key(TXN_ID), TxnLogCodec.value(prepared))));

        List<Sent> sent = new CopyOnWriteArrayList<>();
        TransactionCoordinator.MarkerSender sender = (leader, pid, epoch, coordEpoch, commit, tps) -> {
            sent.add(new Sent(leader, pid, epoch, commit, List.copyOf(tps)));
            Map<TopicPartition, Errors> ok = new java.util.HashMap<>();
            tps.forEach(tp -> ok.put(tp, Errors.NONE));
            return CompletableFuture.completedFuture(ok);
        };
        try (TransactionCoordinator coordinator = new TransactionCoordinator(pm, tp -> Optional.empty(), topic,
                new ProducerIdManager(dir.resolve("ids")), time, tp -> Optional.of(2), sender)) {
            coordinator.loadAndUnload(); // takes the partition over: loads it, finishes what it finds prepared
            await().atMost(Duration.ofSeconds(30)).until(() -> coordinator.transactions().get(TXN_ID).state()
                    == TransactionState.COMPLETE_COMMIT);
        } finally {
            pm.close();
        }
        return sent;
    }

    @Test
    void markersSkippedOnFailover() throws Exception {
        assertEquals(List.of(), markersSentWhenLoadingAPreparedCommit(SeededBug.MARKERS_SKIPPED_ON_FAILOVER),
                "with the bug the transaction completes without a marker: its partition keeps it open");
    }

    @Test
    void withoutTheBugTheNewCoordinatorWritesTheMarkersFirst() throws Exception {
        assertEquals(List.of(new Sent(2, 42, (short) 0, true, List.of(DATA))), markersSentWhenLoadingAPreparedCommit());
    }
}
