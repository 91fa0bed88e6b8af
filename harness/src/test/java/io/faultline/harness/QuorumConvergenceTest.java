package io.faultline.harness;

import io.faultline.checker.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The metadata quorum check's judgement of what DescribeQuorum answered at the quiet end. */
class QuorumConvergenceTest {
    private static QuorumConvergence.Replica voter(int id, long end) {
        return new QuorumConvergence.Replica(id, true, end);
    }

    @Test
    void everyReplicaMustReachTheLeadersEarlierHighWatermark() {
        var caughtUp = new QuorumConvergence.Observation(1, 500, List.of(voter(1, 520), voter(2, 500), voter(3, 519)), 2, 0.6, null);
        assertEquals(Verdict.VALID, QuorumConvergence.check(caughtUp).verdict());

        var stuck = new QuorumConvergence.Observation(1, 500, List.of(voter(1, 540), voter(2, 538),
                new QuorumConvergence.Replica(4, false, 311)), 21, 10.2, null);
        var r = QuorumConvergence.check(stuck);
        assertEquals(Verdict.INVALID, r.verdict());
        assertEquals(1L, r.counts().get(QuorumConvergence.BEHIND));
        String text = r.examples().get(QuorumConvergence.BEHIND).get(0).explanation();
        assertTrue(text.startsWith("observer 4: metadata log end 311, behind the quorum leader 1's high watermark 500"), text);

        // a log end the leader does not know is not judged; nor is a cluster without DescribeQuorum
        assertEquals(Verdict.VALID, QuorumConvergence.check(new QuorumConvergence.Observation(1, 500,
                List.of(voter(1, 510), voter(2, -1)), 1, 0.1, null)).verdict());
        assertNull(QuorumConvergence.check(new QuorumConvergence.Observation(-1, -1, List.of(), 0, 0.1, "no KRaft quorum")));
    }

    @Test
    void theObservationIsReadBackFromTheRunFolder(@TempDir Path dir) throws Exception {
        assertNull(QuorumConvergence.check(dir));
        QuorumConvergence.write(dir, new QuorumConvergence.Observation(2, 90, List.of(voter(1, 80), voter(2, 95)), 21, 10.0, null));
        assertEquals(Verdict.INVALID, QuorumConvergence.check(dir).verdict());
    }
}
