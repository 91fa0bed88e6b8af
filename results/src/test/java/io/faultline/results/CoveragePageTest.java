package io.faultline.results;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CoveragePageTest {
    @Test
    void theCampaignPageLinksToTheCoverageGrowthOfEachRun(@TempDir Path tmp) throws Exception {
        RunStore store = new RunStore(tmp);
        RunDir r1 = store.newRun("queue-nightly", Instant.parse("2026-12-01T10:00:00Z"));
        RunDir r2 = store.newRun("queue-nightly", Instant.parse("2026-12-01T10:05:00Z"));
        Path dir = store.newCampaign("nightly", Instant.parse("2026-12-01T10:00:00Z"));
        var runs = List.of(new CampaignInput.Run(Map.of("mix", "nightly"), r1.dir(), "valid", Map.of(), 1, 1, 10),
                new CampaignInput.Run(Map.of("mix", "nightly"), r2.dir(), "valid", Map.of(), 1, 1, 10));

        CampaignPage.write(new CampaignInput("nightly", Instant.now(), runs), dir);
        assertFalse(Files.readString(dir.resolve("index.html")).contains(CoveragePage.FILE), "no coverage, no link");

        CoveragePage.write(dir, "nightly", true, tmp.resolve("coverage.json"), List.of(
                new CoveragePage.Row(r1.dir(), 4, 12, 12, List.of("leader-moved > isr-shrink")),
                new CoveragePage.Row(r2.dir(), 5, 19, 7, List.of("leader-elected-outside-isr"))));
        CampaignPage.write(new CampaignInput("nightly", Instant.now(), runs), dir);
        String coverage = Files.readString(dir.resolve(CoveragePage.FILE));
        assertTrue(coverage.contains("<td class=\"num\">19</td><td class=\"num\">7</td><td>leader-elected-outside-isr</td>"), coverage);
        assertTrue(coverage.contains("Guided"), coverage);
        assertTrue(coverage.contains("<path d=\"M"), "a growth line");
        assertTrue(coverage.contains("queue-nightly/" + r2.dir().getFileName()), "links to the run's report: " + coverage);
        assertTrue(Files.readString(dir.resolve("index.html")).contains("href=\"" + CoveragePage.FILE + "\""));
    }
}
