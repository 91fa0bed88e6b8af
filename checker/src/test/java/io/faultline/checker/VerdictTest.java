package io.faultline.checker;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

class VerdictTest {
    private static CheckResult result(Verdict v, String... found) {
        Map<String, Long> counts = new java.util.LinkedHashMap<>();
        for (String f : found) counts.put(f, 2L);
        return new CheckResult("c", v, counts, Set.of(), Map.of(), Map.of(), null);
    }

    @Test
    void invalidBeatsUnknownBeatsValid() {
        for (Verdict a : Verdict.values()) {
            assertEquals(a, a.and(Verdict.VALID));
            assertEquals(Verdict.INVALID, a.and(Verdict.INVALID));
            assertEquals(a.and(Verdict.UNKNOWN), Verdict.UNKNOWN.and(a));
        }
        assertEquals(Verdict.UNKNOWN, Verdict.VALID.and(Verdict.UNKNOWN));
    }

    @Test
    void mergeOfNothingIsValid() {
        assertEquals(Verdict.VALID, Verdict.merge(List.of()));
    }

    @Test
    void unprovenCategoriesAloneMakeUnknownButNotWithAProvenOne() {
        var unread = result(Verdict.INVALID, "unseen");
        var divergent = result(Verdict.INVALID, "unseen", "inconsistent-offsets");
        assertEquals(Verdict.INVALID, Verdict.merge(List.of(unread)));
        assertEquals(Verdict.UNKNOWN, Verdict.merge(List.of(unread), Set.of("unseen", "lost")));
        assertEquals(Verdict.INVALID, Verdict.merge(List.of(divergent), Set.of("unseen", "lost")));
        assertEquals(Verdict.INVALID, Verdict.merge(List.of(unread, result(Verdict.INVALID, "G1a")), Set.of("unseen")));
        assertEquals(Verdict.UNKNOWN, Verdict.merge(List.of(result(Verdict.VALID), result(Verdict.UNKNOWN))));
    }
}
