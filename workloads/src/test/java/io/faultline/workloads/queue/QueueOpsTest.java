package io.faultline.workloads.queue;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Context;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Invocation;
import io.faultline.workloads.generator.Step;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QueueOpsTest {

    /** Drives a generator on one free thread at a time (all threads free), completing each op OK at once. */
    static List<Invocation> drive(Gen g, int threads, int n) {
        List<Invocation> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int t = i % threads;
            Context ctx = new Context(i, threads, List.of(t));
            Step.Emit e = (Step.Emit) g.next(ctx);
            out.add(e.op());
            g = e.next().update(ctx, new Op(i, OpType.OK, t, i, e.op().f(), e.op().value(), null));
        }
        return out;
    }

    static QueueOps.Options opts(int keys, int maxWrites, QueueOps.KeyDistribution d) {
        return QueueOps.Options.defaults().withKeys(keys, maxWrites, d);
    }

    @Test
    void everyThreadStartsWithAnAssignOfTheActiveKeys() {
        List<Invocation> ops = drive(QueueOps.create(opts(4, 100, QueueOps.KeyDistribution.UNIFORM), 1, 3), 3, 3);
        for (int t = 0; t < 3; t++) {
            assertEquals(Op.ASSIGN, ops.get(t).f());
            assertEquals(new OpValue.Keys(List.of(0, 1, 2, 3), false), ops.get(t).value());
        }
        QueueOps.Options sub = opts(2, 100, QueueOps.KeyDistribution.UNIFORM).withSubscribe(true);
        assertEquals(Op.SUBSCRIBE, drive(QueueOps.create(sub, 1, 1), 1, 1).get(0).f());
    }

    @Test
    void valuesCountUpPerKeyAndKeysRetireAfterMaxWrites() {
        List<Invocation> ops = drive(QueueOps.create(opts(3, 20, QueueOps.KeyDistribution.EXPONENTIAL), 7, 2), 2,
                3000);
        Map<Integer, List<Long>> values = new HashMap<>();
        for (Invocation inv : ops) {
            for (MicroOp m : ((inv.value() instanceof OpValue.Txn t) ? t.mops() : List.<MicroOp>of())) {
                if (m instanceof MicroOp.Send s) {
                    values.computeIfAbsent(s.key(), k -> new ArrayList<>()).add(s.value());
                }
            }
        }
        assertTrue(values.size() > 10, "keys should retire and be replaced: " + values.keySet());
        values.forEach((k, vs) -> {
            assertTrue(vs.size() <= 20, "key " + k + " got " + vs.size());
            for (int i = 0; i < vs.size(); i++) {
                assertEquals(i + 1L, vs.get(i), "key " + k);
            }
        });
        // Retirement makes every thread re-assign; the new assignment includes a key never assigned before.
        Set<Integer> assigned = new HashSet<>();
        int growingAssigns = 0;
        for (Invocation inv : ops) {
            if (inv.value() instanceof OpValue.Keys k) {
                if (assigned.addAll(k.keys())) {
                    growingAssigns++;
                }
            }
        }
        assertTrue(growingAssigns > 5);
    }

    @Test
    void sendsCarryOneToMaxMicroOps() {
        QueueOps.Options o = opts(4, 1000, QueueOps.KeyDistribution.UNIFORM).withMix(3, 1.0, 0, 0);
        Set<Integer> sizes = new HashSet<>();
        for (Invocation inv : drive(QueueOps.create(o, 3, 1), 1, 500)) {
            if (inv.f().equals(Op.SEND)) {
                sizes.add(((OpValue.Txn) inv.value()).mops().size());
            }
        }
        assertEquals(Set.of(1, 2, 3), sizes);
    }

    @Test
    void keyDistributions() {
        QueueOps g = QueueOps.create(opts(8, 1000, QueueOps.KeyDistribution.EXPONENTIAL), 1, 1);
        int[] hist = new int[8];
        for (int i = 0; i < 100_000; i++) {
            hist[g.pickSlot((i + 0.5) / 100_000)]++;
        }
        assertTrue(Math.abs(hist[0] - 50_000) < 1000, "slot 0 ≈ half: " + hist[0]);
        assertTrue(Math.abs(hist[1] - 25_000) < 1000, "slot 1 ≈ quarter: " + hist[1]);
        assertTrue(hist[7] > 0);
        QueueOps u = QueueOps.create(opts(8, 1000, QueueOps.KeyDistribution.UNIFORM), 1, 1);
        int[] flat = new int[8];
        for (int i = 0; i < 80_000; i++) {
            flat[u.pickSlot((i + 0.5) / 80_000)]++;
        }
        for (int c : flat) {
            assertEquals(10_000, c);
        }
    }

    @Test
    void infoCompletionMakesThatThreadReassign() {
        Gen g = QueueOps.create(opts(2, 100, QueueOps.KeyDistribution.UNIFORM).withMix(1, 1.0, 0, 0), 5, 2);
        Context t0 = new Context(0, 2, List.of(0));
        Step.Emit first = (Step.Emit) g.next(t0);
        assertEquals(Op.ASSIGN, first.op().f());
        g = first.next();
        Step.Emit send = (Step.Emit) g.next(t0);
        assertEquals(Op.SEND, send.op().f());
        g = send.next().update(t0, new Op(3, OpType.INFO, 0, 3, Op.SEND, send.op().value(), "timeout"));
        assertEquals(Op.ASSIGN, ((Step.Emit) g.next(t0)).op().f());
        // ...but only that thread: thread 1 still has its first assign pending and nothing else changes.
        assertInstanceOf(Step.Emit.class, g.next(new Context(0, 2, List.of(1))));
    }

    @Test
    void sameSeedSameStream() {
        QueueOps.Options o = QueueOps.Options.defaults().withMix(3, 0.5, 0.05, 0.01);
        assertEquals(drive(QueueOps.create(o, 9, 3), 3, 500), drive(QueueOps.create(o, 9, 3), 3, 500));
    }

    @Test
    void subscribingConsumersWithAnAssignShareAlsoAssignByHandAndReplayFromTheSeed() {
        QueueOps.Options mixed = opts(2, 50, QueueOps.KeyDistribution.UNIFORM).withSubscribe(true).withAssignShare(0.5)
                .withMix(3, 0.5, 0.2, 0);
        List<Invocation> ops = drive(QueueOps.create(mixed, 3, 4), 4, 400);
        long subscribes = ops.stream().filter(o -> o.f().equals(Op.SUBSCRIBE)).count();
        long assigns = ops.stream().filter(o -> o.f().equals(Op.ASSIGN)).count();
        assertTrue(subscribes > 10 && assigns > 10, "both kinds of keys ops: " + subscribes + " subscribes, " + assigns + " assigns");
        assertEquals(ops, drive(QueueOps.create(mixed, 3, 4), 4, 400), "same seed, same ops");

        QueueOps.Options plain = opts(2, 50, QueueOps.KeyDistribution.UNIFORM).withSubscribe(true).withMix(3, 0.5, 0.2, 0);
        assertTrue(drive(QueueOps.create(plain, 3, 4), 4, 400).stream().noneMatch(o -> o.f().equals(Op.ASSIGN)),
                "without the share, subscribing consumers only subscribe");
    }

    @Test
    void aWorkerKeepsItsConsumerModeUntilItLosesItsClient() {
        QueueOps.Options mixed = opts(2, 50, QueueOps.KeyDistribution.UNIFORM).withSubscribe(true).withAssignShare(0.5)
                .withMix(3, 0.5, 0.2, 0.02);
        int threads = 4;
        Gen g = QueueOps.create(mixed, 11, threads);
        java.util.Map<Integer, String> mode = new java.util.HashMap<>();
        int modeChanges = 0, keysOps = 0;
        for (int i = 0; i < 3000; i++) {
            int t = i % threads;
            Context ctx = new Context(i, threads, List.of(t));
            Step.Emit e = (Step.Emit) g.next(ctx);
            String f = e.op().f();
            if (f.equals(Op.SUBSCRIBE) || f.equals(Op.ASSIGN)) {
                keysOps++;
                String before = mode.put(t, f);
                assertTrue(before == null || before.equals(f), "thread " + t + " moved from " + before + " to " + f + " without a new client");
            }
            boolean crash = f.equals(Op.CRASH);
            if (crash) {
                modeChanges += mode.remove(t) == null ? 0 : 1; // a new client may draw the other mode
            }
            g = e.next().update(ctx, new Op(i, crash ? OpType.INFO : OpType.OK, t, i, f, e.op().value(), null));
        }
        assertTrue(keysOps > 100 && modeChanges > 5, keysOps + " keys ops, " + modeChanges + " new clients");
    }

    @Test
    void aTailShareStartsThatShareOfManualAssignsAtTheEndsAndLeavesSubscribesAlone() {
        QueueOps.Options base = opts(2, 50, QueueOps.KeyDistribution.UNIFORM).withSubscribe(true).withAssignShare(0.5)
                .withMix(3, 0.5, 0.2, 0);
        List<Invocation> ops = drive(QueueOps.create(base.withTailShare(0.5), 3, 4), 4, 600);
        long tails = ops.stream().filter(o -> o.value() instanceof OpValue.Keys k && k.seekToEnd()).count();
        long plainAssigns = ops.stream().filter(o -> o.f().equals(Op.ASSIGN)
                && o.value() instanceof OpValue.Keys k && !k.seekToEnd()).count();
        assertTrue(tails > 5 && plainAssigns > 5, tails + " tail assigns, " + plainAssigns + " plain ones");
        assertTrue(ops.stream().filter(o -> o.value() instanceof OpValue.Keys k && k.seekToEnd())
                .allMatch(o -> o.f().equals(Op.ASSIGN)), "only manual assigns seek");
        assertEquals(ops, drive(QueueOps.create(base.withTailShare(0.5), 3, 4), 4, 600), "same seed, same ops");
        assertTrue(drive(QueueOps.create(base, 3, 4), 4, 600).stream()
                .noneMatch(o -> o.value() instanceof OpValue.Keys k && k.seekToEnd()), "no share, no tail readers");
        assertThrows(IllegalArgumentException.class, () -> base.withTailShare(1.5));
    }

    @Test
    void readerThreadsOnlyPollAndTheOthersStillSend() {
        QueueOps.Options base = opts(3, 100, QueueOps.KeyDistribution.UNIFORM).withMix(3, 0.5, 0.05, 0);
        List<Invocation> mixed = drive(QueueOps.create(base.withReaders(2), 5, 4), 4, 800);
        for (Invocation inv : mixed) {
            if (inv.thread() < 2) assertFalse(inv.f().equals(Op.SEND), "thread " + inv.thread() + " reads only: " + inv);
        }
        assertTrue(mixed.stream().filter(i -> i.thread() >= 2).anyMatch(i -> i.f().equals(Op.SEND)), "the others send");
        assertTrue(mixed.stream().filter(i -> i.thread() < 2).filter(i -> i.f().equals(Op.POLL)).count() > 100);
        // with every thread a reader, the last one still sends
        List<Invocation> all = drive(QueueOps.create(base.withReaders(4), 5, 4), 4, 200);
        assertTrue(all.stream().anyMatch(i -> i.f().equals(Op.SEND) && i.thread() == 3), "someone writes");
        assertTrue(all.stream().noneMatch(i -> i.f().equals(Op.SEND) && i.thread() < 3));
        assertThrows(IllegalArgumentException.class, () -> base.withReaders(-1));
    }

    @Test
    void bulkSendsCarryHundredsOfRecordsToOneKeyAndWithoutThemTheStreamIsAsBefore() {
        QueueOps.Options base = opts(4, 1000, QueueOps.KeyDistribution.EXPONENTIAL);
        List<Invocation> ops = drive(QueueOps.create(base.withBulkShare(0.25), 5, 4), 4, 600);
        int bulk = 0;
        for (Invocation inv : ops) {
            if (!inv.f().equals(Op.SEND)) continue;
            List<MicroOp> mops = ((OpValue.Txn) inv.value()).mops();
            if (mops.size() <= base.maxSendMops()) continue;
            bulk++;
            assertTrue(mops.size() >= QueueOps.Options.BULK_MIN && mops.size() <= QueueOps.Options.BULK_MAX, "size " + mops.size());
            Set<Integer> keys = new HashSet<>();
            for (MicroOp m : mops) keys.add(((MicroOp.Send) m).key());
            assertTrue(keys.size() <= 2, "one key, or its successor once it retires midway: " + keys);
        }
        assertTrue(bulk > 10, "about a quarter of the sends are bulk: " + bulk);
        assertEquals(ops, drive(QueueOps.create(base.withBulkShare(0.25), 5, 4), 4, 600), "same seed, same ops");
        assertTrue(drive(QueueOps.create(base, 5, 4), 4, 600).stream().filter(o -> o.f().equals(Op.SEND))
                .allMatch(o -> ((OpValue.Txn) o.value()).mops().size() <= base.maxSendMops()), "no bulk sends unless asked");
        // Without bulk sends the generator draws as it did before they existed (hash of that stream, taken then),
        // so a stored run replays its own ops.
        assertEquals(635431981, drive(QueueOps.create(QueueOps.Options.defaults(), 11, 4), 4, 2000).toString().hashCode());
        assertThrows(IllegalArgumentException.class, () -> base.withBulkShare(1.5));
    }
}
