package io.faultline.workloads.txn;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Context;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;
import io.faultline.workloads.generator.Rng;
import io.faultline.workloads.generator.Step;

import java.util.ArrayList;
import java.util.List;

/**
 * Transactions of the txn-queue workload: {@code f = txn}, 1..{@code maxMops} micro-ops, each a send of a fresh
 * value to a random key or a poll, in Jepsen's shape. Values are unique over the whole run (a counter carried in
 * the generator's state), as the Elle-style checker needs to tell writers apart.
 *
 * @param rng     the draw for the next transaction
 * @param next    the next value to send
 * @param keys    keys 0..keys-1
 * @param maxMops micro-ops per transaction at most
 */
public record TxnOps(Rng rng, long next, int keys, int maxMops) implements Gen {
    public TxnOps {
        if (keys < 1 || maxMops < 1) throw new IllegalArgumentException("keys and maxMops must be at least 1");
    }

    public static TxnOps create(long seed, int keys) {
        return new TxnOps(Rng.seeded(seed), 0, keys, 4);
    }

    @Override
    public Step next(Context ctx) {
        int t = ctx.anyFreeThread();
        if (t < 0) return Step.PENDING;
        int n = 1 + rng.split(1).below(maxMops);
        List<MicroOp> mops = new ArrayList<>(n);
        long value = next;
        Rng r = rng.split(2);
        for (int i = 0; i < n; i++) {
            if (r.below(2) == 0) {
                mops.add(MicroOp.Send.invoke(r.split(3).below(keys), value++));
            } else {
                mops.add(MicroOp.Poll.invoke());
            }
            r = r.advance();
        }
        var op = Gens.op(Op.TXN, new OpValue.Txn(mops)).withThread(t).withTime(ctx.time());
        return Step.emit(op, new TxnOps(rng.advance(), value, keys, maxMops));
    }
}
