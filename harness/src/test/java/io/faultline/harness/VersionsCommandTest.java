package io.faultline.harness;

import io.faultline.checker.Verdict;
import io.faultline.docker.sut.KafkaVersion;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VersionsCommandTest {
    private static final List<KafkaVersion> RELEASES = List.of(KafkaVersion.parse("0.10.2.1"), KafkaVersion.parse("0.11.0.3"),
            KafkaVersion.parse("2.1.1"));

    private static VersionsCommand.Cell cell(String v, long seed, Verdict verdict) {
        return new VersionsCommand.Cell(v, seed, verdict, verdict == Verdict.INVALID ? List.of("lost-write 3") : List.of(),
                Path.of("/tmp/store/run-" + v + "-" + seed),
                java.util.Map.of("unclean.leader.election.enable", Boolean.toString(KafkaVersion.parse(v).uncleanElectionByDefault())));
    }

    @Test
    void theFirstReleaseFromWhichNothingFails() {
        var cells = List.of(cell("0.10.2.1", 1, Verdict.INVALID), cell("0.10.2.1", 2, Verdict.VALID),
                cell("0.11.0.3", 1, Verdict.VALID), cell("0.11.0.3", 2, Verdict.UNKNOWN), cell("2.1.1", 1, Verdict.VALID));
        assertEquals(Optional.of("0.11.0.3"), VersionsCommand.firstPassing(RELEASES, cells));
        var regressed = List.of(cell("0.10.2.1", 1, Verdict.INVALID), cell("0.11.0.3", 1, Verdict.VALID), cell("2.1.1", 1, Verdict.INVALID));
        assertEquals(Optional.empty(), VersionsCommand.firstPassing(RELEASES, regressed), "the newest still fails");
        var clean = List.of(cell("0.10.2.1", 1, Verdict.VALID), cell("2.1.1", 1, Verdict.VALID));
        assertEquals(Optional.empty(), VersionsCommand.firstPassing(RELEASES, clean), "nothing ever failed");
        var later = List.of(cell("0.10.2.1", 1, Verdict.INVALID), cell("0.11.0.3", 1, Verdict.INVALID), cell("2.1.1", 1, Verdict.VALID));
        assertEquals(Optional.of("2.1.1"), VersionsCommand.firstPassing(RELEASES, later));
    }

    @Test
    void thePageLinksEveryRunAndNamesTheFix() {
        var cells = List.of(cell("0.10.2.1", 7, Verdict.INVALID), cell("0.11.0.3", 7, Verdict.VALID));
        String html = VersionsPage.html("scenario kip-101-loss", RELEASES.subList(0, 2), cells, Path.of("/tmp/store/versions/x"));
        assertTrue(html.contains("stops failing: <b>0.11.0.3</b>"), html);
        assertTrue(html.contains("href=\"../../run-0.10.2.1-7/report.html\""), html);
        assertTrue(html.contains("(lost-write 3)"), html);
        assertTrue(html.contains("<td>0.10.2.1</td><td>unclean.leader.election.enable=true</td>"), html);
        assertTrue(html.contains("<td>0.11.0.3</td><td>unclean.leader.election.enable=false</td>"), html);
    }
}
