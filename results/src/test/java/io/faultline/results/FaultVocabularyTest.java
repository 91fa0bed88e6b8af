package io.faultline.results;

import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static io.faultline.results.SyntheticRun.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report draws faults by the vocabulary the run wrote, not by a table of its own. */
class FaultVocabularyTest {
    private static final FaultVocabulary CUSTOM = new FaultVocabulary(List.of(
            new FaultVocabulary.Entry("brownout", "#123abc", Set.of("dim-lights"), Set.of("lights-on"))));

    private static SyntheticRun brownoutRun() {
        SyntheticRun r = new SyntheticRun();
        OpValue none = OpValue.None.INSTANCE;
        r.add(OpType.INFO, Op.NEMESIS, 1 * S, "dim-lights", none, null);
        r.add(OpType.INFO, Op.NEMESIS, 2 * S, "dim-lights", none, null);
        r.add(OpType.INFO, Op.NEMESIS, 4 * S, "lights-on", none, null);
        r.add(OpType.INFO, Op.NEMESIS, 5 * S, "lights-on", none, null);
        r.add(OpType.OK, 0, 8 * S, "send", none, null);
        return r;
    }

    @Test
    void aCustomPackageOpensAndClosesByItsOwnOps() {
        var bands = FaultBands.of(brownoutRun().ops(), CUSTOM).bands();
        assertEquals(List.of(new FaultBands.Band("brownout", 1 * S, 5 * S, true)), bands);
        assertTrue(FaultBands.of(brownoutRun().ops()).isEmpty(), "the fallback knows no brownout");
    }

    @Test
    void theJsonFormRoundTripsAndBadShapesFallBack() {
        assertEquals(CUSTOM, FaultVocabulary.fromJson(CUSTOM.toJson()));
        assertNull(FaultVocabulary.fromJson(null), "an old run: no faults section");
        assertNull(FaultVocabulary.fromJson(List.of("partition")));
        var noColour = FaultVocabulary.fromJson(List.of(java.util.Map.of("name", "x", "colour", "red")));
        assertTrue(FaultVocabulary.FALLBACK_COLOURS.contains(noColour.colourOf("x")), "an invalid colour keeps the palette's");
    }

    @Test
    void theReportRendersTheCustomPackageInItsColour(@TempDir Path dir) throws Exception {
        var r = brownoutRun();
        var input = ReportInput.builder("t").history(r.ops()).parameters(SyntheticRun.parameters())
                .startedAt(SyntheticRun.STARTED).faults(CUSTOM).build();
        HtmlReport.write(input, dir);
        String html = Files.readString(dir.resolve("report.html"));
        assertTrue(html.contains("brownout"), "the band's package is named");
        assertTrue(html.toLowerCase().contains("#123abc"), "and drawn in the run's colour");
    }
}
