package io.faultline.nemesis.net;

import io.faultline.docker.DockerBacked;
import io.faultline.docker.Cluster;
import io.faultline.docker.Node;
import io.faultline.docker.probe.ProbeImage;
import io.faultline.docker.probe.ProbeNode;
import io.faultline.nemesis.ClusterView.PartitionRef;
import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.NemesisContext;
import io.faultline.nemesis.Probes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every partition shape on five real probe nodes, checked by connecting between every pair. */
@DockerBacked
class PartitionerDockerTest {
    private static final PartitionRef TOPIC = new PartitionRef("t", 0);
    private static Cluster cluster;
    private static NemesisContext ctx;
    private static Partitioner partitioner;

    @BeforeAll
    static void start() {
        cluster = Cluster.builder().withNodes(5).withNodeSpec(ProbeImage.spec()).start();
        for (Node n : cluster.nodes()) Probes.awaitUp(n, 30_000);
        // stand-ins for a system that can name its leaders and controller
        ctx = NemesisContext.builder(cluster).seed(11)
                .leaderAware((c, topic, p) -> Optional.of(c.node("n4")))
                .controllerAware(c -> Optional.of(c.node("n2")))
                .build();
        partitioner = new Partitioner();
        partitioner.setup(ctx);
    }

    @AfterAll
    static void stop() {
        if (partitioner != null) partitioner.teardown(ctx);
        if (cluster != null) cluster.close();
    }

    @AfterEach
    void healed() {
        partitioner.heal(ctx);
    }

    private static Map<String, Set<String>> matrix() {
        return Probes.reachability(cluster, ProbeNode.PORT);
    }

    private static Grudge startPartition(PartitionShape shape) {
        FaultOp done = partitioner.invoke(ctx, FaultOp.of(Partitioner.START, shape));
        assertTrue(done.result().startsWith("cut "), done.toString());
        return partitioner.current();
    }

    @Test
    void everyShapeGivesExactlyItsReachabilityAndHealRestoresAll() {
        List<PartitionShape> shapes = List.of(new PartitionShape.IsolateOne(), new PartitionShape.Halves(),
                new PartitionShape.MajoritiesRing(), new PartitionShape.MinorityThird(), new PartitionShape.Bridge(),
                new PartitionShape.IsolateLeader(TOPIC), new PartitionShape.IsolateController(),
                new PartitionShape.Explicit(new Grudge(Map.of("n1", Set.of("n2")))));
        List<String> names = cluster.nodes().stream().map(Node::name).toList();
        for (PartitionShape shape : shapes) {
            Grudge grudge = startPartition(shape);
            assertTrue(!grudge.isEmpty(), shape + " cuts something");
            var cut = Probes.survey(cluster, ProbeNode.PORT);
            assertEquals(Grudges.visibility(grudge, names), cut.reached(), shape + " with " + grudge);
            assertEquals(grudge.ruleCount(), cut.dropRules(), shape + ": one rule per dropped peer");
            FaultOp healed = partitioner.invoke(ctx, FaultOp.of(Partitioner.STOP));
            assertTrue(healed.result().contains("removed " + grudge.ruleCount()), healed.toString());
            var after = Probes.survey(cluster, ProbeNode.PORT);
            assertEquals(Probes.full(cluster), after.reached(), "healed after " + shape);
            assertEquals(0, after.dropRules(), "no rule left after " + shape);
        }
        Grudge leader = Grudges.isolate("n4", names);
        assertEquals(leader, new PartitionShape.IsolateLeader(TOPIC).grudge(ctx, new java.util.Random()));
    }

    @Test
    void aPartitionSurvivesARestartOfAnAffectedNode() {
        Grudge grudge = startPartition(new PartitionShape.Explicit(Grudges.complete(List.of(List.of("n1", "n2"),
                List.of("n3", "n4", "n5")))));
        Node n1 = cluster.node("n1");
        n1.kill();
        n1.start(); // the start listener puts the rules back
        Probes.awaitUp(n1, 30_000);
        assertEquals(3, Partitioner.dropRules(n1).size(), "n1's rules are back after its restart");
        List<String> names = cluster.nodes().stream().map(Node::name).toList();
        assertEquals(Grudges.visibility(grudge, names), matrix());
        partitioner.heal(ctx);
        assertEquals(Probes.full(cluster), matrix());
        // once healed, a restart adds nothing
        n1.kill();
        n1.start();
        Probes.awaitUp(n1, 30_000);
        assertEquals(List.of(), Partitioner.dropRules(n1));
    }

    @Test
    void healRemovesOnlyItsOwnRulesAndReachesPausedNodes() {
        Node n3 = cluster.node("n3");
        n3.exec("iptables", "-A", "INPUT", "-s", "10.99.99.99", "-j", "DROP").orThrow("foreign rule");
        Node n5 = cluster.node("n5");
        n5.pause();
        try {
            Grudge g = startPartition(new PartitionShape.Explicit(Grudges.isolate("n5", List.of("n1", "n2", "n3", "n4", "n5"))));
            assertTrue(n5.isPaused(), "a paused node stays paused while its rules go in");
            n5.resume();
            assertEquals(4, Partitioner.dropRules(n5).size());
            assertEquals(Grudges.visibility(g, List.of("n1", "n2", "n3", "n4", "n5")), matrix());
            partitioner.heal(ctx);
            assertEquals(List.of("-A INPUT -s 10.99.99.99/32 -j DROP"), Partitioner.dropRules(n3), "foreign rule kept");
            for (String n : List.of("n1", "n2", "n4", "n5")) assertEquals(List.of(), Partitioner.dropRules(cluster.node(n)));
        } finally {
            n5.resume();
            n3.exec("iptables", "-D", "INPUT", "-s", "10.99.99.99", "-j", "DROP");
        }
        assertEquals(Probes.full(cluster), matrix());
    }

    @Test
    void aNewPartitionReplacesTheOneInForce() {
        startPartition(new PartitionShape.Explicit(Grudges.isolate("n1", List.of("n1", "n2", "n3", "n4", "n5"))));
        Grudge second = startPartition(new PartitionShape.Explicit(Grudges.isolate("n2", List.of("n1", "n2", "n3", "n4", "n5"))));
        var expected = new TreeMap<>(Grudges.visibility(second, List.of("n1", "n2", "n3", "n4", "n5")));
        assertEquals(expected, matrix());
    }
}
