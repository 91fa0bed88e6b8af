package io.faultline.checker.observe;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CoverageMapTest {
    private static Transition t(long time, String kind) {
        return new Transition(time, kind, "t-0", "");
    }

    @Test
    void gramsAreEveryRunOfUpToThreeConsecutiveKinds() {
        assertEquals(List.of("a", "a > b", "a > b > a", "b", "b > a", "b > a > b"),
                CoverageMap.gramsOf(List.of("a", "b", "a", "b")));
    }

    @Test
    void onePollsChangesCountOnceEachAndRepeatsOnce() {
        var p1 = List.of(new Transition(5, "leader-moved", "a-0", ""), new Transition(5, "isr-shrink", "a-0", ""),
                new Transition(5, "isr-shrink", "b-0", ""), new Transition(5, "leader-moved", "b-0", ""));
        var p2 = List.of(new Transition(9, "isr-shrink", "c-0", ""), new Transition(12, "isr-full", "a-0", ""));
        var all = new java.util.ArrayList<Transition>(p2);
        all.addAll(p1);
        assertEquals(List.of("isr-shrink", "leader-moved", "isr-shrink", "isr-full"), CoverageMap.sequence(all));
        assertEquals(List.of("a", "b"), CoverageMap.sequence(List.of(t(1, "a"), t(2, "a"), t(3, "b"), t(4, "b"))));
    }

    @Test
    void aRunAddsItsGramsAndCreditsTheCompositionWhoseWindowHeldThem() {
        var map = new CoverageMap();
        var first = map.record("run1", List.of(t(10, "isr-shrink"), t(20, "leader-moved"), t(90, "isr-full")),
                List.of(new CoverageMap.Window("kill-leader", 5, 25), new CoverageMap.Window("pause-leader", 80, 95)));
        assertEquals(6, first.total()); // a, b, c, a>b, b>c, a>b>c
        assertEquals(6, first.added());
        assertEquals(3, map.composition("kill-leader").discoveries(), "isr-shrink, leader-moved and the pair");
        assertEquals(1, map.composition("pause-leader").discoveries());

        var second = map.record("run2", List.of(t(10, "isr-shrink"), t(20, "leader-moved")),
                List.of(new CoverageMap.Window("kill-leader", 5, 25)));
        assertEquals(0, second.added(), "nothing new");
        assertEquals(2, map.composition("kill-leader").tries());
        assertEquals(3, map.composition("kill-leader").discoveries(), "a repeat discovers nothing");
        assertEquals(2, map.count("isr-shrink > leader-moved"));
        assertEquals(List.of(6, 6), map.runs().stream().map(CoverageMap.RunGrowth::total).toList());
    }

    @Test
    void theMapSurvivesItsFileAndADamagedFileIsOneClearError(@TempDir Path dir) throws Exception {
        var map = new CoverageMap();
        map.record("r", List.of(t(1, "a"), t(2, "b")), List.of(new CoverageMap.Window("x", 0, 5)));
        Path file = dir.resolve("coverage.json");
        map.write(file);
        var back = CoverageMap.readOrEmpty(file);
        assertEquals(map.grams(), back.grams());
        assertEquals(map.composition("x"), back.composition("x"));
        assertEquals(0, CoverageMap.readOrEmpty(dir.resolve("none.json")).size());
        java.nio.file.Files.writeString(file, "{\"format\":\"other\"}");
        var e = assertThrows(IllegalArgumentException.class, () -> CoverageMap.readOrEmpty(file));
        assertTrue(e.getMessage().contains("not a readable coverage map"), e.getMessage());
    }
}
