package io.faultline.harness;

import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MembershipRefusalsTest {
    private static final String INVALID = "IllegalStateException: reassign: org.apache.kafka.common.errors."
            + "InvalidReplicaAssignmentException: The manual partition assignment for partition 0 is empty.";

    private static Op done(long index, String f, String value, String error) {
        return new Op(index, OpType.INFO, Op.NEMESIS, index * 1000, f, new OpValue.Text(value), error);
    }

    @Test
    void aWellFormedReassignmentRefusedAsMalformedIsAnAnomalyOtherRefusalsAreNot() {
        List<Op> h = new ArrayList<>();
        h.add(done(1, "reassign", "Reassign[partition=t-0, replicas=[2, 3, 1]]", null));
        h.add(done(2, "reassign", "Reassign[partition=t-0, replicas=[2, 3, 1]]", INVALID));
        h.add(done(3, "reassign", "Reassign[partition=t-0, replicas=[1, 2]]",
                "IllegalStateException: reassign: org.apache.kafka.common.errors.TimeoutException: timed out"));
        var r = MembershipRefusals.check(h);
        assertEquals(Verdict.INVALID, r.verdict());
        assertEquals(1L, r.counts().get(MembershipRefusals.REFUSED));
        assertTrue(r.examples().get(MembershipRefusals.REFUSED).get(0).explanation().contains("replicas=[2, 3, 1]"));
        assertEquals(List.of(2L), r.examples().get(MembershipRefusals.REFUSED).get(0).ops());
    }

    @Test
    void refusingAMalformedOneIsRightAndARunWithoutMovesIsNotJudged() {
        var dup = MembershipRefusals.check(List.of(done(1, "reassign", "Reassign[partition=t-0, replicas=[2, 2, 1]]", INVALID)));
        assertEquals(Verdict.VALID, dup.verdict());
        var fine = MembershipRefusals.check(List.of(done(1, "reassign", "Reassign[partition=t-0, replicas=[1, 2, 3]]", null)));
        assertEquals(Verdict.VALID, fine.verdict());
        assertNull(MembershipRefusals.check(List.of(done(1, "kill", "killed [n1]", null))));
        assertTrue(MembershipRefusals.wellFormed("Reassign[partition=t-0, replicas=[3]]"));
        assertTrue(!MembershipRefusals.wellFormed("Reassign[partition=t-0, replicas=[]]"));
    }
}
