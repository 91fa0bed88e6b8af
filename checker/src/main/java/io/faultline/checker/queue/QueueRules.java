package io.faultline.checker.queue;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Rules both queue checkers share, so they cannot disagree about what a history says. */
final class QueueRules {
    private QueueRules() {
    }

    /**
     * Whether a poll completing this way delivered its records to a client. An indeterminate (info) poll did:
     * its records were returned even if the commit after them failed. A failed poll delivered nothing.
     */
    static boolean delivers(OpType type) {
        return type == OpType.OK || type == OpType.INFO;
    }

    /**
     * Whether this send, in an op completing this way, was acknowledged for good. Every send of an ok op was. A
     * send of an indeterminate op that got its own offset back was too (the sends of one plain op are not atomic)
     * -- except in a transaction ({@code f = txn}): its sends are acknowledged before the commit, and a commit that
     * ended info may have aborted them all, so only a read proves they count (as the txn checker has it).
     */
    static boolean acknowledged(Op op, MicroOp.Send send) {
        return op.type() == OpType.OK
                || (op.type() == OpType.INFO && send.offset() != null && !Op.TXN.equals(op.f()));
    }

    /** Every record an op polled, per key, in the order its polls returned them (kafka.clj's op-reads). */
    static Map<Integer, List<MicroOp.Record>> opReads(OpValue.Txn txn) {
        Map<Integer, List<MicroOp.Record>> single = onlyPollsReads(txn);
        if (single != null) {
            return single;
        }
        Map<Integer, List<MicroOp.Record>> out = null;
        for (MicroOp m : txn.mops()) {
            if (m instanceof MicroOp.Poll p && p.reads() != null) {
                for (Map.Entry<Integer, List<MicroOp.Record>> e : p.reads().entrySet()) {
                    if (e.getValue().isEmpty()) {
                        continue;
                    }
                    if (out == null) {
                        out = new LinkedHashMap<>(4);
                    }
                    out.computeIfAbsent(e.getKey(), k -> new ArrayList<>(e.getValue().size())).addAll(e.getValue());
                }
            }
        }
        return out == null ? Map.of() : out;
    }

    /**
     * The usual case without copying: the reads of the op's one completed poll, if it has exactly one and that
     * poll read something from every key it lists (else null, and the records are joined as above).
     */
    private static Map<Integer, List<MicroOp.Record>> onlyPollsReads(OpValue.Txn txn) {
        Map<Integer, List<MicroOp.Record>> found = null;
        for (MicroOp m : txn.mops()) {
            if (m instanceof MicroOp.Poll p && p.reads() != null) {
                if (found != null) {
                    return null;
                }
                found = p.reads();
            }
        }
        if (found == null) {
            return Map.of();
        }
        for (List<MicroOp.Record> recs : found.values()) {
            if (recs.isEmpty()) {
                return null;
            }
        }
        return found;
    }
}
