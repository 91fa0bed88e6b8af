package io.faultline.harness;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the end of a run weighs on the verdict. */
class RunAnalysisTest {
    private static CheckResult invalid(String checker, String... found) {
        Map<String, Long> counts = new java.util.LinkedHashMap<>();
        for (String f : found) counts.put(f, 3L);
        return new CheckResult(checker, Verdict.INVALID, counts, Set.of(), Map.of(), Map.of(), null);
    }

    private static final CheckResult VALID = new CheckResult("x", Verdict.VALID, Map.of("unseen", 0L), Set.of(),
            Map.of(), Map.of(), null);

    @Test
    void unreadValuesAreNotLossWhenTheDrainDidNotHappen() {
        var onlyUnread = List.of(invalid("queue", "unseen"), invalid("total-queue", "lost"));
        assertEquals(Verdict.INVALID, RunAnalysis.verdictOf(onlyUnread, true), "after a full drain: lost");
        assertEquals(Verdict.UNKNOWN, RunAnalysis.verdictOf(onlyUnread, false), "without one: not proven");
    }

    @Test
    void anomaliesThatStandOnTheirOwnStayInvalid() {
        var divergent = List.of(invalid("queue", "unseen", "inconsistent-offsets"), VALID);
        assertEquals(Verdict.INVALID, RunAnalysis.verdictOf(divergent, false));
        assertEquals(Verdict.INVALID, RunAnalysis.verdictOf(List.of(invalid("queue", "lost-write")), false));
        assertEquals(Verdict.VALID, RunAnalysis.verdictOf(List.of(VALID), false));
    }

    @Test
    void caveatsSayWhatWasMissing() {
        assertEquals(List.of(), new RunAnalysis.Ending(true, true, List.of()).caveats());
        assertTrue(new RunAnalysis.Ending(false, false, List.of()).caveats().get(0).contains("did not finish"));
        assertTrue(new RunAnalysis.Ending(true, false, List.of()).caveats().get(0).contains("final drain"));
        assertTrue(new RunAnalysis.Ending(true, true, List.of("n2 is paused")).caveats().get(0).contains("n2 is paused"));
    }

    @Test
    void campaignExitCodesRankInvalidFirst() {
        assertEquals(FaultlineCli.EXIT_INVALID, CampaignCommand.worse(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, FaultlineCli.EXIT_INVALID));
        assertEquals(FaultlineCli.EXIT_INVALID, CampaignCommand.worse(FaultlineCli.EXIT_INVALID, FaultlineCli.EXIT_UNKNOWN_OR_ERROR));
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, CampaignCommand.worse(FaultlineCli.EXIT_VALID, FaultlineCli.EXIT_UNKNOWN_OR_ERROR));
        assertEquals(FaultlineCli.EXIT_VALID, CampaignCommand.worse(FaultlineCli.EXIT_VALID, FaultlineCli.EXIT_VALID));
    }
}
