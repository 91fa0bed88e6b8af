package io.faultline.checker.queue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.faultline.checker.CheckResult;
import io.faultline.checker.Checker;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static io.faultline.checker.queue.H.reads;
import static io.faultline.checker.queue.H.recs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QueueCheckerTest {
    static final int K = 3;

    static CheckResult assign(H h) {
        return QueueChecker.forRun(false).check(h.ops());
    }

    /** Every category with a non-zero count, allowed or not. */
    static Map<String, Long> nonZero(CheckResult r) {
        Map<String, Long> out = new TreeMap<>();
        r.counts().forEach((c, n) -> {
            if (n > 0) {
                out.put(c, n);
            }
        });
        return out;
    }

    static String onlyExample(CheckResult r, String category) {
        List<Example> ex = r.examples(category);
        assertEquals(1, ex.size(), () -> "examples of " + category + ": " + r);
        return ex.get(0).explanation();
    }

    /** Three acknowledged sends to key 3 at offsets 0..2, values 10, 11, 12. */
    static H threeSends() {
        return new H().send(0, K, 10, 0).send(0, K, 11, 1).send(0, K, 12, 2);
    }

    @Test
    void cleanHistoryIsValidWithZeroCounts() {
        CheckResult r = assign(threeSends().assign(1, false, K).poll(1, K, 0, 10, 1, 11).poll(1, K, 2, 12));
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        assertEquals(Map.of(), nonZero(r));
        assertEquals(QueueAnomaly.values().length, r.counts().size());
    }

    @Test
    void lostWriteAndUnseen() {
        // Process 1 reads offset 0; process 2, fresh, reads offset 2. Nobody ever reads 11 at offset 1.
        H h = threeSends().poll(1, K, 0, 10).poll(2, K, 2, 12);
        CheckResult r = assign(h);
        assertEquals(Verdict.INVALID, r.verdict());
        assertEquals(Map.of("lost-write", 1L, "unseen", 1L), nonZero(r));
        String why = onlyExample(r, "lost-write");
        assertTrue(why.contains("value 11 at offset 1") && why.contains("later value 12 at offset 2"), why);
        assertEquals(List.of(3L, 9L), r.examples("lost-write").get(0).ops());
    }

    @Test
    void unseenAloneWhenNoPollReachedIt() {
        CheckResult r = assign(threeSends().poll(1, K, 0, 10, 1, 11));
        assertEquals(Map.of("unseen", 1L), nonZero(r));
        assertTrue(onlyExample(r, "unseen").contains("value 12 was acknowledged at offset 2"));
        assertEquals(Verdict.INVALID, r.verdict());
    }

    @Test
    void nearMissIndeterminateSendNeverReadIsNeitherLostNorUnseen() {
        H h = new H().send(0, K, 10, 0).send(0, OpType.INFO, K, 11).send(2, K, 12, 1)
                .sends(2, OpType.INFO, new long[] {K, 13, -1}) // indeterminate, no offset came back
                .poll(1, K, 0, 10, 1, 12);
        CheckResult r = assign(h);
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        assertEquals(Map.of(), nonZero(r));
    }

    @Test
    void aSendAcknowledgedInsideAnIndeterminateOpIsHeldToItsAcknowledgement() {
        // sends within one op are not atomic: 13 got its offset back (the broker acknowledged it) while 14 timed
        // out, so the op is info; 13 must still be read like any acknowledged value
        H h = new H().send(0, K, 10, 0).send(2, K, 12, 1)
                .sends(2, OpType.INFO, new long[] {K, 13, 2}, new long[] {K, 14, -1})
                .poll(1, K, 0, 10, 1, 12);
        CheckResult r = assign(h);
        assertEquals(Map.of("unseen", 1L), nonZero(r), r::toString);
        assertTrue(onlyExample(r, "unseen").contains("value 13 was acknowledged at offset 2"));
        CheckResult read = assign(new H().send(0, K, 10, 0).send(2, K, 12, 1)
                .sends(2, OpType.INFO, new long[] {K, 13, 2}, new long[] {K, 14, -1})
                .poll(1, K, 0, 10, 1, 12, 2, 13));
        assertEquals(Verdict.VALID, read.verdict(), read::toString);
    }

    @Test
    void nearMissFailedSendNeverReadIsFine() {
        CheckResult r = assign(new H().send(0, K, 10, 0).send(0, OpType.FAIL, K, 11).poll(1, K, 0, 10));
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
    }

    @Test
    void nearMissValueSeenOnlyByAnIndeterminatePollIsNotLost() {
        // The poll returned 11 but its commit failed (info): the value was still delivered, so it is not lost.
        H h = threeSends().poll(1, OpType.INFO, reads(K, recs(1, 11))).poll(2, K, 0, 10).poll(3, K, 2, 12);
        CheckResult r = assign(h);
        assertEquals(Map.of(), nonZero(r), r::toString);
    }

    @Test
    void indeterminateSendThatWasReadBecomesMandatory() {
        // 11 was info but a poll saw it, so it happened; 12 sits before it in the log and must be seen too.
        H h = new H().send(0, K, 10, 0).send(1, K, 12, 1).sends(0, OpType.INFO, new long[] {K, 11, 2})
                .poll(2, K, 0, 10).poll(3, K, 2, 11);
        CheckResult r = assign(h);
        assertEquals(1L, r.count("lost-write"), r::toString);
        assertTrue(onlyExample(r, "lost-write").contains("value 12 at offset 1"));
    }

    @Test
    void inconsistentOffsets() {
        H h = new H().send(0, K, 34, 12).send(1, K, 35, -1).poll(2, K, 12, 34).poll(3, K, 12, 35);
        CheckResult r = assign(h);
        assertEquals(1L, r.count("inconsistent-offsets"), r::toString);
        String why = onlyExample(r, "inconsistent-offsets");
        assertTrue(why.startsWith("offset 12 of key 3: op 1 saw 34, op 7 saw 35"), why);
        assertEquals(Verdict.INVALID, r.verdict());
    }

    @Test
    void duplicate() {
        H h = new H().send(0, K, 7, 1).send(0, K, 8, 2).poll(1, K, 1, 7, 2, 8, 3, 7);
        CheckResult r = assign(h);
        assertEquals(1L, r.count("duplicate"), r::toString);
        assertTrue(onlyExample(r, "duplicate").contains("value 7 appears at 2 offsets [1, 3]"));
        // Seeing 7's second copy (offset 3) after 8 (offset 2) is a step forward in the log, not backwards.
        assertEquals(0L, r.count("int-nonmonotonic-poll"));
    }

    @Test
    void abortedReadG1a() {
        H h = new H().send(0, K, 10, 0).send(0, OpType.FAIL, K, 9).poll(1, K, 0, 10, 1, 9);
        CheckResult r = assign(h);
        assertEquals(Map.of("G1a", 1L), nonZero(r));
        assertTrue(onlyExample(r, "G1a").contains("polled value 9 at offset 1, but its send (op 3) definitely failed"));
    }

    @Test
    void precommittedRead() {
        H h = new H().send(0, K, 10, 0).txn(1, new long[] {K, 11, 1}, K, 0, 10, 1, 11).poll(2, K, 0, 10, 1, 11);
        CheckResult r = assign(h);
        assertEquals(Map.of("precommitted-read", 1L), nonZero(r));
    }

    @Test
    void pollSkipAndItsAllowanceUnderSubscribe() {
        H h = threeSends().poll(1, K, 0, 10).poll(1, K, 2, 12).poll(2, K, 0, 10, 1, 11);
        CheckResult r = assign(h);
        assertEquals(Map.of("poll-skip", 1L), nonZero(r));
        String why = onlyExample(r, "poll-skip");
        assertTrue(why.contains("up to value 10 (offset 0, op 7) then resumed at 12 (offset 2, op 9), skipping 1 "
                + "value(s): [11]"), why);
        CheckResult sub = QueueChecker.forRun(true).check(h.ops());
        assertEquals(Verdict.VALID, sub.verdict());
        assertEquals(1L, sub.count("poll-skip"));
        assertTrue(sub.allowed().contains("poll-skip"));
    }

    @Test
    void aHoleIsAllowedUnlessTheLogIsDense() {
        // Offset 1 holds a transaction marker (or was compacted away): nobody ever saw anything there.
        H h = new H().send(0, K, 10, 0).send(0, K, 12, 2).poll(1, K, 0, 10).poll(1, K, 2, 12)
                .poll(2, K, 0, 10, 2, 12);
        CheckResult r = assign(h);
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        // a hole is reported, but a checker that is not told the log is dense allows it
        assertEquals(Map.of("offset-gap", 2L), nonZero(r));
        assertTrue(r.allowed().contains("offset-gap"));
    }

    @Test
    void nearMissGapFromTransactionMarkerIsNotASkip() {
        // Offset 1 holds a transaction marker: nobody ever saw anything there.
        H h = new H().send(0, K, 10, 0).send(0, K, 12, 2).poll(1, K, 0, 10).poll(1, K, 2, 12)
                .poll(2, K, 0, 10, 2, 12);
        CheckResult r = assign(h);
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        assertEquals(0L, r.count("poll-skip") + r.count("int-poll-skip"));
    }

    @Test
    void nonmonotonicPoll() {
        CheckResult r = assign(threeSends().poll(1, K, 0, 10, 1, 11).poll(1, K, 1, 11, 2, 12));
        assertEquals(Map.of("nonmonotonic-poll", 1L), nonZero(r));
        assertTrue(onlyExample(r, "nonmonotonic-poll").contains("up to value 11 (offset 1, op 7) then read it again "
                + "(offset 1, op 9)"), onlyExample(r, "nonmonotonic-poll"));
        CheckResult back = assign(threeSends().poll(1, K, 0, 10, 1, 11, 2, 12).poll(1, K, 1, 11));
        assertEquals(Map.of("nonmonotonic-poll", 1L), nonZero(back));
        assertTrue(onlyExample(back, "nonmonotonic-poll").contains("then went back to 11 (offset 1, op 9)"));
        assertEquals(Verdict.VALID, QueueChecker.forRun(true).check(
                threeSends().poll(1, K, 0, 10, 1, 11).poll(1, K, 1, 11, 2, 12).ops()).verdict());
    }

    @Test
    void nearMissSeekToBeginningOrProcessRetirementIsNotNonmonotonic() {
        H seek = threeSends().poll(1, K, 0, 10, 1, 11, 2, 12).assign(1, true, K).poll(1, K, 0, 10, 1, 11, 2, 12);
        assertEquals(Map.of(), nonZero(assign(seek)));
        // After a crash the process is retired; the fresh process (1 + concurrency) starts over legitimately.
        H crash = threeSends().poll(1, K, 0, 10, 1, 11, 2, 12).crash(1).poll(5, K, 0, 10, 1, 11, 2, 12);
        assertEquals(Map.of(), nonZero(assign(crash)));
    }

    @Test
    void nearMissReassignWithoutTheKeyForgetsPosition() {
        H h = threeSends().poll(1, K, 0, 10).assign(1, false, 4).assign(1, false, K).poll(1, K, 2, 12)
                .poll(2, K, 0, 10, 1, 11);
        assertEquals(Map.of(), nonZero(assign(h)));
    }

    @Test
    void internalPollSkipAndNonmonotonic() {
        CheckResult skip = assign(threeSends().poll(1, K, 0, 10, 2, 12).poll(2, K, 1, 11));
        assertEquals(Map.of("int-poll-skip", 1L), nonZero(skip));
        assertTrue(onlyExample(skip, "int-poll-skip").contains("skipping 1 value(s): [11]"));
        CheckResult back = assign(threeSends().poll(1, K, 1, 11, 0, 10, 2, 12));
        assertEquals(1L, back.count("int-nonmonotonic-poll"), back::toString);
        assertEquals(Verdict.INVALID, back.verdict());
    }

    @Test
    void nonmonotonicSend() {
        // Process 0's second send lands before its first.
        H h = new H().send(0, K, 10, 5).send(0, K, 11, 4).poll(1, K, 4, 11, 5, 10);
        CheckResult r = assign(h);
        assertEquals(Map.of("nonmonotonic-send", 1L), nonZero(r));
        assertTrue(onlyExample(r, "nonmonotonic-send").contains("then its next send 11 landed at offset 4"));
    }

    @Test
    void internalNonmonotonicSendAndAllowedInternalSendSkip() {
        H back = new H().sends(0, OpType.OK, new long[] {K, 10, 5}, new long[] {K, 11, 4}).poll(1, K, 4, 11, 5, 10);
        CheckResult r = assign(back);
        assertEquals(Map.of("int-nonmonotonic-send", 1L), nonZero(r));

        H skip = new H().sends(0, OpType.OK, new long[] {K, 10, 0}, new long[] {K, 12, 2}).send(1, K, 11, 1)
                .poll(2, K, 0, 10, 1, 11, 2, 12);
        CheckResult s = assign(skip);
        assertEquals(Map.of("int-send-skip", 1L), nonZero(s));
        assertEquals(Verdict.VALID, s.verdict(), "int-send-skip is always allowed");
    }

    @Test
    void multipleKeysInOnePollAreJudgedSeparately() {
        H h = new H().send(0, 1, 10, 0).send(0, 2, 20, 0).send(0, 2, 21, 1)
                .poll(1, OpType.OK, reads(1, recs(0, 10), 2, recs(0, 20, 1, 21)));
        assertEquals(Verdict.VALID, assign(h).verdict());
    }

    @Test
    void nothingToJudgeIsUnknown() {
        CheckResult r = assign(new H().send(0, OpType.FAIL, K, 10).poll(1, K));
        assertEquals(Verdict.UNKNOWN, r.verdict());
        assertNotNull(r.error());
    }

    @Test
    void aCheckerNeverThrows() {
        List<Op> broken = new ArrayList<>(threeSends().ops());
        broken.add(null);
        CheckResult r = QueueChecker.forRun(false).check(broken);
        assertEquals(Verdict.UNKNOWN, r.verdict());
        assertTrue(r.error().contains("NullPointerException"), r.error());
        Checker thrower = new Checker() {
            public String name() {
                return "t";
            }

            public CheckResult analyze(List<Op> h) {
                throw new StackOverflowError("deep");
            }
        };
        assertEquals(Verdict.UNKNOWN, thrower.check(List.of()).verdict());
    }

    @Test
    void resultSurvivesJsonRoundTrip() throws Exception {
        CheckResult r = assign(threeSends().poll(1, K, 0, 10).poll(2, K, 2, 12));
        ObjectMapper m = new ObjectMapper();
        String json = m.writeValueAsString(r);
        assertTrue(json.contains("\"lost-write\":1"), json);
        CheckResult back = m.readValue(json, CheckResult.class);
        assertEquals(r.verdict(), back.verdict());
        assertEquals(r.counts(), back.counts());
        assertEquals(r.examples(), back.examples());
        assertEquals(Set.of("lost-write", "unseen"), back.forbiddenFound());
    }
}
