package io.faultline.results;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The seeded-bug score page: detection per bug, runs and time to it, the detecting run, and false alarms. */
class BugsPageTest {
    @TempDir
    Path store;

    private BugsPage.Attempt attempt(long seed, String verdict, List<String> anomalies, double seconds) throws Exception {
        Path run = Files.createDirectories(store.resolve("broker-impl-queue").resolve("run-" + seed));
        return new BugsPage.Attempt(seed, verdict, anomalies, run.toString(), seconds);
    }

    @Test
    void aBugCountsRunsAndTimeUntilItsFirstInvalidRun() throws Exception {
        var bug = new BugsPage.Bug("acks-all-leader-only", "acks=all answered early", "queue, partition+kill",
                List.of(attempt(1, "VALID", List.of(), 100), attempt(2, "unknown", List.of(), 50),
                        attempt(3, "INVALID", List.of("lost-write 4", "unseen 2"), 120)));
        assertTrue(bug.detected());
        assertEquals(3, bug.runsUntilDetection());
        assertEquals(270, bug.secondsToDetection(), 1e-9);
        assertEquals(List.of("lost-write", "unseen"), bug.categories());
        assertEquals(3, bug.detection().orElseThrow().seed());

        var missed = new BugsPage.Bug("read-past-hw", "reads past HW", "queue", List.of(attempt(4, "valid", List.of(), 90),
                attempt(5, "valid", List.of(), 95)));
        assertFalse(missed.detected());
        assertEquals(2, missed.runsUntilDetection(), "every run, when none detected it");
        assertEquals(List.of(), missed.categories());
    }

    @Test
    void pageShowsTheScoreLinksTheDetectingRunAndCountsFalseAlarms() throws Exception {
        var caught = new BugsPage.Bug("follower-no-truncate", "never truncates", "queue, partition+kill",
                List.of(attempt(11, "valid", List.of(), 100), attempt(12, "invalid", List.of("inconsistent-offsets 7"), 110)));
        var missed = new BugsPage.Bug("epoch-not-bumped", "epoch kept", "queue, partition+kill",
                List.of(attempt(13, "valid", List.of(), 100)));
        var clean = new BugsPage.Clean("queue, partition+kill", List.of(attempt(21, "valid", List.of(), 90),
                attempt(22, "invalid", List.of("lost-write 1"), 90), new BugsPage.Attempt(23, "unknown", List.of(), null, 3)));
        var input = new BugsPage.Input("Seeded bugs", "2026-11-30T18:00:00Z", 42, List.of(caught, missed), List.of(clean));
        assertEquals(1, input.detected());
        assertEquals(1, input.falseAlarms());

        Path dir = store.resolve("bugs").resolve("20261130T180000.000");
        Path page = BugsPage.write(input, dir);
        String html = Files.readString(page);
        assertTrue(html.contains("1 of 2 seeded bugs detected, 1 false alarm"), html);
        assertTrue(html.contains("class=\"banner v-invalid\""), "the bar is not met");
        assertTrue(html.contains("<a href=\"../../broker-impl-queue/run-12/report.html\">report</a>"), "relative link to the detecting run");
        assertTrue(html.contains("inconsistent-offsets 7"));
        assertTrue(html.contains("<td class=\"num\">12</td>"), "the detecting seed");
        assertFalse(html.contains("<script"), "self-contained, no scripts");
        assertTrue(html.contains("none in 1"), "an escaped bug says how many runs missed it");

        @SuppressWarnings("unchecked")
        Map<String, Object> json = new ObjectMapper().readValue(dir.resolve(BugsPage.JSON).toFile(), Map.class);
        assertEquals(1, json.get("falseAlarms"));
        @SuppressWarnings("unchecked")
        var rows = (List<Map<String, Object>>) json.get("bugTable");
        assertEquals(true, rows.get(0).get("detected"));
        assertEquals(12, ((Number) rows.get(0).get("detectingSeed")).intValue());
        assertEquals(2, rows.get(0).get("runsUntilDetection"));
        assertEquals(false, rows.get(1).get("detected"));
    }

    @Test
    void everyBugDetectedAndNoFalseAlarmMeetsTheBar() throws Exception {
        var caught = new BugsPage.Bug("b", "m", "mix", List.of(attempt(1, "invalid", List.of("duplicate 2"), 10)));
        var clean = new BugsPage.Clean("mix", List.of(attempt(2, "valid", List.of(), 10)));
        Path page = BugsPage.write(new BugsPage.Input("t", "now", 1, List.of(caught), List.of(clean)), store.resolve("p"));
        assertTrue(Files.readString(page).contains("class=\"banner v-valid\">1 of 1 seeded bugs detected, 0 false alarms"));
    }
}
