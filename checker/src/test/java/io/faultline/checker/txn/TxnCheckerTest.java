package io.faultline.checker.txn;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.faultline.checker.history.OpType.FAIL;
import static io.faultline.checker.history.OpType.INFO;
import static io.faultline.checker.history.OpType.OK;
import static io.faultline.checker.txn.T.poll;
import static io.faultline.checker.txn.T.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TxnCheckerTest {
    static Map<String, Long> found(CheckResult r) {
        Map<String, Long> out = new TreeMap<>();
        r.counts().forEach((c, n) -> {
            if (n > 0) out.put(c, n);
        });
        return out;
    }

    static CheckResult strict(T t) {
        return TxnChecker.strict().check(t.ops());
    }

    @Test
    void g0WritesInterleavedInOppositeOrders() {
        // Concurrent: T1 is first on key 1, T2 first on key 2.
        T t = new T().invoke(0).invoke(1)
                .complete(0, OK, send(1, 10, 0), send(2, 11, 1))
                .complete(1, OK, send(1, 20, 1), send(2, 21, 0));
        CheckResult r = strict(t);
        assertEquals(Map.of("G0", 1L), found(r), r::toString);
        assertEquals(Verdict.INVALID, r.verdict());
        String text = r.examples("G0").get(0).explanation();
        assertTrue(text.contains("wrote offset 0 (value 10) of key 1 and T2 wrote the next version, offset 1 (value 20)")
                || text.contains("wrote offset 0 (value 21) of key 2"), text);
        assertEquals(Verdict.VALID, TxnChecker.forKafka(true).check(t.ops()).verdict(), "Kafka does not isolate writes");
        @SuppressWarnings("unchecked")
        var cycles = (List<Map<String, Object>>) r.stats().get("cycles");
        assertEquals("G0", cycles.get(0).get("anomaly"));
        assertEquals(2, ((List<?>) cycles.get(0).get("steps")).size());
    }

    @Test
    void g1cCircularInformationFlow() {
        T t = new T().invoke(0).invoke(1)
                .complete(0, OK, send(1, 10, 0), poll(2, 0, 20))
                .complete(1, OK, send(2, 20, 0), poll(1, 0, 10));
        CheckResult r = strict(t);
        assertEquals(Map.of("G1c", 1L), found(r), r::toString);
        String text = r.examples("G1c").get(0).explanation();
        assertTrue(text.contains("T1 wrote offset 0 (value") && text.contains("which T2 read, so T1 < T2"), text);
        assertEquals(Verdict.INVALID, TxnChecker.forKafka(false).check(t.ops()).verdict(), "without ww deps: bad");
    }

    @Test
    void gSingleOneAntiDependency() {
        T t = new T().txn(9, OK, send(1, 1, 0))
                .invoke(0).invoke(1)
                .complete(1, OK, send(1, 2, 1), send(2, 5, 0))
                .complete(0, OK, poll(1, 0, 1), poll(2, 0, 5));
        CheckResult r = strict(t);
        assertEquals(Map.of("G-single", 1L), found(r), r::toString);
        assertTrue(r.examples("G-single").get(0).explanation().contains("read key 1 up to offset 0 (value 1) but not offset 1 (value 2)"),
                r::toString);
    }

    @Test
    void g2ItemTwoAntiDependencies() {
        T t = new T().txn(9, OK, send(1, 1, 0), send(2, 3, 0))
                .invoke(0).invoke(1)
                .complete(0, OK, poll(1, 0, 1), send(2, 4, 1))
                .complete(1, OK, poll(2, 0, 3), send(1, 2, 1));
        CheckResult r = strict(t);
        assertEquals(Map.of("G2-item", 1L), found(r), r::toString);
    }

    @Test
    void g1cProcessAndRealtime() {
        // Same process: T1 then T2, yet T1 read what T2 wrote.
        T proc = new T().txn(0, OK, poll(1, 0, 10)).txn(0, OK, send(1, 10, 0));
        assertEquals(Map.of("G1c-process", 1L), found(strict(proc)), () -> strict(proc).toString());
        // Different processes, T1 finished before T2 began.
        T rt = new T().txn(0, OK, poll(1, 0, 10)).txn(1, OK, send(1, 10, 0));
        CheckResult r = strict(rt);
        assertEquals(Map.of("G1c-realtime", 1L), found(r), r::toString);
        assertTrue(r.examples("G1c-realtime").get(0).explanation().contains("T1 completed (0.001 s) before T2 began"),
                r::toString);
        assertEquals(Verdict.INVALID, TxnChecker.forKafka(false).check(rt.ops()).verdict());
    }

    @Test
    void g0Realtime() {
        // T1 finished before T2 began, yet T2's write to key 1 precedes T1's.
        T t = new T().txn(0, OK, send(1, 10, 1)).txn(1, OK, send(1, 20, 0));
        assertEquals(Map.of("G0-realtime", 1L), found(strict(t)));
    }

    @Test
    void g1aAbortedRead() {
        T t = new T().txn(0, FAIL, send(1, 10, 0)).txn(1, OK, poll(1, 0, 10));
        CheckResult r = TxnChecker.forKafka(true).check(t.ops());
        assertEquals(Map.of("G1a", 1L), found(r), r::toString);
        assertEquals(Verdict.INVALID, r.verdict());
        assertEquals("op 3 read value 10 (offset 0) of key 1, written by op 1, which aborted",
                r.examples("G1a").get(0).explanation());
    }

    @Test
    void g1bIntermediateRead() {
        T t = new T().txn(0, OK, send(1, 10, 0), send(1, 11, 1)).txn(1, OK, poll(1, 0, 10));
        CheckResult r = strict(t);
        // With rw edges the same read also closes a cycle: T2 did not see T1's second write, yet read its first.
        assertEquals(Map.of("G1b", 1L, "G-single", 1L), found(r), r::toString);
        assertEquals(Verdict.VALID, TxnChecker.forKafka(true).check(t.ops()).verdict(), "polls may stop mid-transaction");
    }

    @Test
    void nearMissSerialHistoryIsValid() {
        T t = new T().txn(0, OK, send(1, 10, 0), send(2, 20, 0))
                .txn(1, OK, poll(1, 0, 10), send(2, 21, 1))
                .txn(0, OK, poll(2, 0, 20, 1, 21), send(1, 11, 1))
                .txn(1, OK, poll(1, 1, 11));
        CheckResult r = strict(t);
        assertEquals(Map.of(), found(r), r::toString);
        assertEquals(Verdict.VALID, r.verdict());
    }

    @Test
    void nearMissIndeterminateWriteLaterReadIsACommittedTransaction() {
        T t = new T().invoke(0).complete(0, INFO, send(1, 10, -0)).txn(1, OK, poll(1, 0, 10));
        CheckResult r = strict(t);
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        assertEquals(2L, r.stats().get("transactions"));
    }

    @Test
    void nearMissAbortedValuesNeverReadAreFine() {
        T t = new T().txn(0, FAIL, send(1, 10, 0), send(2, 11, 0)).txn(1, OK, send(1, 12, 1)).txn(2, OK, poll(1, 1, 12));
        CheckResult r = TxnChecker.forKafka(true).check(t.ops());
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
    }

    @Test
    void nearMissConcurrentWritesInEitherOrderAreNotRealtimeCycles() {
        T t = new T().invoke(0).invoke(1)
                .complete(1, OK, send(1, 20, 0))
                .complete(0, OK, send(1, 10, 1))
                .txn(2, OK, poll(1, 0, 20, 1, 10));
        assertEquals(Verdict.VALID, strict(t).verdict(), () -> strict(t).toString());
    }

    @Test
    void nothingCommittedIsUnknownAndNothingThrows() {
        T t = new T().txn(0, FAIL, send(1, 10, 0));
        CheckResult r = strict(t);
        assertEquals(Verdict.UNKNOWN, r.verdict());
        assertTrue(r.error().contains("no committed transaction"));
        List<Op> odd = List.of(new Op(0, OpType.OK, 0, 0, Op.TXN, new io.faultline.checker.history.OpValue.Text("?"), null));
        assertEquals(Verdict.UNKNOWN, strict(new T()).verdict());
        assertEquals(Verdict.UNKNOWN, TxnChecker.strict().check(odd).verdict());
    }
}
