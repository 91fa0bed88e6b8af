package io.faultline.workloads.queue;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Context;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Step;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FinalDrainTest {
    static final long SECOND = 1_000_000_000L;

    private static Op done(Step.Emit e, OpType type, OpValue value) {
        return new Op(0, type, e.op().thread(), 0, e.op().f(), value, null);
    }

    /** Every drain thread opens with a crash (a fresh client): asserts it, and answers it. */
    private static Gen afterTheOpeningCrash(Gen g, Context ctx) {
        Step.Emit crash = (Step.Emit) g.next(ctx);
        assertEquals(Op.CRASH, crash.op().f());
        return crash.next().update(ctx, done(crash, OpType.INFO, OpValue.None.INSTANCE));
    }

    @Test
    void targetsAreTheHighestOffsetsAnyoneWasToldAbout() {
        List<Op> h = List.of(
                new Op(0, OpType.OK, 0, 0, Op.SEND, OpValue.Txn.of(new MicroOp.Send(1, 5, 7L)), null),
                new Op(1, OpType.INFO, 1, 0, Op.SEND, OpValue.Txn.of(new MicroOp.Send(1, 6, 9L)), null),
                new Op(2, OpType.FAIL, 1, 0, Op.SEND, OpValue.Txn.of(new MicroOp.Send(2, 6, 99L)), null),
                new Op(3, OpType.OK, 2, 0, Op.POLL,
                        OpValue.Txn.of(MicroOp.poll(Map.of(2, List.of(new MicroOp.Record(3, 1))))), null));
        assertEquals(Map.of(1, 9L, 2, 3L), FinalDrain.targetsFrom(h));
    }

    @Test
    void eachThreadCrashesAssignsFromTheBeginningAndPollsUntilCaughtUp() {
        Gen g = FinalDrain.forAllThreads(Map.of(1, 2L, 2, 0L), 60 * SECOND);
        Context ctx0 = new Context(0, 2, List.of(0));
        g = afterTheOpeningCrash(g, ctx0);
        Step.Emit assign = (Step.Emit) g.next(ctx0);
        assertEquals(new OpValue.Keys(List.of(1, 2), true), assign.op().value());
        g = assign.next().update(ctx0, done(assign, OpType.OK, assign.op().value()));
        // Poll: key 2 reaches its target, key 1 only offset 1 of 2.
        Step.Emit poll = (Step.Emit) g.next(ctx0);
        assertEquals(Op.POLL, poll.op().f());
        g = poll.next().update(ctx0, done(poll, OpType.OK, OpValue.Txn.of(MicroOp.poll(Map.of(
                1, List.of(new MicroOp.Record(0, 1), new MicroOp.Record(1, 2)), 2, List.of(new MicroOp.Record(0, 1)))))));
        Step.Emit poll2 = (Step.Emit) g.next(ctx0);
        assertEquals(Op.POLL, poll2.op().f());
        // An indeterminate poll means a fresh client: assign again before polling.
        Gen afterInfo = poll2.next().update(ctx0, done(poll2, OpType.INFO, poll2.op().value()));
        assertEquals(Op.ASSIGN, ((Step.Emit) afterInfo.next(ctx0)).op().f());
        g = poll2.next().update(ctx0, done(poll2, OpType.OK, OpValue.Txn.of(MicroOp.poll(Map.of(
                1, List.of(new MicroOp.Record(2, 3)))))));
        // Thread 0 is finished; thread 1 has not started, so the phase as a whole is not done.
        Context both = new Context(0, 2, List.of(0, 1));
        Step.Emit next = (Step.Emit) g.next(both);
        assertEquals(1, next.op().thread());
        assertEquals(Op.CRASH, next.op().f());
    }

    @Test
    void theLastOfSeveralThreadsReadsAsTheOnlyMemberOfANewGroup() {
        Gen g = FinalDrain.forAllThreads(Map.of(1, 2L), 60 * SECOND);
        Context last = new Context(0, 3, List.of(2));
        g = afterTheOpeningCrash(g, last);
        Step.Emit join = (Step.Emit) g.next(last);
        assertEquals(Op.SUBSCRIBE, join.op().f());
        assertEquals(new OpValue.Keys(List.of(1), true), join.op().value(), "a new group, from the beginning");
        // a failed subscribe is tried again, as a failed assign is
        Gen again = join.next().update(last, done(join, OpType.FAIL, join.op().value()));
        assertEquals(Op.SUBSCRIBE, ((Step.Emit) again.next(last)).op().f());
        // the other threads assign; a single thread assigns too
        assertEquals(false, FinalDrain.groupReader(new Context(0, 3, List.of(1)), 1));
        assertEquals(false, FinalDrain.groupReader(new Context(0, 1, List.of(0)), 0));
    }

    @Test
    void afterItsFirstRecordsTheGroupReaderIsReplacedByANewMemberOfItsGroupOnce() {
        Gen g = FinalDrain.forAllThreads(Map.of(1, 2L, 2, 1L), 60 * SECOND);
        Context last = new Context(0, 3, List.of(2));
        g = afterTheOpeningCrash(g, last);
        Step.Emit join = (Step.Emit) g.next(last);
        g = join.next().update(last, done(join, OpType.OK, new OpValue.Keys(List.of(1, 2), true, "g-new-1")));
        Step.Emit empty = (Step.Emit) g.next(last);
        g = empty.next().update(last, done(empty, OpType.OK, OpValue.Txn.of(MicroOp.poll(Map.of()))));
        Step.Emit poll = (Step.Emit) g.next(last);
        assertEquals(Op.POLL, poll.op().f(), "nothing read yet: it keeps polling");
        g = poll.next().update(last, done(poll, OpType.OK, OpValue.Txn.of(MicroOp.poll(Map.of(
                1, List.of(new MicroOp.Record(0, 1)))))));
        Step.Emit takeover = (Step.Emit) g.next(last);
        assertEquals(Op.SUBSCRIBE, takeover.op().f());
        assertEquals(new OpValue.Keys(List.of(1, 2), false, "g-new-1"), takeover.op().value(), "the same group, as a new member");
        g = takeover.next().update(last, done(takeover, OpType.OK, takeover.op().value()));
        Step.Emit after = (Step.Emit) g.next(last);
        assertEquals(Op.POLL, after.op().f());
        g = after.next().update(last, done(after, OpType.OK, OpValue.Txn.of(MicroOp.poll(Map.of(
                1, List.of(new MicroOp.Record(1, 2)))))));
        assertEquals(Op.POLL, ((Step.Emit) g.next(last)).op().f(), "one takeover a drain");
    }

    @Test
    void aGroupReaderThatReadsEverythingAtOnceIsNotReplaced() {
        Gen g = FinalDrain.forAllThreads(Map.of(1, 0L), 60 * SECOND);
        Context last = new Context(0, 2, List.of(1));
        g = afterTheOpeningCrash(g, last);
        Step.Emit join = (Step.Emit) g.next(last);
        g = join.next().update(last, done(join, OpType.OK, new OpValue.Keys(List.of(1), true, "g-new-2")));
        Step.Emit poll = (Step.Emit) g.next(last);
        g = poll.next().update(last, done(poll, OpType.OK, OpValue.Txn.of(MicroOp.poll(Map.of(1, List.of(new MicroOp.Record(0, 1)))))));
        // its part is done; the other thread (0) has not started, so the phase goes on there
        Step.Emit next = (Step.Emit) g.next(new Context(0, 2, List.of(0, 1)));
        assertEquals(0, next.op().thread());
    }

    @Test
    void boundedByTheTimeout() {
        Gen g = FinalDrain.forAllThreads(Map.of(1, 1_000L), SECOND);
        Step.Emit first = (Step.Emit) g.next(new Context(0, 1, List.of(0)));
        assertInstanceOf(Step.Done.class, first.next().next(new Context(SECOND + 1, 1, List.of(0))));
        assertTrue(FinalDrain.forAllThreads(Map.of(), SECOND).next(new Context(0, 1, List.of(0)))
                instanceof Step.Done);
    }
}
