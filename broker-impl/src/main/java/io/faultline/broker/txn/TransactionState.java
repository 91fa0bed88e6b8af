package io.faultline.broker.txn;

import java.util.EnumSet;
import java.util.Set;

/**
 * The states of one transactional id, and the only place that says which moves between them are legal (as Kafka's
 * TransactionState). A transaction goes
 * <pre>
 *   EMPTY ──AddPartitions/AddOffsets──▶ ONGOING ──EndTxn(commit)──▶ PREPARE_COMMIT ──markers written──▶ COMPLETE_COMMIT
 *                                          │      ──EndTxn(abort) / timeout / fenced──▶ PREPARE_ABORT ──▶ COMPLETE_ABORT
 * </pre>
 * and from a COMPLETE_* state (or EMPTY) it starts over: an InitProducerId bumps the epoch and returns to EMPTY, an
 * AddPartitions opens the next transaction. A PREPARE_* state is persisted before any marker is written, so a new
 * coordinator that loads it finishes the transaction the same way.
 */
public enum TransactionState {
    EMPTY((byte) 0),
    ONGOING((byte) 1),
    PREPARE_COMMIT((byte) 2),
    PREPARE_ABORT((byte) 3),
    COMPLETE_COMMIT((byte) 4),
    COMPLETE_ABORT((byte) 5);

    private final byte id;

    TransactionState(byte id) {
        this.id = id;
    }

    public byte id() {
        return id;
    }

    public static TransactionState of(byte id) {
        for (TransactionState s : values()) if (s.id == id) return s;
        throw new IllegalArgumentException("unknown transaction state " + id);
    }

    /** The states this one may be entered from. */
    private Set<TransactionState> legalPrevious() {
        return switch (this) {
            // InitProducerId (a new producer, or a bumped epoch after a finished transaction)
            case EMPTY -> EnumSet.of(EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            // the first partition of a transaction, or more partitions of the open one
            case ONGOING -> EnumSet.of(EMPTY, ONGOING, COMPLETE_COMMIT, COMPLETE_ABORT);
            case PREPARE_COMMIT -> EnumSet.of(ONGOING);
            // EndTxn(abort), the coordinator's timeout, or a new producer instance fencing this one; a version-2
            // abort of a transaction that never reached the coordinator (EndTxnRules)
            case PREPARE_ABORT -> EnumSet.of(ONGOING, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case COMPLETE_COMMIT -> EnumSet.of(PREPARE_COMMIT);
            case COMPLETE_ABORT -> EnumSet.of(PREPARE_ABORT);
        };
    }

    /** Whether a transaction in this state has partitions that may still hold undecided records. */
    public boolean isOpen() {
        return this == ONGOING || this == PREPARE_COMMIT || this == PREPARE_ABORT;
    }

    /**
     * Checks the move {@code from} → {@code this}.
     *
     * @throws IllegalStateException for a move the state machine does not allow
     */
    public void requireLegalFrom(TransactionState from) {
        if (!legalPrevious().contains(from)) {
            throw new IllegalStateException("illegal transaction state transition " + from + " -> " + this);
        }
    }

    /** Kafka's names, as DescribeTransactions and ListTransactions report them. */
    public String kafkaName() {
        return switch (this) {
            case EMPTY -> "Empty";
            case ONGOING -> "Ongoing";
            case PREPARE_COMMIT -> "PrepareCommit";
            case PREPARE_ABORT -> "PrepareAbort";
            case COMPLETE_COMMIT -> "CompleteCommit";
            case COMPLETE_ABORT -> "CompleteAbort";
        };
    }
}
