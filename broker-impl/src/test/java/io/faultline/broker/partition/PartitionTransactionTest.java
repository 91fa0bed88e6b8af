package io.faultline.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.Time;
import io.faultline.broker.partition.ProducerStateManager.AbortedTxn;
import io.faultline.broker.storage.LogConfig;
import io.faultline.broker.storage.PartitionLog;
import io.faultline.broker.storage.RecoveryState;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The partition side of transactions: open transactions, markers, the last stable offset, the aborted index. */
class PartitionTransactionTest {
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    @TempDir
    Path dir;

    private Partition open(boolean withSnapshots) throws Exception {
        PartitionLog log = PartitionLog.open(dir.resolve("t-0"), LogConfig.DEFAULT, Time.SYSTEM, RecoveryState.UNKNOWN);
        Partition p = new Partition(new TopicPartition("t", 0), TOPIC_ID, log, 1, tp -> { },
                withSnapshots ? new ProducerStateSnapshots(dir) : null);
        p.makeLeader(1, Set.of(1));
        return p;
    }

    private static MemoryRecords txn(long pid, int seq, int n) {
        SimpleRecord[] r = new SimpleRecord[n];
        for (int i = 0; i < n; i++) r[i] = new SimpleRecord(("v" + i).getBytes());
        return MemoryRecords.withTransactionalRecords(Compression.NONE, pid, (short) 0, seq, r);
    }

    private static MemoryRecords plain(int n) {
        SimpleRecord[] r = new SimpleRecord[n];
        for (int i = 0; i < n; i++) r[i] = new SimpleRecord(("p" + i).getBytes());
        return MemoryRecords.withRecords(Compression.NONE, r);
    }

    private static void marker(Partition p, long pid, boolean commit) {
        p.appendMarker(pid, (short) 0, 0, commit, 0L, Runnable::run);
    }

    @Test
    void lastStableOffsetStopsAtTheEarliestOpenTransactionUntilItsMarker() throws Exception {
        Partition p = open(false);
        p.appendAsLeader(plain(2));                  // 0-1
        p.appendAsLeader(txn(7, 0, 3));              // 2-4, producer 7 opens at 2
        p.appendAsLeader(txn(8, 0, 1));              // 5, producer 8 opens at 5
        assertEquals(6, p.highWatermark());
        assertEquals(2, p.lastStableOffset());
        assertEquals(0, p.read(2, 1 << 20, true, -1, true).records().sizeInBytes(),
                "read_committed sees nothing at the open transaction");
        assertTrue(p.read(2, 1 << 20, true, -1, false).records().sizeInBytes() > 0, "read_uncommitted does");
        marker(p, 7, true);                          // 6
        assertEquals(5, p.lastStableOffset(), "the next open transaction bounds it now");
        marker(p, 8, false);                         // 7
        assertEquals(8, p.lastStableOffset());
        assertEquals(List.of(new AbortedTxn(8, 5, 7)), p.abortedTransactions(0, 8));
        assertEquals(List.of(), p.abortedTransactions(0, 5), "a read that ends before the transaction began");
        assertEquals(List.of(), p.abortedTransactions(8, 100), "a read that starts after its marker");
        p.log().close();
    }

    @Test
    void theAbortedIndexSurvivesRestartWithAndWithoutASnapshot() throws Exception {
        Partition p = open(true);
        p.appendAsLeader(txn(7, 0, 3));              // 0-2
        marker(p, 7, false);                         // 3
        p.appendAsLeader(txn(9, 0, 1));              // 4, still open
        p.snapshotProducerStateIfChanged();
        p.appendAsLeader(txn(7, 3, 2));              // 5-6: producer 7's next transaction, after the snapshot
        marker(p, 7, false);                         // 7
        p.log().close();

        Partition fromSnapshot = open(true);
        assertEquals(List.of(new AbortedTxn(7, 0, 3), new AbortedTxn(7, 5, 7)), fromSnapshot.abortedTransactions(0, 100));
        assertEquals(java.util.Map.of(9L, 4L), fromSnapshot.openTransactions());
        fromSnapshot.log().close();

        Partition fromLog = open(false);
        assertEquals(List.of(new AbortedTxn(7, 0, 3), new AbortedTxn(7, 5, 7)), fromLog.abortedTransactions(0, 100));
        fromLog.log().updateHighWatermark(fromLog.log().logEndOffset());
        assertEquals(4, fromLog.lastStableOffset(), "the open transaction still bounds the last stable offset");
        fromLog.log().close();
    }

    @Test
    void truncationBelowAMarkerReopensItsTransaction() throws Exception {
        Partition p = open(true);
        p.appendAsLeader(txn(7, 0, 2));              // 0-1
        marker(p, 7, false);                         // 2
        p.snapshotProducerStateIfChanged();          // a snapshot beyond the cut is discarded
        p.makeFollower(2, 3);
        p.truncateTo(2);
        assertEquals(List.of(), p.abortedTransactions(0, 100));
        assertEquals(java.util.Map.of(7L, 0L), p.openTransactions());
        p.truncateTo(0);
        assertEquals(java.util.Map.of(), p.openTransactions());
        p.log().close();
    }

    @Test
    void clientsCannotWriteMarkersAndOldEpochMarkersAreRefused() throws Exception {
        Partition p = open(false);
        MemoryRecords forged = MemoryRecords.withEndTransactionMarker(0L, 7L, (short) 0,
                new EndTransactionMarker(ControlRecordType.COMMIT, 0));
        assertThrows(InvalidRecordException.class, () -> p.appendAsLeader(forged));
        p.appendMarker(7, (short) 3, 0, false, 0L, Runnable::run);
        assertThrows(InvalidProducerEpochException.class,
                () -> p.appendMarker(7, (short) 2, 0, true, 0L, Runnable::run));
        assertThrows(InvalidProducerEpochException.class, () -> p.appendAsLeader(txn(7, 0, 1)),
                "a fenced producer's data is refused after the bumped-epoch marker");
        p.log().close();
    }
}
