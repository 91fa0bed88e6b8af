package io.faultline.nemesis.net;

import io.faultline.nemesis.ClusterView;
import io.faultline.nemesis.ClusterView.PartitionRef;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The partition shapes as pure values: who sees whom, without any container. */
class GrudgesTest {
    private static final List<String> FIVE = List.of("n1", "n2", "n3", "n4", "n5");

    private static List<String> nodes(int n) {
        return IntStream.rangeClosed(1, n).mapToObj(i -> "n" + i).toList();
    }

    @Test
    void completeGrudgeCutsExactlyBetweenComponents() {
        Grudge g = Grudges.complete(List.of(List.of("n1", "n2"), List.of("n3", "n4", "n5")));
        assertEquals(Set.of("n3", "n4", "n5"), g.dropsOf("n1"));
        assertEquals(Set.of("n1", "n2"), g.dropsOf("n5"));
        assertTrue(g.connected("n1", "n2"));
        assertTrue(g.connected("n3", "n5"));
        assertFalse(g.connected("n2", "n4"));
        assertEquals(12, g.ruleCount());
    }

    @Test
    void isolateLeavesOneNodeAlone() {
        var seen = Grudges.visibility(Grudges.isolate("n3", FIVE), FIVE);
        assertEquals(Set.of("n3"), seen.get("n3"));
        assertEquals(Set.of("n1", "n2", "n4", "n5"), seen.get("n1"));
    }

    @Test
    void halvesPutTheSmallerHalfFirst() {
        var seen = Grudges.visibility(Grudges.halves(FIVE), FIVE);
        assertEquals(Set.of("n1", "n2"), seen.get("n1"));
        assertEquals(Set.of("n3", "n4", "n5"), seen.get("n4"));
    }

    @Test
    void bridgeNodeSeesEveryoneAndTheHalvesDoNotSeeEachOther() {
        var seen = Grudges.visibility(Grudges.bridge(FIVE), FIVE);
        assertEquals(Set.copyOf(FIVE), seen.get("n3"), "n3 is the bridge");
        assertEquals(Set.of("n1", "n2", "n3"), seen.get("n1"));
        assertEquals(Set.of("n3", "n4", "n5"), seen.get("n5"));
        assertThrows(IllegalArgumentException.class, () -> Grudges.bridge(List.of("n1", "n2")));
    }

    @Test
    void majoritiesRingGivesEveryNodeADistinctMajoritySymmetrically() {
        for (int n = 4; n <= 11; n++) {
            List<String> nodes = nodes(n);
            Grudge g = Grudges.majoritiesRing(Grudges.shuffled(nodes, new Random(n)));
            Map<String, Set<String>> seen = Grudges.visibility(g, nodes);
            Set<Set<String>> distinct = new HashSet<>(seen.values());
            assertEquals(n, distinct.size(), "every node sees a different set, n=" + n);
            for (String a : nodes) {
                assertTrue(seen.get(a).size() >= Grudges.majority(n), a + " sees a majority, n=" + n);
                assertTrue(seen.get(a).size() < n, a + " does not see everyone, n=" + n);
                for (String b : nodes) assertEquals(g.connected(a, b), g.connected(b, a));
            }
        }
        assertFalse(Grudges.ringPossible(3));
        assertThrows(IllegalArgumentException.class, () -> Grudges.majoritiesRing(nodes(3)));
    }

    @Test
    void fiveNodeRingSeesExactlyTheTwoRingNeighbours() {
        var seen = Grudges.visibility(Grudges.majoritiesRing(FIVE), FIVE);
        assertEquals(Set.of("n5", "n1", "n2"), seen.get("n1"));
        assertEquals(Set.of("n2", "n3", "n4"), seen.get("n3"));
    }

    @Test
    void minorityThirdSplitsOffAThirdButAtLeastOne() {
        assertEquals(1, Grudges.minorityThird(3));
        assertEquals(1, Grudges.minorityThird(5));
        assertEquals(2, Grudges.minorityThird(7));
        assertEquals(3, Grudges.minorityThird(10));
        Grudge g = new PartitionShape.MinorityThird().grudge(ClusterView.of(nodes(7)), new Random(1));
        long alone = Grudges.visibility(g, nodes(7)).values().stream().filter(s -> s.size() == 2).count();
        assertEquals(2, alone, "two nodes see only each other");
    }

    @Test
    void invertSwapsDroppedAndKept() {
        Grudge g = Grudges.halves(FIVE).invert(FIVE);
        assertEquals(Set.of("n2"), g.dropsOf("n1"));
        assertEquals(Set.of("n4", "n5"), g.dropsOf("n3"));
    }

    @Test
    void shapesRepeatGivenTheSeedAndVaryAcrossSeeds() {
        var view = ClusterView.of(FIVE);
        for (PartitionShape s : List.of(new PartitionShape.IsolateOne(), new PartitionShape.Halves(),
                new PartitionShape.MajoritiesRing(), new PartitionShape.Bridge(), new PartitionShape.MinorityThird())) {
            assertEquals(s.grudge(view, new Random(7)), s.grudge(view, new Random(7)), s + " repeats");
            Set<Grudge> different = new HashSet<>();
            for (int seed = 0; seed < 20; seed++) different.add(s.grudge(view, new Random(seed)));
            assertTrue(different.size() > 1, s + " varies with the seed");
        }
    }

    @Test
    void leaderAndControllerShapesIsolateWhatTheViewNamesAndFailWithoutIt() {
        var ref = new PartitionRef("t", 0);
        ClusterView view = new ClusterView() {
            public List<String> nodeNames() {
                return FIVE;
            }

            public Optional<String> leaderOf(PartitionRef p) {
                return p.equals(ref) ? Optional.of("n4") : Optional.empty();
            }

            public Optional<String> activeController() {
                return Optional.of("n2");
            }
        };
        assertEquals(Grudges.isolate("n4", FIVE), new PartitionShape.IsolateLeader(ref).grudge(view, new Random()));
        assertEquals(Grudges.isolate("n2", FIVE), new PartitionShape.IsolateController().grudge(view, new Random()));
        assertThrows(IllegalStateException.class,
                () -> new PartitionShape.IsolateLeader(new PartitionRef("other", 1)).grudge(view, new Random()));
        assertThrows(IllegalStateException.class,
                () -> new PartitionShape.IsolateController().grudge(ClusterView.of(FIVE), new Random()));
    }

    @Test
    void explicitGrudgeRejectsUnknownNodesAndSelfDrops() {
        var g = new Grudge(Map.of("n1", Set.of("n9")));
        assertThrows(IllegalArgumentException.class, () -> new PartitionShape.Explicit(g).grudge(ClusterView.of(FIVE), new Random()));
        assertThrows(IllegalArgumentException.class, () -> new Grudge(Map.of("n1", Set.of("n1"))));
        assertNotEquals(Grudge.none(), Grudges.isolate("n1", FIVE));
    }

    @Test
    void aPortCutDropsOnlyConnectionsToThatPort() {
        String add = Partitioner.addRules(List.of("-s 10.0.0.2 -p tcp --dport 9092"));
        assertTrue(add.contains("-C INPUT -s 10.0.0.2 -p tcp --dport 9092 -j DROP 2>/dev/null || iptables -w -A INPUT -s 10.0.0.2 -p tcp --dport 9092 -j DROP"), add);
        assertEquals("iptables -w -D INPUT -s 10.0.0.2 -p tcp --dport 9092 -j DROP 2>/dev/null || true\n",
                Partitioner.deleteRules(List.of("-s 10.0.0.2 -p tcp --dport 9092")));
        Grudge g = new Grudge(Map.of("n1", Set.of("n2")));
        assertEquals(Map.of("n2", List.of("-s 10.0.0.1 -p tcp --sport 9092")),
                Partitioner.portRules(g, Map.of("n1", "10.0.0.1", "n2", "10.0.0.2"), 9092),
                "n2 drops what n1 sends from its port: n2's connections there get no reply, n1 sees no new fetch");
        assertEquals(g, new PartitionShape.PortCut(g, 9092).grudge(ClusterView.of(FIVE), new Random()));
        assertThrows(IllegalArgumentException.class, () -> new PartitionShape.PortCut(g, 0));
        assertThrows(IllegalArgumentException.class, () -> new PartitionShape.PortCut(new Grudge(Map.of("n9", Set.of("n1"))), 9092)
                .grudge(ClusterView.of(FIVE), new Random()));
    }

    @Test
    void iptablesScriptsAddIdempotentlyAndDeleteExactlyTheirRules() {
        String add = Partitioner.addCommand(List.of("10.0.0.2", "10.0.0.3"));
        assertTrue(add.contains("-C INPUT -s 10.0.0.2 -j DROP 2>/dev/null || iptables -w -A INPUT -s 10.0.0.2 -j DROP"));
        String del = Partitioner.deleteCommand(List.of("10.0.0.3"));
        assertEquals("iptables -w -D INPUT -s 10.0.0.3 -j DROP 2>/dev/null || true\n", del);
    }
}
