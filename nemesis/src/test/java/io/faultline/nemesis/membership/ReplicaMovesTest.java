package io.faultline.nemesis.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.FaultPackages;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where moves go: same size, distinct live brokers, disjoint moves and single swaps both drawn, seeded. */
class ReplicaMovesTest {

    @Test
    void aMoveKeepsTheReplicationFactorUsesOnlyClusterBrokersAndChangesTheSet() {
        Random r = new Random(7);
        boolean sawDisjoint = false;
        boolean sawSwap = false;
        for (int i = 0; i < 200; i++) {
            List<Integer> current = List.of(1, 2);
            List<Integer> target = ReplicaMoves.target(current, List.of(1, 2, 3, 4, 5), r);
            assertEquals(2, target.size());
            assertEquals(2, new HashSet<>(target).size(), "distinct: " + target);
            assertTrue(Set.of(1, 2, 3, 4, 5).containsAll(target), target.toString());
            assertNotEquals(Set.copyOf(current), Set.copyOf(target), "the set changes");
            long kept = target.stream().filter(current::contains).count();
            sawDisjoint |= kept == 0;
            sawSwap |= kept == 1;
        }
        assertTrue(sawDisjoint && sawSwap, "both kinds of move are drawn");
    }

    @Test
    void withNoBrokerOutsideTheSetTheOrderRotatesSoThePreferredLeaderChanges() {
        assertEquals(List.of(2, 3, 1), ReplicaMoves.target(List.of(1, 2, 3), List.of(3, 2, 1), new Random(1)));
    }

    @Test
    void theSameSeedGivesTheSameMoves() {
        Random a = new Random(42);
        Random b = new Random(42);
        for (int i = 0; i < 20; i++) {
            assertEquals(ReplicaMoves.target(List.of(1, 2, 3), List.of(1, 2, 3, 4, 5, 6), a),
                    ReplicaMoves.target(List.of(1, 2, 3), List.of(1, 2, 3, 4, 5, 6), b));
        }
    }

    @Test
    void thePackageHealsByCancellingAndIsDrawnLikeTheOthers() {
        assertTrue(FaultPackages.NAMES.contains(FaultPackages.MEMBERSHIP));
        var legend = FaultPackages.legends().stream().filter(l -> l.name().equals(FaultPackages.MEMBERSHIP)).findFirst()
                .orElseThrow();
        assertEquals(Set.of(MembershipNemesis.MOVE, MembershipNemesis.REASSIGN, MembershipNemesis.ELECT), legend.faultFs());
        assertEquals(Set.of(MembershipNemesis.CANCEL), legend.healFs());
        assertEquals("cancel-moves", FaultOp.of(MembershipNemesis.CANCEL).f());
    }
}
