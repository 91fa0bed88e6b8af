package io.faultline.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The one owner of transaction state moves, and the record format that persists them. */
class TransactionStateTest {
    private static final TopicPartition A = new TopicPartition("a", 0);
    private static final TopicPartition B = new TopicPartition("b", 1);

    @Test
    void aTransactionGoesThroughItsStatesAndIllegalMovesThrow() {
        TxnMetadata empty = TxnMetadata.fresh("t", 7, 60_000, 100);
        TxnMetadata ongoing = empty.transitionTo(TransactionState.ONGOING, 7, (short) 0, 60_000, Set.of(A), 200);
        assertEquals(200, ongoing.txnStartMs());
        TxnMetadata more = ongoing.transitionTo(TransactionState.ONGOING, 7, (short) 0, 60_000, Set.of(B), 300);
        assertEquals(Set.of(A, B), more.partitions());
        assertEquals(200, more.txnStartMs(), "adding partitions keeps the transaction's start");
        TxnMetadata prepared = more.transitionTo(TransactionState.PREPARE_COMMIT, 400);
        assertEquals(Set.of(A, B), prepared.partitions(), "the markers go to every partition");
        TxnMetadata done = prepared.transitionTo(TransactionState.COMPLETE_COMMIT, 500);
        assertEquals(Set.of(), done.partitions());

        assertThrows(IllegalStateException.class, () -> empty.transitionTo(TransactionState.PREPARE_COMMIT, 1),
                "nothing to commit");
        assertThrows(IllegalStateException.class, () -> prepared.transitionTo(TransactionState.ONGOING, 1),
                "a prepared transaction only completes");
        assertThrows(IllegalStateException.class, () -> prepared.transitionTo(TransactionState.COMPLETE_ABORT, 1),
                "a commit never completes as an abort");
        assertThrows(IllegalStateException.class, () -> done.transitionTo(TransactionState.PREPARE_COMMIT, 1));
        assertThrows(IllegalStateException.class, () -> ongoing.transitionTo(TransactionState.EMPTY, 1),
                "an open transaction is aborted before the epoch is bumped");
    }

    @Test
    void theLogRecordRoundTrips() {
        TxnMetadata m = TxnMetadata.fresh("id-ü", 42, 30_000, 1)
                .transitionTo(TransactionState.ONGOING, 42, (short) 3, 30_000, Set.of(A, B), 5)
                .transitionTo(TransactionState.PREPARE_ABORT, 9);
        String id = TxnLogCodec.transactionalId(ByteBuffer.wrap(TxnLogCodec.key(m.transactionalId())));
        assertEquals(m, TxnLogCodec.decode(id, ByteBuffer.wrap(TxnLogCodec.value(m))));
    }
}
