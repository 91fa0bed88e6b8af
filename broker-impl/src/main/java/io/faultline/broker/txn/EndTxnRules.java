package io.faultline.broker.txn;

import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.Errors;

/**
 * What the coordinator does with an EndTxn, decided from the transactional id's current state alone (Kafka's
 * TransactionCoordinator.endTransaction rules). Version 1 requires the producer's exact id and epoch. Version 2
 * (EndTxn v5+) bumps the epoch at every end, so a retried EndTxn arrives with the epoch just before the current one
 * (or, after an exhausted epoch moved the producer to a new id, with the previous id and the last epoch); that is a
 * retry, answered with the current id and epoch; an older epoch is a zombie (fenced, as Kafka answers). A version-2 abort with the current epoch of a transaction the
 * coordinator never saw (EMPTY, or COMPLETE_* after the last one ended) is prepared like any other, with no partitions
 * and the epoch bumped: the client counts a transaction as started once it sends to a partition, and a record it
 * dropped before sending never reached a leader (Kafka 4.4 accepts it; refusing it left such producers fenced or in
 * an invalid state). Such an end while the previous transaction's markers are still written waits
 * (CONCURRENT_TRANSACTIONS, which the client retries); Kafka 4.4 fences it (a prepared state there accepts only the
 * retry of the bump), but the epoch is the one this coordinator just handed that producer, so no zombie holds it.
 */
final class EndTxnRules {
    /** Answer at once: an error, or NONE for a retry of an end that already happened (with the producer to use). */
    record Answer(Errors error, long producerId, short producerEpoch) implements Decision {
        static Answer of(Errors e) {
            return new Answer(e, -1, (short) -1);
        }
    }

    /** Persist {@code next} (PREPARE_*), then answer with {@code producerId}/{@code producerEpoch} and write markers. */
    record Prepare(TxnMetadata next, long producerId, short producerEpoch) implements Decision {
    }

    sealed interface Decision permits Answer, Prepare {
    }

    private EndTxnRules() {
    }

    /**
     * @param m           the current state (persisted)
     * @param pending     whether a change of it is being persisted
     * @param v2          whether the request is EndTxn v5+ (transaction version 2: bump the epoch)
     * @param newProducer allocates a producer id, for a bump that exhausts the epoch
     */
    static Decision decide(TxnMetadata m, boolean pending, long producerId, short producerEpoch, boolean commit,
                           boolean v2, LongSupplier newProducer, long now) {
        TransactionState s = m.state();
        boolean retryOnOverflow = m.v2() && m.previousProducerId() == producerId
                && producerEpoch == Short.MAX_VALUE - 1 && m.producerEpoch() == 0;
        boolean retryOnBump = m.v2() && m.producerEpoch() == producerEpoch + 1;
        boolean validEpoch = !m.v2() ? producerEpoch == m.producerEpoch() : switch (s) {
            case ONGOING, EMPTY -> producerEpoch == m.producerEpoch();
            case PREPARE_COMMIT, PREPARE_ABORT -> retryOnBump || v2 && producerEpoch == m.producerEpoch();
            case COMPLETE_COMMIT, COMPLETE_ABORT -> retryOnBump || retryOnOverflow || v2 && producerEpoch == m.producerEpoch();
        };
        boolean retry = m.v2() && (retryOnBump || retryOnOverflow);
        if (m.producerId() != producerId && !retryOnOverflow) return Answer.of(Errors.INVALID_PRODUCER_ID_MAPPING);
        if (!validEpoch) return Answer.of(Errors.PRODUCER_FENCED);
        if (pending) return Answer.of(Errors.CONCURRENT_TRANSACTIONS);
        boolean abortUnseen = v2 && !commit && !retry; // see the class comment
        return switch (s) {
            case ONGOING -> prepare(m, commit, v2, newProducer, now);
            case COMPLETE_COMMIT -> commit ? (v2 && !retry ? Answer.of(Errors.INVALID_TXN_STATE) : done(m)) // a retried EndTxn
                    : abortUnseen ? prepare(m, false, true, newProducer, now) : Answer.of(Errors.INVALID_TXN_STATE);
            case COMPLETE_ABORT -> commit ? Answer.of(Errors.INVALID_TXN_STATE)
                    : abortUnseen ? prepare(m, false, true, newProducer, now) : done(m);
            // with the bumped epoch: the producer's next transaction ends while this one's markers are written
            case PREPARE_COMMIT -> Answer.of(commit || !retry ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE);
            case PREPARE_ABORT -> Answer.of(commit && retry ? Errors.INVALID_TXN_STATE : Errors.CONCURRENT_TRANSACTIONS);
            case EMPTY -> abortUnseen ? prepare(m, false, true, newProducer, now) : Answer.of(Errors.INVALID_TXN_STATE);
        };
    }

    private static Prepare prepare(TxnMetadata m, boolean commit, boolean v2, LongSupplier newProducer, long now) {
        boolean exhausted = v2 && TxnMetadata.epochExhausted(m.producerEpoch());
        TxnMetadata next = m.prepareEnd(commit, v2, exhausted ? newProducer.getAsLong() : -1, now);
        // The producer continues with the bumped epoch, or with the new id at epoch 0 once the exhausted one is
        // retired (Kafka 4.0 answers the bumped last epoch of the old id here, which the client cannot use for
        // another transaction; the id it will have is the useful answer).
        return exhausted ? new Prepare(next, next.nextProducerId(), (short) 0)
                : new Prepare(next, next.producerId(), next.producerEpoch());
    }

    private static Answer done(TxnMetadata m) {
        return new Answer(Errors.NONE, m.producerId(), m.producerEpoch());
    }

    /**
     * Whether a request of {@code producerId} comes from the producer a prepared version-2 transaction is moving to
     * (its epoch was exhausted): it already has its new id and must wait for the markers, not be refused.
     */
    static boolean isNextProducer(TxnMetadata m, long producerId) {
        return m.v2() && m.nextProducerId() == producerId
                && (m.state() == TransactionState.PREPARE_COMMIT || m.state() == TransactionState.PREPARE_ABORT);
    }
}
