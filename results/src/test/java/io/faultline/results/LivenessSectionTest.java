package io.faultline.results;

import io.faultline.checker.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report's Liveness section and the summary counts show the recovery check apart from the safety checks. */
class LivenessSectionTest {
    @TempDir
    Path tmp;

    private static final Liveness FROZEN_N3 = new Liveness(Verdict.INVALID, null, new Liveness.Bounds(60, 262144),
            new Liveness.Timings(null, null, null, 1.5, 61, 120), List.of(new Liveness.Anomaly(Liveness.UNRESPONSIVE_BROKER,
            "broker n3", "still no answer at the last poll", List.of(
                    new Liveness.Sample("2026-12-01T12:00:00Z", 0, false, "no answer: no answer within 2000 ms"),
                    new Liveness.Sample("2026-12-01T12:01:01Z", 61, false, "no answer: no answer within 2000 ms")))),
            Map.of("n3", new Liveness.LogGrowth(4096, 100, 40.96)), List.of());

    @Test
    void aLivenessViolationHasItsSectionTimelineAndCount() throws Exception {
        var input = ReportInput.builder("t").verdict(Verdict.INVALID).liveness(FROZEN_N3).build();
        var summary = HtmlReport.write(input, tmp);
        String html = Files.readString(tmp.resolve("report.html"));
        assertTrue(html.contains("<h2 id=\"liveness\">Liveness</h2>"), "the section");
        assertTrue(html.contains("liveness/unresponsive-broker: broker n3"), "the anomaly and its subject");
        assertTrue(html.contains("2026-12-01T12:01:01Z"), "its timeline");
        assertTrue(html.contains("not seen"), "no recovery time where none was seen");
        assertEquals(1L, summary.anomalyCounts().get(Liveness.UNRESPONSIVE_BROKER));
    }

    @Test
    void aRunWithoutTheCheckSaysSoAndCountsNothing() throws Exception {
        var summary = HtmlReport.write(ReportInput.builder("t").verdict(Verdict.VALID).build(), tmp);
        assertTrue(Files.readString(tmp.resolve("report.html")).contains("The recovery check did not run"));
        assertTrue(summary.anomalyCounts().keySet().stream().noneMatch(k -> k.startsWith("liveness/")));
    }
}
