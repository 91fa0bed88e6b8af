package io.faultline.checker.queue;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A tiny builder for hand-written queue histories: each call appends an invocation and its completion. */
final class H {
    private final List<Op> ops = new ArrayList<>();

    List<Op> ops() {
        return List.copyOf(ops);
    }

    /** Index the next appended completion will get (its invocation takes the index before it). */
    long nextCompletionIndex() {
        return ops.size() + 1;
    }

    private H pair(int process, String f, OpValue invokeValue, OpType type, OpValue completion, String error) {
        ops.add(new Op(ops.size(), OpType.INVOKE, process, ops.size() * 10L, f, invokeValue, null));
        ops.add(new Op(ops.size(), type, process, ops.size() * 10L, f, completion, error));
        return this;
    }

    /** An acknowledged send of one value that landed at {@code offset}. */
    H send(int process, int key, long value, long offset) {
        return sends(process, OpType.OK, new long[] {key, value, offset});
    }

    /** A send with the given outcome and no known offset. */
    H send(int process, OpType type, int key, long value) {
        return pair(process, Op.SEND, OpValue.Txn.of(MicroOp.Send.invoke(key, value)), type,
                OpValue.Txn.of(MicroOp.Send.invoke(key, value)), type == OpType.OK ? null : "boom");
    }

    /** A multi-send op; each triple is {key, value, offset}, offset -1 meaning unknown. */
    H sends(int process, OpType type, long[]... kvo) {
        List<MicroOp> inv = new ArrayList<>();
        List<MicroOp> done = new ArrayList<>();
        for (long[] t : kvo) {
            inv.add(MicroOp.Send.invoke((int) t[0], t[1]));
            done.add(new MicroOp.Send((int) t[0], t[1], t[2] < 0 ? null : t[2]));
        }
        return pair(process, Op.SEND, new OpValue.Txn(inv), type, new OpValue.Txn(done),
                type == OpType.OK ? null : "boom");
    }

    /** A transaction (f = txn) of sends only; each triple is {key, value, offset}, offset -1 meaning unknown. */
    H txnSends(int process, OpType type, long[]... kvo) {
        List<MicroOp> inv = new ArrayList<>();
        List<MicroOp> done = new ArrayList<>();
        for (long[] t : kvo) {
            inv.add(MicroOp.Send.invoke((int) t[0], t[1]));
            done.add(new MicroOp.Send((int) t[0], t[1], t[2] < 0 ? null : t[2]));
        }
        return pair(process, Op.TXN, new OpValue.Txn(inv), type, new OpValue.Txn(done),
                type == OpType.OK ? null : "commitTransaction timed out");
    }

    /** An OK poll of one key; {@code offsetValue} alternates offset, value. */
    H poll(int process, int key, long... offsetValue) {
        return poll(process, OpType.OK, Map.of(key, recs(offsetValue)));
    }

    H poll(int process, OpType type, Map<Integer, List<MicroOp.Record>> reads) {
        return pair(process, Op.POLL, OpValue.Txn.of(MicroOp.Poll.invoke()), type,
                OpValue.Txn.of(MicroOp.poll(reads)), type == OpType.OK ? null : "boom");
    }

    /** A transaction op: sends then one poll. */
    H txn(int process, long[] sendKvo, int pollKey, long... offsetValue) {
        List<MicroOp> done = new ArrayList<>();
        done.add(new MicroOp.Send((int) sendKvo[0], sendKvo[1], sendKvo[2]));
        done.add(MicroOp.poll(Map.of(pollKey, recs(offsetValue))));
        return pair(process, Op.TXN, OpValue.Txn.of(MicroOp.Send.invoke((int) sendKvo[0], sendKvo[1]),
                MicroOp.Poll.invoke()), OpType.OK, new OpValue.Txn(done), null);
    }

    H assign(int process, boolean seekToBeginning, Integer... keys) {
        OpValue.Keys v = new OpValue.Keys(List.of(keys), seekToBeginning);
        return pair(process, Op.ASSIGN, v, OpType.OK, v, null);
    }

    /** An assign that starts at the partitions' ends (a tail reader). */
    H tail(int process, Integer... keys) {
        OpValue.Keys v = OpValue.Keys.tail(List.of(keys));
        return pair(process, Op.ASSIGN, v, OpType.OK, v, null);
    }

    H subscribe(int process, Integer... keys) {
        OpValue.Keys v = new OpValue.Keys(List.of(keys), false);
        return pair(process, Op.SUBSCRIBE, v, OpType.OK, v, null);
    }

    /** A subscribe with its outcome; {@code group}: the group its completion names (null: not recorded). */
    H subscribe(int process, boolean seekToBeginning, String group, OpType type, Integer... keys) {
        OpValue.Keys v = new OpValue.Keys(List.of(keys), seekToBeginning);
        return pair(process, Op.SUBSCRIBE, v, type, type == OpType.OK ? v.withGroup(group) : v,
                type == OpType.OK ? null : "boom");
    }

    /** Only the invocation of a poll (its completion comes later, with {@link #pollDone}): ops that overlap. */
    H pollInvoked(int process) {
        ops.add(new Op(ops.size(), OpType.INVOKE, process, ops.size() * 10L, Op.POLL,
                OpValue.Txn.of(MicroOp.Poll.invoke()), null));
        return this;
    }

    H pollDone(int process, OpType type, Map<Integer, List<MicroOp.Record>> reads) {
        ops.add(new Op(ops.size(), type, process, ops.size() * 10L, Op.POLL, OpValue.Txn.of(MicroOp.poll(reads)),
                type == OpType.OK ? null : "commit failed"));
        return this;
    }

    H crash(int process) {
        return pair(process, Op.CRASH, OpValue.None.INSTANCE, OpType.INFO, OpValue.None.INSTANCE, null);
    }

    static List<MicroOp.Record> recs(long... offsetValue) {
        List<MicroOp.Record> out = new ArrayList<>();
        for (int i = 0; i < offsetValue.length; i += 2) {
            out.add(new MicroOp.Record(offsetValue[i], offsetValue[i + 1]));
        }
        return out;
    }

    static Map<Integer, List<MicroOp.Record>> reads(Object... keyThenRecs) {
        Map<Integer, List<MicroOp.Record>> m = new LinkedHashMap<>();
        for (int i = 0; i < keyThenRecs.length; i += 2) {
            @SuppressWarnings("unchecked")
            List<MicroOp.Record> r = (List<MicroOp.Record>) keyThenRecs[i + 1];
            m.put((Integer) keyThenRecs[i], r);
        }
        return m;
    }
}
