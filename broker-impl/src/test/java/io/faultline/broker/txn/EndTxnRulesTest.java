package io.faultline.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** EndTxn's rules for transaction versions 1 and 2, including the exhausted-epoch move to a new producer id. */
class EndTxnRulesTest {
    private static final TopicPartition A = new TopicPartition("a", 0);
    private static final long PID = 7;
    private static final long NEW_PID = 99;

    private static TxnMetadata ongoing(short epoch) {
        return new TxnMetadata("t", PID, epoch, 60_000, TransactionState.EMPTY, Set.of(), -1, 0)
                .transitionTo(TransactionState.ONGOING, PID, epoch, 60_000, Set.of(A), 1);
    }

    private static EndTxnRules.Decision end(TxnMetadata m, long pid, short epoch, boolean v2) {
        return EndTxnRules.decide(m, false, pid, epoch, true, v2, () -> NEW_PID, 2);
    }

    /** A version-2 abort. */
    private static EndTxnRules.Decision abort(TxnMetadata m, long pid, short epoch) {
        return EndTxnRules.decide(m, false, pid, epoch, false, true, () -> NEW_PID, 2);
    }

    @Test
    void versionTwoBumpsTheEpochAndRecognisesARetryOfTheOldOne() {
        var p = assertInstanceOf(EndTxnRules.Prepare.class, end(ongoing((short) 4), PID, (short) 4, true));
        assertEquals(5, p.next().producerEpoch(), "the markers carry the bumped epoch");
        assertEquals(PID, p.producerId());
        assertEquals(5, p.producerEpoch(), "the client continues with the bumped epoch");
        assertEquals(new EndTxnRules.Answer(Errors.CONCURRENT_TRANSACTIONS, -1, (short) -1),
                end(p.next(), PID, (short) 4, true), "a retry while the markers are written");
        TxnMetadata done = p.next().complete(3);
        assertEquals(new EndTxnRules.Answer(Errors.NONE, PID, (short) 5), end(done, PID, (short) 4, true),
                "a retry after completion gets the producer's new epoch");
        assertEquals(Errors.PRODUCER_FENCED, ((EndTxnRules.Answer) end(done, PID, (short) 3, true)).error(),
                "an older epoch is a zombie");
        assertEquals(Errors.INVALID_TXN_STATE, ((EndTxnRules.Answer) end(done, PID, (short) 5, true)).error(),
                "the current epoch committing a transaction it never opened");
        var unseen = assertInstanceOf(EndTxnRules.Prepare.class, abort(done, PID, (short) 5),
                "the current epoch aborting one whose only record the client dropped before sending (Kafka 4.4 too)");
        assertEquals(TransactionState.PREPARE_ABORT, unseen.next().state());
        assertEquals(Set.of(), unseen.next().partitions(), "no marker to write");
        assertEquals(6, unseen.producerEpoch(), "bumped, as every version-2 end");
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, ((EndTxnRules.Answer) abort(p.next(), PID, (short) 5)).error(),
                "the next transaction's end while this one's markers are written waits");
        assertInstanceOf(EndTxnRules.Prepare.class, abort(new TxnMetadata("t", PID, (short) 4, 60_000,
                TransactionState.EMPTY, Set.of(), -1, 0), PID, (short) 4), "an abort of an empty transaction");
    }

    @Test
    void aClientWhoseTransactionTheCoordinatorAbortedIsFencedNotTakenForARetry() {
        var p = assertInstanceOf(EndTxnRules.Prepare.class, end(ongoing((short) 4), PID, (short) 4, true));
        TxnMetadata next = p.next().complete(3).transitionTo(TransactionState.ONGOING, PID, (short) 5, 60_000,
                Set.of(A), 4);
        TxnMetadata timedOut = next.fence((short) 6, 60_000, 5).complete(6);
        assertEquals(Errors.PRODUCER_FENCED, ((EndTxnRules.Answer) EndTxnRules.decide(timedOut, false, PID, (short) 5,
                false, true, () -> NEW_PID, 7)).error(), "its abort with the epoch before the fencing one");
    }

    @Test
    void versionOneKeepsTheEpoch() {
        var p = assertInstanceOf(EndTxnRules.Prepare.class, end(ongoing((short) 4), PID, (short) 4, false));
        assertEquals(4, p.next().producerEpoch());
        TxnMetadata done = p.next().complete(3);
        assertEquals(4, done.producerEpoch());
        assertEquals(Errors.NONE, ((EndTxnRules.Answer) end(done, PID, (short) 4, false)).error(), "a retry");
        assertEquals(Errors.PRODUCER_FENCED, ((EndTxnRules.Answer) end(done, PID, (short) 3, false)).error());
    }

    @Test
    void anExhaustedEpochMovesTheProducerToANewIdOnceTheMarkersAreWritten() {
        short last = Short.MAX_VALUE - 1;
        var p = assertInstanceOf(EndTxnRules.Prepare.class, end(ongoing(last), PID, last, true));
        assertEquals(PID, p.next().producerId(), "the markers are written by the old id");
        assertEquals(Short.MAX_VALUE, p.next().producerEpoch(), "with its very last epoch");
        assertEquals(NEW_PID, p.producerId(), "the client is told the id it continues with");
        assertEquals(0, p.producerEpoch());
        assertTrue(EndTxnRules.isNextProducer(p.next(), NEW_PID), "its requests wait for the markers");
        TxnMetadata done = p.next().complete(3);
        assertEquals(NEW_PID, done.producerId());
        assertEquals(0, done.producerEpoch());
        assertEquals(new EndTxnRules.Answer(Errors.NONE, NEW_PID, (short) 0), end(done, PID, last, true),
                "a retry by the old id and epoch");
        TxnMetadata reloaded = TxnLogCodec.decode("t", java.nio.ByteBuffer.wrap(TxnLogCodec.value(p.next())));
        assertEquals(p.next(), reloaded, "a new coordinator loads the prepared move whole");
    }
}
