package io.faultline.workloads.trim;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TrimCheckerTest {
    private final List<Op> history = new ArrayList<>();
    private long time;

    private void write(int process, long value, OpType outcome, Long offset) {
        history.add(new Op(history.size(), OpType.INVOKE, process, time++, TrimOps.WRITE, new TrimOps.Write(value, null).text(), null));
        history.add(new Op(history.size(), outcome, process, time++, TrimOps.WRITE, new TrimOps.Write(value, offset).text(), null));
    }

    private void delete(int process, OpType outcome, long offset, Long lowWatermark) {
        history.add(new Op(history.size(), OpType.INVOKE, process, time++, TrimOps.DELETE, new TrimOps.Delete(1, null, null).text(), null));
        history.add(new Op(history.size(), outcome, process, time++, TrimOps.DELETE, new TrimOps.Delete(1, offset, lowWatermark).text(), null));
    }

    private void read(String f, long start, long... offsetsAndValues) {
        List<TrimOps.Rec> recs = new ArrayList<>();
        for (int i = 0; i < offsetsAndValues.length; i += 2) recs.add(new TrimOps.Rec(offsetsAndValues[i], offsetsAndValues[i + 1]));
        history.add(new Op(history.size(), OpType.INVOKE, 0, time++, f, new OpValue.Text(""), null));
        history.add(new Op(history.size(), OpType.OK, 0, time++, f, new TrimOps.Read(start, recs).text(), null));
    }

    @Test
    void aLogCutWhereAskedAndKeepingEverythingAboveIsValid() {
        write(1, 1, OpType.OK, 0L);
        write(2, 2, OpType.OK, 1L);
        write(1, 3, OpType.OK, 2L);
        read(TrimOps.READ, 0, 0, 1, 1, 2, 2, 3);
        delete(1, OpType.OK, 2, 2L);
        write(3, 4, OpType.INFO, null); // it landed at 3, as the final read shows
        delete(2, OpType.INFO, 3, null); // may or may not have cut: offset 3 is not judged lost
        read(TrimOps.FINAL_READ, 2, 2, 3, 3, 4);
        CheckResult r = new TrimChecker(true).check(history);
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        assertEquals(2L, r.stats().get("final-log-start"));
    }

    @Test
    void aLostWriteAChangedValueAnUnwrittenOneABackwardsOffsetAndAShortCutAreFound() {
        write(1, 1, OpType.OK, 0L);
        write(1, 2, OpType.OK, 1L);
        write(2, 3, OpType.OK, 2L);
        write(2, 4, OpType.OK, 3L);
        delete(1, OpType.OK, 1, 0L); // acknowledged, yet the low watermark did not reach the cut
        read(TrimOps.READ, 1, 1, 2, 2, 7); // 7: nobody wrote it
        read(TrimOps.READ, 1, 1, 2, 2, 3, 2, 3); // 2 read twice
        read(TrimOps.FINAL_READ, 1, 1, 2, 2, 9); // offset 2 changed, offset 3 (acknowledged, above every cut) gone
        CheckResult r = new TrimChecker(true).check(history);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(1L, r.count(TrimChecker.LOST), r::toString);
        assertEquals(1L, r.count(TrimChecker.LOW_WATERMARK), r::toString);
        assertEquals(2L, r.count(TrimChecker.UNEXPECTED), r::toString); // 7 and 9
        assertEquals(1L, r.count(TrimChecker.NONMONOTONIC), r::toString);
        assertEquals(1L, r.count(TrimChecker.INCONSISTENT), r::toString); // offset 2 (acknowledged as 3), once
    }

    @Test
    void aLogStartBelowTheFirstRecordServedIsAStartGapUnlessACutAskedBeforeTheReadEndedExplainsIt() {
        for (long v = 0; v < 6; v++) write(1, v + 1, OpType.OK, v); // offsets 0-5 hold 1-6
        read(TrimOps.READ, 0, 0, 1, 1, 2); // from the start: fine
        read(TrimOps.READ, 0, 3, 4, 4, 5); // answered start 0, served from 3: offsets 0-2 claimed, not there
        delete(2, OpType.INFO, 4, null); // a cut to 4 asked (outcome unknown) before the next read
        read(TrimOps.FINAL_READ, 2, 4, 5, 5, 6); // the jump from 2 to 4 is the cut's
        CheckResult r = new TrimChecker(true).check(history);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(1L, r.count(TrimChecker.START_GAP), r::toString);
        assertEquals(Verdict.VALID, new TrimChecker(false).check(history).verdict(), "allowed without durability");
    }

    @Test
    void aCutAskedAfterTheFinalReadEndedDoesNotExcuseWhatTheReadLacks() {
        for (long v = 0; v < 4; v++) write(1, v + 1, OpType.OK, v); // offsets 0-3 hold 1-4
        read(TrimOps.FINAL_READ, 0, 0, 1, 1, 2, 3, 4); // offset 2 (acknowledged) missing
        delete(1, OpType.OK, 3, 3L); // the cut after the heal, asked once the read had ended
        CheckResult r = new TrimChecker(true).check(history);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(1L, r.count(TrimChecker.LOST), r::toString);
    }

    @Test
    void deletedRecordsReadAgainAreReportedButAllowed() {
        write(1, 1, OpType.OK, 0L);
        write(1, 2, OpType.OK, 1L);
        write(1, 3, OpType.OK, 2L);
        delete(1, OpType.OK, 2, 2L);
        read(TrimOps.FINAL_READ, 0, 0, 1, 1, 2, 2, 3); // the start went back to 0 (e.g. a crash before its checkpoint)
        CheckResult r = new TrimChecker(true).check(history);
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        assertEquals(1L, r.count(TrimChecker.RESURRECTED), r::toString);
    }

    @Test
    void aLostWriteIsAllowedWithoutDurabilityAndNoFinalReadIsUnknown() {
        write(1, 1, OpType.OK, 0L);
        write(1, 2, OpType.OK, 1L);
        CheckResult noRead = new TrimChecker(true).check(history);
        assertEquals(Verdict.UNKNOWN, noRead.verdict(), noRead::toString);
        read(TrimOps.FINAL_READ, 0, 0, 1);
        assertEquals(Verdict.INVALID, new TrimChecker(true).check(history).verdict());
        CheckResult weak = new TrimChecker(false).check(history);
        assertEquals(Verdict.VALID, weak.verdict(), weak::toString);
        assertEquals(1L, weak.count(TrimChecker.LOST), weak::toString);
    }

    @Test
    void aHoleInAReadDuringTheRunIsALostWriteUnlessACutReachedIt() {
        for (long v = 0; v < 6; v++) write(1, v + 1, OpType.OK, v); // offsets 0-5 hold 1-6
        read(TrimOps.READ, 0, 0, 1, 1, 2, 3, 4, 4, 5); // offset 2 missing between 1 and 3: lost
        delete(2, OpType.INFO, 4, null); // may have cut below 4 while the next read ran
        read(TrimOps.READ, 0, 0, 1, 4, 5, 5, 6); // jumped from 0 to 4: the cut explains it
        delete(2, OpType.INFO, 6, null);
        read(TrimOps.READ, 4, 4, 5); // all it read lies below a cut asked while it ran: nothing to judge
        read(TrimOps.FINAL_READ, 6);
        CheckResult r = new TrimChecker(true).check(history);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(1L, r.count(TrimChecker.LOST), r::toString); // offset 2, once
    }
}
