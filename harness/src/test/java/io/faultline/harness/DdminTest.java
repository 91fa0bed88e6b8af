package io.faultline.harness;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ddmin against fake "runs": predicates over fault lists, no cluster. */
class DdminTest {
    private static List<Integer> range(int n) {
        return IntStream.range(0, n).boxed().toList();
    }

    @Test
    void findsTheOneFaultThatMatters() throws Exception {
        List<List<Integer>> tried = new ArrayList<>();
        var d = new Ddmin<Integer>(items -> items.contains(7), (k, items, fails) -> tried.add(items), () -> false);
        var r = d.minimize(range(12));
        assertEquals(List.of(7), r.minimal());
        assertTrue(r.complete());
        assertEquals(tried.size(), r.attempts());
        assertTrue(r.attempts() < 12, "fewer runs than faults: " + r.attempts());
    }

    @Test
    void keepsTwoFaultsThatOnlyFailTogetherInTheirOrder() throws Exception {
        var d = new Ddmin<Integer>(items -> items.contains(3) && items.contains(9), (k, i, f) -> {}, () -> false);
        assertEquals(List.of(3, 9), d.minimize(range(16)).minimal());
    }

    @Test
    void theResultIsOneMinimal() throws Exception {
        // fails when at least three of the even faults are in: any three evens are minimal
        Ddmin.Test<Integer> test = items -> items.stream().filter(i -> i % 2 == 0).count() >= 3;
        var r = new Ddmin<>(test, (k, i, f) -> {}, () -> false).minimize(range(20));
        assertEquals(3, r.minimal().size());
        assertTrue(test.fails(r.minimal()));
        for (int i = 0; i < r.minimal().size(); i++) {
            List<Integer> without = new ArrayList<>(r.minimal());
            without.remove(i);
            assertFalse(test.fails(without), "removing any one passes");
        }
    }

    @Test
    void neverTestsTheSameSubsetTwice() throws Exception {
        Set<List<Integer>> tested = new HashSet<>();
        var d = new Ddmin<Integer>(items -> {
            assertTrue(tested.add(items), "tested twice: " + items);
            return items.contains(2) && items.contains(5) && items.contains(11);
        }, (k, i, f) -> {}, () -> false);
        assertEquals(List.of(2, 5, 11), d.minimize(range(13)).minimal());
    }

    @Test
    void aBudgetStopsTheSearchWithTheBestSoFar() throws Exception {
        int[] runs = {0};
        var d = new Ddmin<Integer>(items -> {
            runs[0]++;
            return items.contains(4);
        }, (k, i, f) -> {}, () -> runs[0] >= 2);
        var r = d.minimize(range(16));
        assertFalse(r.complete());
        assertEquals(2, r.attempts());
        assertTrue(r.minimal().contains(4) && r.minimal().size() <= 8, "still failing, smaller: " + r.minimal());
    }

    @Test
    void splitsIntoNearlyEqualChunks() {
        assertEquals(List.of(List.of(0, 1, 2), List.of(3, 4), List.of(5, 6)), Ddmin.split(range(7), 3));
        assertEquals(List.of(List.of(0), List.of(1)), Ddmin.split(range(2), 5));
    }
}
