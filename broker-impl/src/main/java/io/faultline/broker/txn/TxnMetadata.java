package io.faultline.broker.txn;

import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * The persisted state of one transactional id: its producer id and epoch, timeout, state, the partitions of the
 * open transaction, when it started and when it last changed. Immutable; every change goes through
 * {@link #transitionTo}, which enforces {@link TransactionState}'s legal moves.
 */
public record TxnMetadata(String transactionalId, long producerId, short producerEpoch, int timeoutMs,
                          TransactionState state, Set<TopicPartition> partitions, long txnStartMs, long lastUpdateMs) {
    public TxnMetadata {
        partitions = Set.copyOf(partitions);
    }

    /** A new transactional id's first state. */
    static TxnMetadata fresh(String transactionalId, long producerId, int timeoutMs, long now) {
        return new TxnMetadata(transactionalId, producerId, (short) 0, timeoutMs, TransactionState.EMPTY, Set.of(), -1,
                now);
    }

    /**
     * The state after a legal move to {@code next}. A COMPLETE_* or EMPTY state holds no partitions; ONGOING keeps
     * the start time of the transaction it continues.
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
        return new TxnMetadata(transactionalId, producerId, epoch, timeoutMs, next, parts, start, now);
    }

    /** As {@link #transitionTo(TransactionState, long, short, int, Set, long)} keeping producer, epoch and timeout. */
    TxnMetadata transitionTo(TransactionState next, long now) {
        return transitionTo(next, producerId, producerEpoch, timeoutMs, Set.of(), now);
    }

    private static Set<TopicPartition> union(Set<TopicPartition> a, Set<TopicPartition> b) {
        Set<TopicPartition> out = new HashSet<>(a);
        out.addAll(b);
        return out;
    }
}
