package io.faultline.workloads.txn;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Checker;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.checker.queue.QueueAnomaly;
import io.faultline.checker.queue.QueueChecker;
import io.faultline.checker.txn.TxnAnomaly;
import io.faultline.checker.txn.TxnChecker;
import io.faultline.workloads.PhaseRunner;
import io.faultline.workloads.Workload;
import io.faultline.workloads.generator.Client;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The final reads run through the real {@link PhaseRunner} against an in-memory transactional log whose final
 * read can misbehave as a broker with a broken aborted-transaction index (returns aborted records) or a lost
 * committed record would; the history then goes to the checkers txn-queue runs with.
 */
class TxnFinalReadsTest {
    private static final int KEYS = 2;
    private static final long ABORTED_VALUE = 3;
    private static final long DROPPED_VALUE = 5;

    enum FinalLog { CLEAN, SHOWS_ABORTED, DROPS_COMMITTED }

    /** A record of the shared log. */
    record Entry(long offset, long value, boolean committed) {}

    /**
     * One worker's client over the shared log: a transaction appends its sends (aborted if it sends
     * {@link #ABORTED_VALUE}) and polls the committed records past its own position; the final poll returns the
     * whole log, as {@code mode} says.
     */
    static final class LogClient implements Client {
        private final Map<Integer, List<Entry>> log;
        private final FinalLog mode;
        private final Map<Integer, Integer> position = new HashMap<>();

        LogClient(Map<Integer, List<Entry>> log, FinalLog mode) {
            this.log = log;
            this.mode = mode;
        }

        @Override
        public Completion invoke(String f, OpValue value) {
            synchronized (log) {
                return switch (f) {
                    case Op.CRASH -> new Completion(OpType.INFO, value, "client crashed on purpose");
                    case Op.ASSIGN -> Completion.ok(value);
                    case Op.POLL -> Completion.ok(OpValue.Txn.of(new MicroOp.Poll(finalRead())));
                    default -> transaction((OpValue.Txn) value);
                };
            }
        }

        private Completion transaction(OpValue.Txn txn) {
            boolean abort = txn.mops().stream().anyMatch(m -> m instanceof MicroOp.Send s && s.value() == ABORTED_VALUE);
            List<MicroOp> done = new ArrayList<>();
            for (MicroOp m : txn.mops()) {
                if (m instanceof MicroOp.Send s) {
                    List<Entry> l = log.computeIfAbsent(s.key(), k -> new ArrayList<>());
                    l.add(new Entry(l.size(), s.value(), !abort));
                    done.add(s.withOffset((long) l.size() - 1));
                } else {
                    Map<Integer, List<MicroOp.Record>> reads = new TreeMap<>();
                    log.forEach((k, l) -> {
                        for (int i = position.getOrDefault(k, 0); i < l.size(); i++) {
                            if (l.get(i).committed()) reads.computeIfAbsent(k, x -> new ArrayList<>())
                                    .add(new MicroOp.Record(i, l.get(i).value()));
                        }
                        position.put(k, l.size());
                    });
                    done.add(new MicroOp.Poll(reads));
                }
            }
            return abort ? new Completion(OpType.FAIL, new OpValue.Txn(done), "aborted on purpose")
                    : Completion.ok(new OpValue.Txn(done));
        }

        private Map<Integer, List<MicroOp.Record>> finalRead() {
            Map<Integer, List<MicroOp.Record>> reads = new TreeMap<>();
            log.forEach((k, l) -> {
                for (Entry e : l) {
                    boolean shown = e.committed() ? !(mode == FinalLog.DROPS_COMMITTED && e.value() == DROPPED_VALUE)
                            : mode == FinalLog.SHOWS_ABORTED;
                    if (shown) reads.computeIfAbsent(k, x -> new ArrayList<>()).add(new MicroOp.Record(e.offset(), e.value()));
                }
            });
            return reads;
        }

        @Override
        public void close() {}
    }

    private static Gen txn(MicroOp... mops) {
        return Gens.once(Gens.op(Op.TXN, OpValue.Txn.of(mops)));
    }

    /**
     * Thread 0 commits 1, 2 to key 0 and then polls them (so the final read reads them a second time); thread 1
     * aborts a send of 3 to key 0 after them, then commits 4, and later 5, 6, which no main-phase poll reads.
     */
    private static Gen mainPhase() {
        return Gens.phases(
                Gens.onThreads(Set.of(0), txn(MicroOp.Send.invoke(0, 1), MicroOp.Send.invoke(0, 2))),
                Gens.onThreads(Set.of(1), txn(MicroOp.Send.invoke(0, ABORTED_VALUE))),
                Gens.onThreads(Set.of(1), txn(MicroOp.Send.invoke(0, 4))),
                Gens.onThreads(Set.of(0), txn(MicroOp.Poll.invoke())),
                Gens.onThreads(Set.of(1), txn(MicroOp.Send.invoke(1, DROPPED_VALUE), MicroOp.Send.invoke(1, 6))));
    }

    /** The checkers as the harness wires them for txn-queue. */
    private static List<Checker> checkers() {
        return List.of(TxnChecker.forKafka(true), new QueueChecker(new QueueChecker.Options(
                // as the harness's txn-queue: markers take offsets, so holes (offset-gap) are expected
                EnumSet.of(QueueAnomaly.INT_SEND_SKIP, QueueAnomaly.UNSEEN, QueueAnomaly.OFFSET_GAP),
                QueueChecker.DEFAULT_MAX_EXAMPLES)));
    }

    private record Run(List<Op> history, boolean reached) {
        CheckResult txn() {
            return checkers().get(0).check(history);
        }

        CheckResult queue() {
            return checkers().get(1).check(history);
        }
    }

    private static Run run(FinalLog mode, Workload.FinalReads finalReads) throws Exception {
        Map<Integer, List<Entry>> log = new HashMap<>();
        Workload w = new Workload("txn-queue", bootstrap -> Workload.Session.of(t -> new LogClient(log, mode),
                List.of(), () -> {}), mainPhase(), finalReads, checkers());
        HistoryRecorder rec = HistoryRecorder.inMemory(2);
        PhaseRunner.Outcome o = PhaseRunner.run(w, "in-memory", rec, PhaseRunner.Faults.NONE, Duration.ZERO,
                d -> {}, PhaseRunner.Phases.NONE);
        return new Run(rec.ops(), o.reached());
    }

    private static TxnFinalReads finalReads() {
        return new TxnFinalReads(KEYS, Duration.ofMinutes(1).toNanos());
    }

    @Test
    void aCleanLogReadTwiceStaysValid() throws Exception {
        Run r = run(FinalLog.CLEAN, finalReads());
        List<Op> polls = r.history().stream().filter(TxnFinalReads::completeFinalPoll).toList();
        assertEquals(1, polls.size(), "one final poll, recorded ok");
        Map<Integer, List<MicroOp.Record>> read = ((MicroOp.Poll) polls.get(0).mops().get(0)).reads();
        assertEquals(List.of(1L, 2L, 4L), read.get(0).stream().map(MicroOp.Record::value).toList(),
                "the final read covers key 0 from offset 0, re-reading what thread 0 polled");
        assertTrue(r.reached());
        assertEquals(Verdict.VALID, r.txn().verdict(), r.txn().toString());
        assertEquals(Verdict.VALID, r.queue().verdict(), r.queue().toString());
        assertEquals(0, r.queue().count(QueueAnomaly.DUPLICATE.wireName()));
        assertEquals(0, r.queue().count(QueueAnomaly.NONMONOTONIC_POLL.wireName()));
    }

    @Test
    void anAbortedRecordSeenOnlyByTheFinalReadIsAnAbortedRead() throws Exception {
        Run r = run(FinalLog.SHOWS_ABORTED, finalReads());
        assertEquals(Verdict.INVALID, r.txn().verdict(), r.txn().toString());
        assertEquals(1, r.txn().count(TxnAnomaly.G1A));
        assertEquals(Verdict.INVALID, r.queue().verdict(), r.queue().toString());
        assertEquals(1, r.queue().count(QueueAnomaly.G1A.wireName()));
    }

    @Test
    void withoutFinalReadsTheSameBrokerGoesUnnoticed() throws Exception {
        Run r = run(FinalLog.SHOWS_ABORTED, Workload.FinalReads.NONE);
        assertFalse(r.history().stream().anyMatch(op -> Op.POLL.equals(op.f())));
        assertEquals(Verdict.VALID, r.txn().verdict());
        assertEquals(Verdict.VALID, r.queue().verdict());
    }

    @Test
    void aCommittedRecordTheFinalReadPassesOverIsLost() throws Exception {
        Run r = run(FinalLog.DROPS_COMMITTED, finalReads());
        assertEquals(Verdict.INVALID, r.queue().verdict(), r.queue().toString());
        assertEquals(1, r.queue().count(QueueAnomaly.LOST_WRITE.wireName()));
    }

    @Test
    void theTxnQueueWorkloadEndsWithTheseFinalReads() {
        var cfg = io.faultline.workloads.queue.QueueWorkloadConfig.defaults("127.0.0.1:9", "t");
        Workload w = TxnQueueWorkload.workload(cfg, KEYS, 1000, checkers());
        assertTrue(w.finalReads() instanceof TxnFinalReads);
        assertTrue(w.finalReads().generator(List.of()) != null);
    }
}
