package io.faultline.workloads.txn;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.Workload;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;

import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * The txn-queue's final reads, as Jepsen's Kafka workload ends a run: after the heal and the recovery wait, one
 * worker crashes its clients (a fresh process, free of the faults' leftovers), assigns every key from the
 * beginning, and makes one final poll that reads every partition from offset 0 with a read_committed consumer up to
 * the end offsets (the LSO) fetched first. That poll is an ordinary ok poll in the history, so both checkers judge
 * the whole committed logs: an aborted record anywhere in them is an aborted read (G1a), and a committed value
 * below what the final read reached but never read is a lost write. The assign's seek to the beginning tells the
 * queue checker that going back to offset 0 is no nonmonotonic poll; a value read again is no duplicate (that takes
 * one value at two offsets).
 *
 * <p>The poll is bounded by a deadline; if it hits, the poll still completes ok with what it read, and its error
 * says how far it got ({@link #reached} is then false).
 */
public final class TxnFinalReads implements Workload.FinalReads {
    /** Error prefix of a final poll that stopped at its deadline before the end offsets. */
    public static final String SHORT = "final read stopped at its deadline";

    /** The one worker that reads: the logs are read whole once, not once per worker. */
    private static final Set<Integer> READER = Set.of(0);

    private final int keys;
    private final long timeoutNanos;

    /** @param timeoutNanos bound on the whole final phase (the client's own deadline is slightly shorter) */
    public TxnFinalReads(int keys, long timeoutNanos) {
        if (keys < 1) throw new IllegalArgumentException("keys must be at least 1");
        this.keys = keys;
        this.timeoutNanos = timeoutNanos;
    }

    @Override
    public Gen generator(List<Op> before) {
        List<Integer> all = IntStream.range(0, keys).boxed().toList();
        // each step waits for the one before (a barrier sees every thread, so the restriction goes inside)
        Gen reads = Gens.phases(
                Gens.onThreads(READER, Gens.once(Gens.op(Op.CRASH, OpValue.None.INSTANCE))),
                Gens.onThreads(READER, Gens.once(Gens.op(Op.ASSIGN, new OpValue.Keys(all, true)))),
                Gens.onThreads(READER, Gens.once(Gens.op(Op.POLL, OpValue.Txn.of(MicroOp.Poll.invoke())))));
        return Gens.timeLimit(timeoutNanos, reads);
    }

    /** Reached when a final poll completed ok without stopping at its deadline. */
    @Override
    public boolean reached(List<Op> before, List<Op> finalOps) {
        return finalOps.stream().anyMatch(TxnFinalReads::completeFinalPoll);
    }

    static boolean completeFinalPoll(Op op) {
        return op.type() == OpType.OK && Op.POLL.equals(op.f()) && op.error() == null;
    }
}
