package io.faultline.nemesis.process;

import io.faultline.nemesis.ClusterView;
import io.faultline.nemesis.ClusterView.PartitionRef;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TargetTest {
    private static final List<String> FIVE = List.of("n1", "n2", "n3", "n4", "n5");

    @Test
    void sizesFollowTheClusterSize() {
        var view = ClusterView.of(FIVE);
        assertEquals(1, new Target.One().resolve(view, new Random(1)).size());
        assertEquals(2, new Target.Minority().resolve(view, new Random(1)).size());
        assertEquals(3, new Target.Majority().resolve(view, new Random(1)).size());
        assertEquals(FIVE, new Target.All().resolve(view, new Random(1)));
        assertEquals(1, new Target.Minority().resolve(ClusterView.of(List.of("n1", "n2", "n3")), new Random(1)).size());
        assertEquals(List.of("n2", "n4"), new Target.Nodes(List.of("n4", "n2")).resolve(view, new Random()));
        assertThrows(IllegalArgumentException.class, () -> new Target.Nodes(List.of("n7")).resolve(view, new Random()));
    }

    @Test
    void primariesAreTheDistinctKnownLeadersAndControllerMayBeUnknown() {
        ClusterView view = new ClusterView() {
            public List<String> nodeNames() {
                return FIVE;
            }

            public Optional<String> leaderOf(PartitionRef p) {
                return p.partition() == 2 ? Optional.empty() : Optional.of(p.partition() == 0 ? "n5" : "n3");
            }
        };
        var primaries = new Target.Primaries(List.of(new PartitionRef("t", 0), new PartitionRef("t", 1),
                new PartitionRef("u", 0), new PartitionRef("t", 2)));
        assertEquals(List.of("n3", "n5"), primaries.resolve(view, new Random()));
        assertEquals(List.of(), new Target.Controller().resolve(view, new Random()));
    }

    @Test
    void randomChoicesRepeatGivenTheSeed() {
        var view = ClusterView.of(FIVE);
        assertEquals(new Target.Majority().resolve(view, new Random(3)), new Target.Majority().resolve(view, new Random(3)));
    }
}
