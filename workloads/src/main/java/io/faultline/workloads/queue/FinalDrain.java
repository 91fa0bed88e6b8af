package io.faultline.workloads.queue;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Context;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;
import io.faultline.workloads.generator.Invocation;
import io.faultline.workloads.generator.Step;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One thread's part of the final phase: crash (a fresh client, free of any state the faults left behind), assign
 * every key from the beginning, then poll until this thread has read up to the highest offset anyone was told
 * about for every key. With two or more threads the last one subscribes instead, as the only member of a new
 * consumer group ({@code subscribe} with seekToBeginning set), which reads from the beginning as well; once it has
 * read something and has more to read, a new member takes its place in that group ({@code subscribe} naming the
 * group) while it departs without leaving, as a crashed consumer does: the coordinator must expire it by its session
 * and give its partitions to the newcomer. Use {@link #forAllThreads} for the whole phase.
 *
 * @param group   the new group the group reader joined (null until then, and on every other thread)
 * @param takenOver whether the takeover was asked for (once per drain)
 */
public record FinalDrain(List<Integer> keys, Map<Integer, Long> remaining, int stage, String group, boolean takenOver) implements Gen {
    private static final int CRASH = 0;
    private static final int ASSIGN = 1;
    private static final int POLL = 2;
    private static final int TAKEOVER = 3;

    public FinalDrain(List<Integer> keys, Map<Integer, Long> remaining, int stage) {
        this(keys, remaining, stage, null, false);
    }

    /** Every thread drains, all bounded by {@code timeoutNanos}. {@code targets}: key → highest known offset. */
    public static Gen forAllThreads(Map<Integer, Long> targets, long timeoutNanos) {
        if (targets.isEmpty()) {
            return Gens.seq();
        }
        List<Integer> keys = new ArrayList<>(new TreeMap<>(targets).keySet());
        return Gens.timeLimit(timeoutNanos, Gens.eachThread(new FinalDrain(keys, Map.copyOf(targets), CRASH)));
    }

    /** Highest offset per key that any completion reported (OK sends and polls, and sends of info ops). */
    public static Map<Integer, Long> targetsFrom(List<Op> history) {
        Map<Integer, Long> out = new HashMap<>();
        for (Op op : history) {
            if (op.type() != OpType.OK && op.type() != OpType.INFO) {
                continue;
            }
            for (MicroOp m : op.mops()) {
                if (m instanceof MicroOp.Send s && s.offset() != null) {
                    out.merge(s.key(), s.offset(), Math::max);
                } else if (m instanceof MicroOp.Poll p) {
                    p.readsOrEmpty().forEach((k, recs) -> {
                        if (!recs.isEmpty()) {
                            out.merge(k, recs.get(recs.size() - 1).offset(), Math::max);
                        }
                    });
                }
            }
        }
        return out;
    }

    @Override
    public Step next(Context ctx) {
        if (stage == POLL && remaining.isEmpty()) {
            return Step.DONE;
        }
        int t = ctx.anyFreeThread();
        if (t < 0) {
            return Step.PENDING;
        }
        Invocation op = switch (stage) {
            case CRASH -> new Invocation(t, ctx.time(), Op.CRASH, OpValue.None.INSTANCE);
            // the last of several workers reads as the one member of a new consumer group, so every run also shows
            // that a group can form and consume after the faults (the liveness check's unreadable-group)
            case ASSIGN -> new Invocation(t, ctx.time(), groupReader(ctx, t) ? Op.SUBSCRIBE : Op.ASSIGN,
                    new OpValue.Keys(keys, true));
            // a new member of the same group, the one so far departing without a word (KafkaQueueClient)
            case TAKEOVER -> new Invocation(t, ctx.time(), Op.SUBSCRIBE, new OpValue.Keys(keys, false, group));
            default -> new Invocation(t, ctx.time(), Op.POLL, OpValue.Txn.of(MicroOp.Poll.invoke()));
        };
        return Step.emit(op, new FinalDrain(keys, remaining, stage == TAKEOVER ? POLL : Math.min(POLL, stage + 1), group,
                takenOver || stage == TAKEOVER));
    }

    /** Whether thread {@code t} drains as a new group's only member (a subscribe with seekToBeginning). */
    static boolean groupReader(Context ctx, int t) {
        return ctx.threadCount() >= 2 && t == ctx.threadCount() - 1;
    }

    @Override
    public Gen update(Context ctx, Op event) {
        if (event.f().equals(Op.CRASH)) {
            return this; // the crash's info is expected
        }
        boolean keysOp = event.f().equals(Op.ASSIGN) || event.f().equals(Op.SUBSCRIBE);
        if (event.type() == OpType.INFO || (keysOp && event.type() != OpType.OK)) {
            return new FinalDrain(keys, remaining, ASSIGN, null, takenOver); // fresh client, or no assignment: assign again
        }
        if (event.f().equals(Op.SUBSCRIBE) && event.value() instanceof OpValue.Keys k && k.seekToBeginning()) {
            return new FinalDrain(keys, remaining, stage, k.group(), takenOver); // the group it joined, for the takeover
        }
        if (event.type() != OpType.OK || !event.f().equals(Op.POLL)) {
            return this;
        }
        Map<Integer, Long> left = new HashMap<>(remaining);
        for (MicroOp m : event.mops()) {
            if (m instanceof MicroOp.Poll p) {
                p.readsOrEmpty().forEach((k, recs) -> {
                    if (!recs.isEmpty() && recs.get(recs.size() - 1).offset() >= left.getOrDefault(k, Long.MAX_VALUE)) {
                        left.remove(k);
                    }
                });
            }
        }
        boolean read = left.size() < remaining.size() || event.mops().stream().anyMatch(m -> m instanceof MicroOp.Poll p
                && p.readsOrEmpty().values().stream().anyMatch(recs -> !recs.isEmpty()));
        // the group reader hands over after its first records, while it still has some to read
        int next = group != null && !takenOver && read && !left.isEmpty() ? TAKEOVER : stage;
        return left.size() == remaining.size() && next == stage ? this
                : new FinalDrain(keys, Map.copyOf(left), next, group, takenOver);
    }
}
