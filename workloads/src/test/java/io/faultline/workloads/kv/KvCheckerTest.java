package io.faultline.workloads.kv;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class KvCheckerTest {
    private final List<Op> history = new ArrayList<>();
    private long time;

    private void write(int process, int key, long value, OpType outcome, Long offset) {
        history.add(new Op(history.size(), OpType.INVOKE, process, time++, KvOps.WRITE, KvOps.write(new KvOps.Rec(key, value, null)), null));
        history.add(new Op(history.size(), outcome, process, time++, KvOps.WRITE, KvOps.write(new KvOps.Rec(key, value, offset)), null));
    }

    private void read(KvOps.Rec... recs) {
        history.add(new Op(history.size(), OpType.INVOKE, 0, time++, KvOps.READ, new OpValue.Text(""), null));
        history.add(new Op(history.size(), OpType.OK, 0, time++, KvOps.READ, KvOps.readResult(List.of(recs)), null));
    }

    private static KvOps.Rec rec(int key, long value, long offset) {
        return new KvOps.Rec(key, value, offset);
    }

    @Test
    void aCompactedLogKeepingEveryKeysLatestValueIsValid() {
        write(1, 0, 1, OpType.OK, 0L);
        write(2, 1, 2, OpType.OK, 1L);
        write(1, 0, 3, OpType.OK, 2L);
        write(3, 1, 4, OpType.INFO, null); // it landed at 3, as the read shows
        read(rec(0, 3, 2), rec(1, 4, 3)); // offsets 0 and 1 compacted away: each key's later record remains
        CheckResult r = new KvChecker(true).check(history);
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        assertEquals(2L, r.stats().get("records-read"));
    }

    @Test
    void aTombstoneIsAKeysLatestRecordUntilItsRetentionEnds() {
        write(1, 0, 1, OpType.OK, 0L);
        write(1, 0, -2, OpType.OK, 1L); // a tombstone of key 0
        write(2, 1, 3, OpType.OK, 2L);
        write(2, 1, -4, OpType.OK, 3L);
        read(rec(0, KvOps.TOMBSTONE, 1), rec(1, 3, 2)); // key 1's tombstone is gone, its older value back in view
        CheckResult r = new KvChecker(true).check(history);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(1L, r.count(KvChecker.LOST_LATEST), r::toString);
        assertEquals(0L, r.count(KvChecker.UNEXPECTED) + r.count(KvChecker.INCONSISTENT), r::toString);
        history.remove(history.size() - 1);
        history.remove(history.size() - 1);
        read(rec(0, KvOps.TOMBSTONE, 1), rec(1, KvOps.TOMBSTONE, 3));
        assertEquals(Verdict.VALID, new KvChecker(true).check(history).verdict());
        history.remove(history.size() - 1);
        history.remove(history.size() - 1);
        read(rec(1, KvOps.TOMBSTONE, 3)); // key 0's tombstone removed after its retention: the key is gone
        assertEquals(Verdict.VALID, new KvChecker(true).check(history).verdict(), "a deleted key may be gone");
        history.remove(history.size() - 1);
        history.remove(history.size() - 1);
        write(3, 2, 5, OpType.OK, 4L);
        read(rec(0, KvOps.TOMBSTONE, 1), rec(1, KvOps.TOMBSTONE, 3));
        assertEquals(1L, new KvChecker(true).check(history).count(KvChecker.LOST_LATEST), "a key written last may not");
        history.remove(history.size() - 1);
        history.remove(history.size() - 1);
        write(4, 2, -6, OpType.INFO, null); // a tombstone of key 2 that may have landed
        read(rec(0, KvOps.TOMBSTONE, 1), rec(1, KvOps.TOMBSTONE, 3));
        assertEquals(Verdict.VALID, new KvChecker(true).check(history).verdict(), "unless a tombstone may follow");
    }

    @Test
    void aRecordOfAnAbortedTransactionReadIsFound() {
        write(1, 0, 1, OpType.OK, 0L);
        history.add(new io.faultline.checker.history.Op(history.size(), OpType.INVOKE, 2, time++, KvOps.WRITE,
                KvOps.write(new KvOps.Rec(0, 12, null)), null));
        history.add(new io.faultline.checker.history.Op(history.size(), OpType.FAIL, 2, time++, KvOps.WRITE,
                KvOps.write(new KvOps.Rec(0, 12, null)), KvOps.ABORTED));
        write(3, 1, 2, OpType.FAIL, null); // failed otherwise: not known to be aborted, so only "written"
        read(rec(0, 1, 0), rec(0, 12, 1), rec(1, 2, 3));
        CheckResult r = new KvChecker(false).check(history);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(1L, r.count(KvChecker.ABORTED_READ), r::toString);
        assertEquals(0L, r.count(KvChecker.UNEXPECTED), r::toString);
        assertEquals(1L, r.stats().get("aborted-writes"));
    }

    @Test
    void aLostLatestValueAChangedRecordAnUnwrittenOneAndABackwardsOffsetAreFound() {
        write(1, 0, 1, OpType.OK, 0L);
        write(1, 0, 2, OpType.OK, 1L);
        write(2, 1, 3, OpType.OK, 2L);
        write(2, 2, 4, OpType.OK, 3L);
        // key 0's latest (offset 1) is gone while an older one stayed; offset 2 holds another value; 9 nobody wrote
        read(rec(0, 1, 0), rec(1, 9, 2), rec(2, 4, 3), rec(2, 4, 3));
        CheckResult r = new KvChecker(true).check(history);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(1L, r.count(KvChecker.LOST_LATEST), r::toString); // key 0
        assertEquals(1L, r.count(KvChecker.INCONSISTENT), r::toString);
        assertEquals(1L, r.count(KvChecker.UNEXPECTED), r::toString);
        assertEquals(1L, r.count(KvChecker.NONMONOTONIC), r::toString);
    }

    @Test
    void withoutDurabilityALostLatestValueIsAllowedAndWithoutAReadNothingIsJudged() {
        write(1, 0, 1, OpType.OK, 0L);
        assertEquals(Verdict.UNKNOWN, new KvChecker(true).check(history).verdict());
        read();
        assertEquals(Verdict.INVALID, new KvChecker(true).check(history).verdict());
        assertEquals(Verdict.VALID, new KvChecker(false).check(history).verdict());
    }

    @Test
    void aTopicOverwrittenForMinutesThatWasNeverCompactedIsALivenessFailure() {
        List<KvOps.Rec> all = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            time += 300_000_000L; // 0.3 s apart: 90 s of writes
            write(1 + i % 3, i % 4, i + 1, OpType.OK, (long) i);
            all.add(rec(i % 4, i + 1, i));
        }
        read(all.toArray(KvOps.Rec[]::new));
        CheckResult r = new KvChecker(true).check(history);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(1L, r.count(KvChecker.NEVER_COMPACTED), r::toString);
        // the same, with the compacted-away records gone: valid
        history.remove(history.size() - 1);
        history.remove(history.size() - 1);
        read(all.subList(296, 300).toArray(KvOps.Rec[]::new));
        CheckResult compacted = new KvChecker(true).check(history);
        assertEquals(Verdict.VALID, compacted.verdict(), compacted::toString);
        assertEquals(296L, compacted.stats().get("acknowledged-records-compacted-away"));
    }
}
