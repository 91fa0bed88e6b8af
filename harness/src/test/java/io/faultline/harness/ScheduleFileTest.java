package io.faultline.harness;

import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.Schedule;
import io.faultline.results.ReportLinks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Schedule files survive a write and a read, subsets keep their faults, and bad files get one clear error. */
class ScheduleFileTest {
    private static final List<Schedule.PlannedOp> PLAN = List.of(
            new Schedule.PlannedOp(2_500, "kill", FaultOp.of("kill", "controller"), 0, Schedule.Role.FAULT),
            new Schedule.PlannedOp(7_000, "kill", FaultOp.of("start", "all"), 0, Schedule.Role.HEAL),
            new Schedule.PlannedOp(12_000, "partition", FaultOp.of("start-partition", "halves"), 1, Schedule.Role.FAULT),
            new Schedule.PlannedOp(16_000, "partition", FaultOp.of("stop-partition"), 1, Schedule.Role.HEAL),
            new Schedule.PlannedOp(21_000, "kill", FaultOp.of("kill", "one"), 2, Schedule.Role.FAULT),
            new Schedule.PlannedOp(26_000, "kill", FaultOp.of("start", "all"), 2, Schedule.Role.HEAL));

    @Test
    void aRunsScheduleRoundTripsAndASubsetKeepsItsFaults(@TempDir Path dir) throws Exception {
        TestConfig config = new TestOptions().toConfig().withSeed(2026);
        ScheduleFile all = ScheduleFile.of(config, null, PLAN, "run x");
        Path file = dir.resolve("schedule.json");
        all.write(file);
        ScheduleFile back = ScheduleFile.read(file);
        assertEquals(config, back.config(), "every parameter, the seed included");
        assertNull(back.cycleSet(), "all cycles");
        assertEquals(List.of(0, 1, 2), back.faultCycles());
        assertEquals(all.faults(), back.faults());
        assertEquals("run x", back.origin());

        ScheduleFile shrunk = back.keeping(Set.of(2, 0), "shrunk");
        Path out = dir.resolve("shrunk.json");
        shrunk.write(out);
        ScheduleFile shrunkBack = ScheduleFile.read(out);
        assertEquals(Set.of(0, 2), shrunkBack.cycleSet());
        assertEquals(List.of(0, 2), shrunkBack.faultCycles());
        assertEquals(List.of("kill", "start", "kill", "start"), shrunkBack.faults().stream().map(ScheduleFile.Fault::f).toList());
        assertEquals("controller", shrunkBack.faults().get(0).value());
        assertEquals(config.seed(), shrunkBack.config().seed());
    }

    @Test
    void aFileThatIsNotAScheduleIsRejectedInOneLine(@TempDir Path dir) throws Exception {
        Path wrong = dir.resolve("test.json");
        Files.writeString(wrong, "{\"format\":\"something-else\",\"parameters\":{}}");
        var e = assertThrows(IllegalArgumentException.class, () -> ScheduleFile.read(wrong));
        assertTrue(e.getMessage().contains("not a Faultline schedule file"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ScheduleFile.read(dir.resolve("missing.json")));
    }

    @Test
    void forbiddenAnomaliesAreNamedByCheckAndCategory() {
        Map<String, Object> results = Map.of("checks", Map.of(
                "queue", Map.of("counts", Map.of("lost-write", 3, "int-send-skip", 2, "duplicate", 0),
                        "allowed", List.of("int-send-skip")),
                "total-queue", Map.of("counts", Map.of("lost", 1), "allowed", List.of())));
        assertEquals(Set.of("queue/lost-write", "total-queue/lost"), ShrinkCommand.forbidden(results));
        assertEquals(Set.of(), ShrinkCommand.forbidden(Map.of()));
    }

    @Test
    void theOriginalReportLinksToTheShrunkScheduleOnce(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("report.html"), "<html><body>\n<h1>invalid</h1></body></html>");
        Path schedule = dir.resolve("shrunk-schedule.json");
        ReportLinks.addShrinkResult(dir, schedule, 7, 2, true);
        ReportLinks.addShrinkResult(dir, schedule, 7, 1, true);
        String html = Files.readString(dir.resolve("report.html"));
        assertEquals(1, html.split("id=\"shrink\"", -1).length - 1, "replaced, not stacked");
        assertTrue(html.contains("7 faults &rarr; 1"), html);
        assertTrue(html.contains("href=\"shrunk-schedule.json\""), html);
        assertTrue(html.indexOf("id=\"shrink\"") < html.indexOf("<h1>"), "at the top of the report");
    }
}
