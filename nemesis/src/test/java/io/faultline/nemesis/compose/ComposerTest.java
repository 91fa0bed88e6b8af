package io.faultline.nemesis.compose;

import io.faultline.checker.observe.CoverageMap;
import io.faultline.checker.observe.Transition;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The composition generator without a cluster: plans are pure functions of options, seed and coverage. */
class ComposerTest {
    static final CompositionKind.Shape SHAPE = new CompositionKind.Shape(5000, 2000, true, true, true, true);

    static Composer.Options options(List<CompositionKind> kinds) {
        return new Composer.Options(kinds, 4, SHAPE, 0.5, 3000, 0.25);
    }

    static Composer.Options all() {
        return options(Arrays.asList(CompositionKind.values()));
    }

    @Test
    void theSameSeedPlansTheSameCompositionsAndAnotherSeedOthers() {
        var a = Composer.plan(all(), 42, 600_000);
        var b = Composer.plan(all(), 42, 600_000);
        assertEquals(a, b);
        assertEquals(a.toString(), b.toString());
        assertNotEquals(a, Composer.plan(all(), 43, 600_000));
        assertTrue(a.size() > 5, "ten minutes hold several compositions: " + a.size());
    }

    @Test
    void everyCompositionFitsTheRunAndHealthyWindowsSeparateThem() {
        var plan = Composer.plan(all(), 7, 300_000);
        long previousEnd = 0;
        for (Composition c : plan) {
            assertTrue(c.atMillis() + c.lengthMillis() <= 300_000, c.toString());
            assertTrue(c.atMillis() - previousEnd >= 3000, "healthy window of at least 3 s before " + c);
            previousEnd = c.atMillis() + c.lengthMillis();
        }
    }

    @Test
    void aLowerDensityLeavesMoreOfTheRunHealthy() {
        var dense = new Composer.Options(Arrays.asList(CompositionKind.values()), 4, SHAPE, 0.8, 0, 0);
        var sparse = new Composer.Options(Arrays.asList(CompositionKind.values()), 4, SHAPE, 0.2, 0, 0);
        assertTrue(faulted(Composer.plan(dense, 3, 3_600_000)) > 2 * faulted(Composer.plan(sparse, 3, 3_600_000)));
    }

    private static long faulted(List<Composition> plan) {
        return plan.stream().mapToLong(Composition::lengthMillis).sum();
    }

    @Test
    void withoutClockOrLinksTheCombinationIsLeftOutAndNothingSkews() {
        var shape = new CompositionKind.Shape(5000, 2000, false, false);
        var o = new Composer.Options(Arrays.asList(CompositionKind.values()), 2, shape, 0.5, 3000, 1.0);
        assertTrue(!o.kinds().contains(CompositionKind.SKEWED_SLOW_LEADER));
        for (Composition c : Composer.plan(o, 5, 600_000)) {
            assertTrue(c.steps().stream().noneMatch(s -> s instanceof Step.Skew || s instanceof Step.SlowLinks), c.toString());
        }
        var none = new CompositionKind.Shape(5000, 2000, false, false);
        assertThrows(IllegalArgumentException.class, () -> new Composer.Options(List.of(CompositionKind.SKEWED_SLOW_LEADER), 1, none, 0.5, 0, 0));
        assertTrue(!o.kinds().contains(CompositionKind.TORN_WRITE_CRASH), "no disk package, no torn writes");
        assertThrows(IllegalArgumentException.class, () -> new Composer.Options(List.of(CompositionKind.TORN_WRITE_CRASH), 1, none, 0.5, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new Composer.Options(List.of(CompositionKind.ROLLING_RESTART), 1, none, 1.5, 0, 0));
    }

    /** Each kind's steps bound to fixed roles: the ops hit the nodes its name promises. */
    @Test
    void eachCompositionTargetsTheRolesItNames() {
        var roles = new Roles("t-0", "n1", List.of("n2", "n3"), java.util.Set.of("n1", "n2", "n3"), "n3", "n2");
        var nodes = List.of("n1", "n2", "n3");
        java.util.Set<String> coordinatorShapes = new java.util.TreeSet<>();
        java.util.Set<String> replicationShapes = new java.util.TreeSet<>();
        java.util.Set<String> churnShapes = new java.util.TreeSet<>();
        java.util.Set<String> rollingWays = new java.util.TreeSet<>();
        java.util.Set<String> outages = new java.util.TreeSet<>();
        for (int seed = 0; seed < 20; seed++) {
            for (CompositionKind k : CompositionKind.values()) {
                List<String> ops = new ArrayList<>();
                for (Step s : k.steps(new Random(seed), SHAPE)) {
                    StepOps.of(s, roles, nodes).ifPresent(i -> ops.add(i.op().f() + " " + i.op().value()));
                }
                String text = String.join(" | ", ops);
                switch (k) {
                    case ISOLATE_LEADER_THEN_KILL -> {
                        assertTrue(ops.get(0).startsWith("start-partition grudge {n1=[n2, n3], n2=[n1], n3=[n1]}"), text);
                        assertEquals("kill [n1]", ops.get(1), text);
                        assertEquals("start [n1]", ops.get(ops.size() - 1), text);
                    }
                    case LAGGING_REPLICA_ELECTION -> {
                        assertTrue(ops.get(0).equals("kill [n2]") || ops.get(0).equals("kill [n3]"), text);
                        assertEquals(ops.get(0).replace("kill", "start"), ops.get(1), "the follower comes back, lagging: " + text);
                        assertEquals("kill [n1]", ops.get(2), "then the leader dies: " + text);
                    }
                    case CRASH_WHILE_CATCHING_UP -> {
                        String follower = ops.get(0).substring("kill ".length());
                        assertTrue(follower.equals("[n2]") || follower.equals("[n3]"), text);
                        assertTrue(ops.stream().allMatch(o -> o.endsWith(follower)), "only the follower: " + text);
                        assertTrue(ops.stream().filter(o -> o.startsWith("kill")).count() >= 2, "killed again while catching up: " + text);
                    }
                    case FLAPPING_PARTITION -> {
                        long cuts = ops.stream().filter(o -> o.startsWith("start-partition")).count();
                        assertTrue(cuts >= 4, text);
                        assertEquals(cuts, ops.stream().filter(o -> o.startsWith("stop-partition")).count(), text);
                        assertTrue(k.steps(new Random(seed), SHAPE).stream().filter(s -> s instanceof Step.Wait)
                                .allMatch(s -> ((Step.Wait) s).millis() < 1000), "sub-second: " + text);
                    }
                    case CUT_LEADER_FROM_CONTROLLER -> assertEquals("start-partition grudge {n1=[n3], n3=[n1]}", ops.get(0), text);
                    case CUT_FOLLOWERS_FROM_LEADER -> assertTrue(ops.get(0).matches(
                            "start-partition grudge \\{n1=\\[(n2, n3|n2|n3)], .*") && !ops.get(0).contains("n2=[n3]")
                            && !ops.get(0).contains("n3=[n2]"), "followers keep each other: " + text);
                    case PAUSE_LEADER_PAST_SESSION -> {
                        assertEquals(List.of("pause [n1]", "resume [n1]"), ops);
                        long paused = ((Step.Wait) k.steps(new Random(seed), SHAPE).get(1)).millis();
                        assertTrue(paused > SHAPE.sessionTimeoutMillis(), "longer than the session: " + paused);
                    }
                    case SKEWED_SLOW_LEADER -> {
                        assertTrue(ops.get(0).startsWith("bump-clock Bump[target=[n1]"), text);
                        assertTrue(ops.get(1).startsWith("start-link Slow[target=NodeLinks[node=n1]"), text);
                        assertTrue(ops.contains("kill [n1]") || ops.stream().anyMatch(o -> o.startsWith("start-partition grudge {n1=[n2, n3]")), text);
                    }
                    case ROLLING_RESTART -> {
                        // crashes or clean stops, never both in one rolling restart
                        String how = ops.get(0).startsWith("stop") ? "stop" : "kill";
                        List<String> downs = ops.stream().filter(o -> o.startsWith(how)).toList();
                        assertTrue(downs.size() >= 2 && downs.stream().distinct().count() == downs.size(), "several nodes in a row: " + text);
                        for (int i = 0; i < ops.size(); i += 2) {
                            assertEquals(ops.get(i).replace(how, "start"), ops.get(i + 1), "one at a time: " + text);
                        }
                        rollingWays.add(how);
                    }
                    case COORDINATOR_FAILOVER -> {
                        String first = ops.get(0);
                        assertTrue(List.of("kill [n2]", "pause [n2]").contains(first)
                                || first.startsWith("start-partition grudge {n1=[n2], n2=[n1, n3], n3=[n2]}"), text);
                        assertTrue(ops.stream().allMatch(o -> o.contains("n2") || o.startsWith("stop-partition")), "only the coordinator: " + text);
                        assertTrue(List.of("start [n2]", "resume [n2]").contains(ops.get(ops.size() - 1)), "it comes back: " + text);
                        coordinatorShapes.add(first.replaceAll(" .*", ""));
                    }
                    case CUT_REPLICATION_ONLY -> {
                        String cut = ops.get(0);
                        assertTrue(cut.startsWith("start-partition replication-port grudge "), text);
                        assertEquals("stop-partition null", ops.get(ops.size() - 1).equals("start [n1]") ? ops.get(ops.size() - 2)
                                : ops.get(ops.size() - 1), "healed at the end: " + text);
                        if (cut.contains("n1=[n2, n3]") && ops.contains("kill [n2]")) {
                            replicationShapes.add("deposed leader");
                            assertEquals(List.of("kill [n1]", "start [n1]", "kill [n2]", "start [n2]", "stop-partition null"),
                                    ops.subList(1, ops.size()), "the cut leader restarts and stays away through a second election: " + text);
                        } else if (cut.contains("n1=[n2, n3]")) {
                            replicationShapes.add("leader");
                            assertTrue(ops.stream().noneMatch(o -> o.startsWith("kill") && !o.equals("kill [n1]")), text);
                        } else {
                            replicationShapes.add("follower");
                            String away = cut.contains("n2=[n1, n3]") ? "n2" : "n3";
                            String other = away.equals("n2") ? "n3" : "n2";
                            assertTrue(cut.contains(away + "=[n1, " + other + "]"), "cut from the leader and the other follower: " + text);
                            assertEquals(List.of("kill [n1]", "start [n1]", "kill [" + other + "]", "start [" + other + "]"),
                                    ops.subList(1, 5), "two elections while " + away + " cannot replicate: " + text);
                        }
                    }
                    case CUT_LEADER_KILL_COORDINATOR -> assertEquals(List.of("start-partition grudge {n1=[n2, n3], n2=[n1], n3=[n1]}",
                            "kill [n2]", "stop-partition null", "start [n2]"), ops, "the coordinator dies while the leader is cut off: " + text);
                    case REPLICA_SET_CHURN -> {
                        if (ops.get(0).equals("reassign Reassign[partition=t-0, replicas=[2, 3]]")) {
                            churnShapes.add("leader removed");
                            assertEquals(List.of("reassign Reassign[partition=t-0, replicas=[2, 3, 1]]"), ops.subList(1, ops.size()),
                                    "the leader's replica back, as a follower: " + text);
                        } else if (ops.get(0).endsWith("replicas=[1, 2]]") || ops.get(0).endsWith("replicas=[1, 3]]")) {
                            churnShapes.add("shrink and grow");
                            assertTrue(ops.get(0).startsWith("reassign Reassign[partition=t-0, replicas=[1, "), text);
                            assertEquals("reassign Reassign[partition=t-0, replicas=[1, 2, 3]]", ops.get(1), "added back: " + text);
                            assertTrue(ops.size() == 2 || ops.subList(2, ops.size()).equals(List.of("kill [n1]", "start [n1]")), text);
                        } else {
                            churnShapes.add("handover");
                            assertTrue(ops.get(0).equals("reassign Reassign[partition=t-0, replicas=[2, 1, 3]]")
                                    || ops.get(0).equals("reassign Reassign[partition=t-0, replicas=[3, 1, 2]]"), text);
                            assertTrue(ops.get(1).startsWith("elect-preferred Elect[partitions=[t-0]]"), text);
                            assertEquals("reassign Reassign[partition=t-0, replicas=[1, 2, 3]]", ops.get(2), "handed back: " + text);
                            assertEquals(4, ops.size(), text);
                        }
                    }
                    case MINORITY_OUTAGE -> {
                        assertEquals(2, ops.size(), text);
                        String how = ops.get(0).replaceAll(" .*", "");
                        String node = ops.get(0).substring(how.length() + 1);
                        assertTrue(List.of("[n1]", "[n2]", "[n3]").contains(node), "one node: " + text);
                        assertEquals((how.equals("pause") ? "resume " : "start ") + node, ops.get(1), "and back: " + text);
                        long away = ((Step.Wait) k.steps(new Random(seed), SHAPE).get(1)).millis();
                        assertTrue(away >= 25_000, "longer than the failover bound and a judged span: " + away);
                        outages.add(how);
                    }
                    case TORN_WRITE_CRASH -> {
                        assertTrue(ops.get(0).matches("tear-segment Tear\\[target=\\[(n1|n2|n3)], bytes=\\d+, partition=t-0]"), text);
                        String torn = ops.get(0).replaceAll(".*target=(\\[n.]).*", "$1");
                        List<String> rest = ops.subList(1, ops.size());
                        assertEquals(4, rest.size(), "the two others restarted: " + text);
                        for (int i = 0; i < rest.size(); i += 2) {
                            assertTrue(rest.get(i).startsWith("kill ") && !rest.get(i).endsWith(torn), text);
                            assertEquals(rest.get(i).replace("kill", "start"), rest.get(i + 1), "one at a time: " + text);
                        }
                    }
                }
            }
        }
        assertEquals(java.util.Set.of("kill", "pause", "start-partition"), coordinatorShapes, "crash, cut-then-kill and freeze all drawn");
        assertEquals(java.util.Set.of("leader", "follower", "deposed leader"), replicationShapes, "every replication cut drawn");
        assertEquals(java.util.Set.of("shrink and grow", "handover", "leader removed"), churnShapes, "every replica-set change drawn");
        assertEquals(java.util.Set.of("kill", "stop"), rollingWays, "crashes and clean stops both drawn");
        assertEquals(java.util.Set.of("kill", "stop", "pause"), outages, "crashed, stopped and frozen all drawn");
    }

    /** A coverage map that has seen every transition some kinds aim at many times, and none of one kind's. */
    static CoverageMap seenAllBut(CompositionKind unseen) {
        var map = new CoverageMap();
        java.util.Set<String> seen = new java.util.TreeSet<>();
        for (CompositionKind k : CompositionKind.values()) {
            if (k != unseen) k.aims().stream().filter(a -> !unseen.aims().contains(a)).forEach(seen::add);
        }
        List<Transition> ts = new ArrayList<>();
        long t = 0;
        for (int i = 0; i < 30; i++) {
            for (String aim : seen) ts.add(new Transition(t++, aim, "p", "")); // interleaved: each one counts
        }
        List<CoverageMap.Window> windows = new ArrayList<>();
        for (CompositionKind k : CompositionKind.values()) {
            for (int i = 0; i < 10; i++) windows.add(new CoverageMap.Window(k.id(), -1, -1)); // tried, found nothing
        }
        map.record("earlier", ts, windows);
        return map;
    }

    @Test
    void theGuidedChoicePrefersTheCompositionAimingAtUnseenTransitions() {
        CompositionKind target = CompositionKind.LAGGING_REPLICA_ELECTION; // its aims: only ones nobody saw
        var map = seenAllBut(target);
        Map<CompositionKind, Double> w = Composer.weights(Arrays.asList(CompositionKind.values()), map, new HashMap<>());
        CompositionKind best = w.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        assertEquals(target, best, w.toString());

        Map<CompositionKind, Integer> firstGuided = new EnumMap<>(CompositionKind.class);
        Map<CompositionKind, Integer> firstRandom = new EnumMap<>(CompositionKind.class);
        for (long seed = 0; seed < 300; seed++) {
            firstGuided.merge(Composer.plan(all(), seed, 600_000, map).get(0).kind(), 1, Integer::sum);
            firstRandom.merge(Composer.plan(all(), seed, 600_000).get(0).kind(), 1, Integer::sum);
        }
        int guided = firstGuided.getOrDefault(target, 0), random = firstRandom.getOrDefault(target, 0);
        assertTrue(guided > 3 * random, "guided picked it first " + guided + " times, random " + random);
    }

    @Test
    void anUntriedCompositionOutweighsOneThatWasTriedAndFoundNothing() {
        var map = new CoverageMap();
        List<CoverageMap.Window> windows = new ArrayList<>();
        for (int i = 0; i < 20; i++) windows.add(new CoverageMap.Window(CompositionKind.ROLLING_RESTART.id(), -1, -1));
        map.record("r", List.of(), windows);
        var w = Composer.weights(List.of(CompositionKind.ROLLING_RESTART, CompositionKind.PAUSE_LEADER_PAST_SESSION), map, new HashMap<>());
        assertTrue(w.get(CompositionKind.PAUSE_LEADER_PAST_SESSION) > 2 * w.get(CompositionKind.ROLLING_RESTART), w.toString());
    }

    @Test
    void aGuidedPlanIsReplayableFromItsSeedAndMap() {
        var map = seenAllBut(CompositionKind.PAUSE_LEADER_PAST_SESSION);
        assertEquals(Composer.plan(all(), 9, 600_000, map), Composer.plan(all(), 9, 600_000, CoverageMap.fromJson(map.toJson())));
        assertTrue(Composer.plan(all(), 9, 600_000, map).stream().allMatch(c -> c.choice().startsWith("guided ")));
    }
}
