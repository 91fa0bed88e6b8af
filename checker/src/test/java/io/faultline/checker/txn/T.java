package io.faultline.checker.txn;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Hand-written transactional histories: invocations and completions appended separately, so overlap is explicit. */
final class T {
    private final List<Op> ops = new ArrayList<>();

    List<Op> ops() {
        return List.copyOf(ops);
    }

    T invoke(int process) {
        ops.add(new Op(ops.size(), OpType.INVOKE, process, ops.size() * 1_000_000L, Op.TXN, OpValue.Txn.of(MicroOp.Poll.invoke()), null));
        return this;
    }

    T complete(int process, OpType type, MicroOp... mops) {
        ops.add(new Op(ops.size(), type, process, ops.size() * 1_000_000L, Op.TXN, new OpValue.Txn(List.of(mops)),
                type == OpType.OK ? null : "boom"));
        return this;
    }

    /** Invoke and complete at once: the transaction precedes everything after it in real time. */
    T txn(int process, OpType type, MicroOp... mops) {
        return invoke(process).complete(process, type, mops);
    }

    /** Index of the last appended op. */
    long last() {
        return ops.size() - 1;
    }

    static MicroOp send(int key, long value, long offset) {
        return new MicroOp.Send(key, value, offset);
    }

    /** A poll of one key; offsetValue alternates offset, value. */
    static MicroOp poll(int key, long... offsetValue) {
        List<MicroOp.Record> recs = new ArrayList<>();
        for (int i = 0; i < offsetValue.length; i += 2) {
            recs.add(new MicroOp.Record(offsetValue[i], offsetValue[i + 1]));
        }
        return MicroOp.poll(Map.of(key, recs));
    }
}
