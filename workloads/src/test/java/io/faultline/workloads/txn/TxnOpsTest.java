package io.faultline.workloads.txn;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Context;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Step;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TxnOpsTest {

    @Test
    void transactionsMixSendsOfFreshValuesAndPollsOverEveryKey() {
        Gen g = TxnOps.create(5, 3);
        Context ctx = Context.allFree(0, 2);
        Set<Long> values = new HashSet<>();
        Set<Integer> keys = new TreeSet<>();
        Set<Integer> sizes = new TreeSet<>();
        int sends = 0;
        int polls = 0;
        for (int i = 0; i < 500; i++) {
            Step.Emit e = (Step.Emit) g.next(ctx);
            assertEquals(Op.TXN, e.op().f());
            var mops = ((OpValue.Txn) e.op().value()).mops();
            sizes.add(mops.size());
            for (MicroOp m : mops) {
                if (m instanceof MicroOp.Send s) {
                    sends++;
                    assertTrue(values.add(s.value()), "value " + s.value() + " sent twice");
                    assertNull(s.offset(), "no offset before the broker answers");
                    keys.add(s.key());
                } else {
                    polls++;
                    assertNull(((MicroOp.Poll) m).reads(), "an invoked poll has read nothing");
                }
            }
            g = e.next();
        }
        assertEquals(Set.of(1, 2, 3, 4), sizes);
        assertEquals(Set.of(0, 1, 2), keys);
        assertTrue(sends > 300 && polls > 300, sends + " sends, " + polls + " polls");
        assertEquals(((Step.Emit) TxnOps.create(5, 3).next(ctx)).op(), ((Step.Emit) TxnOps.create(5, 3).next(ctx)).op(),
                "same seed, same transactions");
    }

    @Test
    void noKeysIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> TxnOps.create(1, 0));
    }
}
