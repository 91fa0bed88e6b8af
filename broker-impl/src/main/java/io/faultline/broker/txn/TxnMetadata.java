package io.faultline.broker.txn;

import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * The persisted state of one transactional id: its producer id and epoch, timeout, state, the partitions of the
 * open transaction, when it started and when it last changed. Immutable; every change goes through
 * {@link #transitionTo}, which enforces {@link TransactionState}'s legal moves.
 *
 * <p>Transaction version 2 (KIP-890 part 2) adds three fields, as Kafka's TransactionMetadata: {@code v2} (the
 * transaction was ended with EndTxn v5+, so its end bumped the epoch), {@code nextProducerId} (the producer id a
 * prepared v2 transaction moves to because the bump exhausted the epoch; -1 otherwise) and {@code previousProducerId}
 * (the id before that move, so a retried EndTxn of the old id is recognised; -1 otherwise).
 */
public record TxnMetadata(String transactionalId, long producerId, short producerEpoch, int timeoutMs,
                          TransactionState state, Set<TopicPartition> partitions, long txnStartMs, long lastUpdateMs,
                          long previousProducerId, long nextProducerId, boolean v2) {
    public TxnMetadata {
        partitions = Set.copyOf(partitions);
    }

    /** A state without the transaction-version-2 fields (what version-0 records and v1 transactions hold). */
    public TxnMetadata(String transactionalId, long producerId, short producerEpoch, int timeoutMs,
                       TransactionState state, Set<TopicPartition> partitions, long txnStartMs, long lastUpdateMs) {
        this(transactionalId, producerId, producerEpoch, timeoutMs, state, partitions, txnStartMs, lastUpdateMs,
                -1, -1, false);
    }

    /** A new transactional id's first state. */
    static TxnMetadata fresh(String transactionalId, long producerId, int timeoutMs, long now) {
        return new TxnMetadata(transactionalId, producerId, (short) 0, timeoutMs, TransactionState.EMPTY, Set.of(), -1,
                now);
    }

    /**
     * The state after a legal move to {@code next}. A COMPLETE_* or EMPTY state holds no partitions; ONGOING keeps
     * the start time of the transaction it continues. The version-2 fields are kept.
     *
     * @throws IllegalStateException if the state machine forbids the move
     */
    TxnMetadata transitionTo(TransactionState next, long producerId, short epoch, int timeoutMs,
                             Set<TopicPartition> added, long now) {
        next.requireLegalFrom(state);
        Set<TopicPartition> parts = switch (next) {
            case EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT -> Set.of();
            case ONGOING -> union(state == TransactionState.ONGOING ? partitions : Set.of(), added);
            case PREPARE_COMMIT, PREPARE_ABORT -> partitions;
        };
        long start = switch (next) {
            case ONGOING -> state == TransactionState.ONGOING ? txnStartMs : now;
            case PREPARE_COMMIT, PREPARE_ABORT -> txnStartMs;
            default -> -1;
        };
        return new TxnMetadata(transactionalId, producerId, epoch, timeoutMs, next, parts, start, now,
                previousProducerId, nextProducerId, v2);
    }

    /** As {@link #transitionTo(TransactionState, long, short, int, Set, long)} keeping producer, epoch and timeout. */
    TxnMetadata transitionTo(TransactionState next, long now) {
        return transitionTo(next, producerId, producerEpoch, timeoutMs, Set.of(), now);
    }

    /**
     * EndTxn's move to PREPARE_COMMIT/ABORT. With transaction version 2 the epoch is bumped now, so the markers
     * carry the new epoch and fence any write of the ended transaction's epoch (Kafka's prepareAbortOrCommit); when
     * the bump reaches the last epoch, {@code nextProducerId} is the id the producer continues with once the markers
     * are written. With version 1 producer and epoch stay.
     */
    TxnMetadata prepareEnd(boolean commit, boolean bump, long nextProducerId, long now) {
        TxnMetadata t = transitionTo(commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT,
                producerId, bump ? (short) (producerEpoch + 1) : producerEpoch, timeoutMs, Set.of(), now);
        return new TxnMetadata(transactionalId, t.producerId, t.producerEpoch, timeoutMs, t.state, t.partitions,
                t.txnStartMs, now, previousProducerId, bump ? nextProducerId : -1, bump);
    }

    /**
     * The move to COMPLETE_COMMIT/ABORT once every marker is written. A version-2 transaction whose bump exhausted
     * the epoch moves to its next producer id at epoch 0 now (Kafka's prepareComplete), remembering the old id.
     */
    TxnMetadata complete(long now) {
        TxnMetadata t = transitionTo(state == TransactionState.PREPARE_COMMIT ? TransactionState.COMPLETE_COMMIT
                : TransactionState.COMPLETE_ABORT, now);
        if (!v2 || nextProducerId < 0) return t;
        return new TxnMetadata(transactionalId, nextProducerId, (short) 0, timeoutMs, t.state, Set.of(), -1, now,
                producerId, -1, true);
    }

    /**
     * The coordinator's own abort of an open transaction (a new instance's InitProducerId, or the timeout) with the
     * fencing epoch {@code epoch}. Not a version-2 end (Kafka's PrepareEpochFence is excluded from the v2 retry
     * rules): the fenced client's EndTxn with its old epoch is PRODUCER_FENCED, never taken for a retry.
     */
    TxnMetadata fence(short epoch, int timeoutMs, long now) {
        TxnMetadata t = transitionTo(TransactionState.PREPARE_ABORT, producerId, epoch, timeoutMs, Set.of(), now);
        return new TxnMetadata(transactionalId, producerId, epoch, timeoutMs, t.state, t.partitions, t.txnStartMs, now,
                previousProducerId, -1, false);
    }

    /** Whether one more bump would pass the last usable epoch (Kafka: epoch >= Short.MAX_VALUE - 1). */
    static boolean epochExhausted(short epoch) {
        return epoch >= Short.MAX_VALUE - 1;
    }

    private static Set<TopicPartition> union(Set<TopicPartition> a, Set<TopicPartition> b) {
        Set<TopicPartition> out = new HashSet<>(a);
        out.addAll(b);
        return out;
    }
}
