package io.faultline.nemesis.link;

import eu.rekawek.toxiproxy.model.ToxicDirection;
import io.faultline.nemesis.ClusterView;
import io.faultline.nemesis.ClusterView.PartitionRef;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which directions a link fault hits, and on which proxy and stream each toxic goes: pure, no cluster. */
class LinkTargetTest {
    private static final List<String> FIVE = List.of("n1", "n2", "n3", "n4", "n5");
    private static final PartitionRef P = new PartitionRef("t", 0);

    private static ClusterView cluster(List<String> names, String leader) {
        return new ClusterView() {
            @Override
            public List<String> nodeNames() {
                return names;
            }

            @Override
            public Optional<String> leaderOf(PartitionRef partition) {
                return Optional.ofNullable(leader);
            }
        };
    }

    @Test
    void oneLinkIsOneDirectionBetweenTwoDistinctNodesAndRepeatsWithTheSeed() {
        for (int seed = 0; seed < 50; seed++) {
            Set<DataLink> a = LinkTarget.One.any().resolve(ClusterView.of(FIVE), new Random(seed));
            assertEquals(1, a.size());
            assertEquals(a, LinkTarget.One.any().resolve(ClusterView.of(FIVE), new Random(seed)));
        }
        assertEquals(Set.of(new DataLink("n2", "n4")), new LinkTarget.One("n2", "n4").resolve(ClusterView.of(FIVE), new Random()));
    }

    @Test
    void aNodesLinksAreItsDataToEveryOtherNode() {
        Set<DataLink> links = new LinkTarget.NodeLinks("n3").resolve(ClusterView.of(FIVE), new Random(1));
        assertEquals(Set.of(new DataLink("n3", "n1"), new DataLink("n3", "n2"), new DataLink("n3", "n4"),
                new DataLink("n3", "n5")), new HashSet<>(links));
    }

    @Test
    void aBridgeCutsTheHalvesAndSparesTheBridgeNode() {
        for (int seed = 0; seed < 20; seed++) {
            Set<DataLink> links = new LinkTarget.Bridge().resolve(ClusterView.of(FIVE), new Random(seed));
            assertEquals(4, links.size(), "2 x 2 links between the halves of five nodes");
            Set<String> from = new HashSet<>();
            Set<String> to = new HashSet<>();
            links.forEach(l -> {
                from.add(l.from());
                to.add(l.to());
            });
            assertTrue(java.util.Collections.disjoint(from, to), "the halves are disjoint: " + links);
            Set<String> touched = new HashSet<>(from);
            touched.addAll(to);
            assertEquals(4, touched.size(), "one node, the bridge, is on no hit link");
        }
        assertThrows(IllegalArgumentException.class, () -> new LinkTarget.Bridge().resolve(ClusterView.of(List.of("n1", "n2")), new Random()));
    }

    @Test
    void aLeadersLinksFollowTheLeaderAtResolveTime() {
        assertEquals(Set.of(new DataLink("n2", "n1"), new DataLink("n2", "n3")),
                new HashSet<>(new LinkTarget.Leader(P).resolve(cluster(List.of("n1", "n2", "n3"), "n2"), new Random())));
        assertThrows(IllegalStateException.class, () -> new LinkTarget.Leader(P).resolve(cluster(FIVE, null), new Random()));
    }

    @Test
    void oneWayHitsOnlyItsDirectionTheOthersBoth() {
        Set<DataLink> ab = Set.of(new DataLink("n1", "n2"));
        assertEquals(ab, LinkNemesis.hit(new LinkFault.OneWay(LinkTarget.One.any()), ab));
        assertEquals(Set.of(new DataLink("n1", "n2"), new DataLink("n2", "n1")),
                LinkNemesis.hit(new LinkFault.Slow(LinkTarget.One.any(), 10, 0), ab));
        assertThrows(IllegalArgumentException.class, () -> new LinkFault.Flaky(LinkTarget.One.any(), 1f, 0, false),
                "flaky is below certainty");
    }

    @Test
    void dataFromAToBIsUpstreamOfAsConnectionsAndDownstreamOfBs() {
        var fault = new LinkFault.OneWay(LinkTarget.One.any());
        var placements = LinkNemesis.placements(fault, Set.of(new DataLink("n1", "n2")), List.of(9092, 9093), List.of());
        assertEquals(List.of(
                new LinkNemesis.Placement("n1-n2-9092", ToxicDirection.UPSTREAM, "faultline-one-way-n1-n2"),
                new LinkNemesis.Placement("n2-n1-9092", ToxicDirection.DOWNSTREAM, "faultline-one-way-n1-n2"),
                new LinkNemesis.Placement("n1-n2-9093", ToxicDirection.UPSTREAM, "faultline-one-way-n1-n2"),
                new LinkNemesis.Placement("n2-n1-9093", ToxicDirection.DOWNSTREAM, "faultline-one-way-n1-n2")), placements);
        // both directions of one link put two differently named toxics on each proxy, never a duplicate name
        var both = LinkNemesis.placements(new LinkFault.Slow(null, 1, 0),
                LinkNemesis.hit(new LinkFault.Slow(null, 1, 0), Set.of(new DataLink("n1", "n2"))), List.of(9092), List.of());
        assertEquals(4, both.size());
        assertEquals(4, new HashSet<>(both.stream().map(p -> p.proxy() + "/" + p.toxic()).toList()).size());
        assertFalse(both.stream().anyMatch(p -> p.proxy().startsWith("n1-n1")));
    }

    @Test
    void clientLinksUseTheNodesClientProxyOnly() {
        var fault = new LinkFault.Slow(new LinkTarget.Clients("n2"), 100, 0);
        Set<DataLink> hit = LinkNemesis.hit(fault, fault.target().resolve(ClusterView.of(FIVE), new Random()));
        assertEquals(Set.of(new DataLink("clients", "n2"), new DataLink("n2", "clients")), hit);
        var placements = LinkNemesis.placements(fault, hit, List.of(9092, 9093), List.of(9092));
        assertEquals(Set.of(
                new LinkNemesis.Placement("clients-n2-9092", ToxicDirection.UPSTREAM, "faultline-slow-clients-n2"),
                new LinkNemesis.Placement("clients-n2-9092", ToxicDirection.DOWNSTREAM, "faultline-slow-n2-clients")),
                new HashSet<>(placements));
    }
}
