package io.faultline.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.SeededBugs;
import io.faultline.broker.common.Time;
import io.faultline.broker.partition.ProducerStateManager.AbortedTxn;
import io.faultline.broker.storage.LogConfig;
import io.faultline.broker.storage.PartitionLog;
import io.faultline.broker.storage.RecoveryState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The partition-side seeded transaction bugs: each shows the wrong behaviour with its switch and Kafka's without.
 * (markers-skipped-on-failover lives in the coordinator: SeededCoordinatorBugTest.)
 */
class SeededTxnPartitionBugsTest {
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    @TempDir
    Path dir;
    private final List<PartitionLog> logs = new ArrayList<>();

    /** A single-replica leader of t-0 in {@code dir}/name, with producer-state snapshots, so it can be reopened. */
    private Partition open(String name, SeededBug... bugs) throws Exception {
        PartitionLog log = PartitionLog.open(dir.resolve(name).resolve("t-0"), LogConfig.DEFAULT, Time.SYSTEM,
                RecoveryState.UNKNOWN);
        logs.add(log);
        Partition p = new Partition(new TopicPartition("t", 0), TOPIC_ID, log, 1, tp -> { },
                new ProducerStateSnapshots(dir.resolve(name)), SeededBugs.of(bugs));
        p.makeLeader(1, Set.of(1));
        return p;
    }

    @AfterEach
    void closeLogs() {
        logs.forEach(PartitionLog::close);
    }

    private static MemoryRecords txn(long pid, short epoch, int seq, int n) {
        SimpleRecord[] r = new SimpleRecord[n];
        for (int i = 0; i < n; i++) r[i] = new SimpleRecord(("v" + i).getBytes());
        return MemoryRecords.withTransactionalRecords(Compression.NONE, pid, epoch, seq, r);
    }

    // ------------------------------------------------------------------ lso-ignores-open-txn

    /** Records 0-1 committed, 2-4 of an open transaction: the last stable offset, and what read_committed reads. */
    private long lastStableOffsetWithAnOpenTransaction(SeededBug... bugs) throws Exception {
        Partition p = open("lso", bugs);
        p.appendAsLeader(txn(7, (short) 0, 0, 2));             // 0-1
        p.appendMarker(7, (short) 0, 0, true, 0L, Runnable::run); // 2: committed
        p.appendAsLeader(txn(8, (short) 0, 0, 3));             // 3-5: open
        assertEquals(6, p.highWatermark());
        assertEquals(Map.of(8L, 3L), p.openTransactions(), "the partition knows the transaction is open either way");
        long readTo = lastOffsetRead(p) + 1;
        assertEquals(p.lastStableOffset(), readTo, "read_committed reads up to the last stable offset");
        return p.lastStableOffset();
    }

    /** The last offset a read_committed consumer's fetch from 0 returns (-1: none). */
    private static long lastOffsetRead(Partition p) {
        long last = -1;
        for (var b : p.read(0, 1 << 20, true, -1, true).records().batches()) last = b.lastOffset();
        return last;
    }

    @Test
    void lsoIgnoresOpenTxn() throws Exception {
        assertEquals(6, lastStableOffsetWithAnOpenTransaction(SeededBug.LSO_IGNORES_OPEN_TXN),
                "with the bug, read_committed reads the open transaction's records");
    }

    @Test
    void withoutTheBugTheOpenTransactionBoundsTheLso() throws Exception {
        assertEquals(3, lastStableOffsetWithAnOpenTransaction());
    }

    // ------------------------------------------------------------------ zombie-not-fenced

    /**
     * Producer 7 at epoch 0 opens a transaction; its coordinator fences it (a new instance, or the transaction's
     * timeout) and writes the abort marker with epoch 1. The fenced instance then sends its next batch at epoch 0:
     * the open transactions afterwards, or the exception the append threw.
     */
    private Object zombieAppendAfterFencingMarker(SeededBug... bugs) throws Exception {
        Partition p = open("zombie", bugs);
        p.appendAsLeader(txn(7, (short) 0, 0, 2));                // 0-1
        p.appendMarker(7, (short) 1, 0, false, 0L, Runnable::run);  // 2: ABORT with the bumped epoch
        assertEquals(Map.of(), p.openTransactions());
        try {
            p.appendAsLeader(txn(7, (short) 0, 2, 1));            // the zombie's next batch, sequence 2
            return p.openTransactions();
        } catch (InvalidProducerEpochException fenced) {
            return fenced.getClass();
        }
    }

    @Test
    void zombieNotFenced() throws Exception {
        assertEquals(Map.of(7L, 3L), zombieAppendAfterFencingMarker(SeededBug.ZOMBIE_NOT_FENCED),
                "with the bug, the fenced producer's batch is appended and opens a transaction no coordinator knows");
    }

    @Test
    void withoutTheBugTheAbortMarkerFencesTheOldEpoch() throws Exception {
        assertEquals(InvalidProducerEpochException.class, zombieAppendAfterFencingMarker());
        Partition again = open("zombie2");
        again.appendMarker(7, (short) 1, 0, false, 0L, Runnable::run);
        assertThrows(InvalidProducerEpochException.class, () -> again.appendAsLeader(txn(7, (short) 0, 0, 1)));
    }

    // ------------------------------------------------------------------ aborted-index-not-recovered

    /**
     * An aborted transaction (0-2, marker 3) before a snapshot and one after it (5-6, marker 7); the partition is
     * closed and loaded again, as after a restart: its aborted-transaction index.
     */
    private List<AbortedTxn> abortedIndexAfterReload(SeededBug... bugs) throws Exception {
        Partition p = open("reload", bugs);
        p.appendAsLeader(txn(7, (short) 0, 0, 3));                // 0-2
        p.appendMarker(7, (short) 0, 0, false, 0L, Runnable::run);  // 3: ABORT
        p.appendAsLeader(txn(9, (short) 0, 0, 1));                // 4
        p.appendMarker(9, (short) 0, 0, true, 0L, Runnable::run);   // 5: COMMIT
        p.snapshotProducerStateIfChanged();
        p.appendAsLeader(txn(7, (short) 0, 3, 2));                // 6-7
        p.appendMarker(7, (short) 0, 0, false, 0L, Runnable::run);  // 8: ABORT
        assertEquals(List.of(new AbortedTxn(7, 0, 3), new AbortedTxn(7, 6, 8)), p.abortedTransactions(0, 100),
                "before the reload the index is complete either way");
        logs.remove(p.log());
        p.log().close();
        return open("reload", bugs).abortedTransactions(0, 100);
    }

    @Test
    void abortedIndexNotRecovered() throws Exception {
        assertEquals(List.of(), abortedIndexAfterReload(SeededBug.ABORTED_INDEX_NOT_RECOVERED),
                "with the bug, read_committed fetches are told of no aborted transaction after a restart");
    }

    @Test
    void withoutTheBugTheIndexIsRebuiltFromSnapshotAndLog() throws Exception {
        assertEquals(List.of(new AbortedTxn(7, 0, 3), new AbortedTxn(7, 6, 8)), abortedIndexAfterReload());
    }
}
