package io.faultline.harness;

import io.faultline.checker.observe.Transition;
import io.faultline.docker.DockerBacked;
import io.faultline.docker.sut.BrokerImpl;
import io.faultline.docker.sut.KafkaAdmin;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.docker.sut.SutCluster;
import io.faultline.nemesis.FaultOptions;
import io.faultline.nemesis.FaultPackages;
import io.faultline.nemesis.NemesisContext;
import io.faultline.nemesis.Pacer;
import io.faultline.nemesis.Scheduler;
import io.faultline.nemesis.compose.Composition;
import io.faultline.nemesis.compose.CompositionKind;
import io.faultline.nemesis.compose.CompositionRunner;
import io.faultline.nemesis.compose.Role;
import io.faultline.nemesis.compose.Step;
import io.faultline.nemesis.observe.MetadataObserver;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every composition on a real 3-node broker-impl cluster (-Pscenarios: about 3 minutes): its roles are bound from the
 * cluster's own metadata, each op it sends succeeds on the node its role named, and the observer sees the state
 * change the composition is about where one is certain (the leader it kills or isolates loses the partition; a node
 * frozen past its session is fenced).
 */
@DockerBacked
@EnabledIfSystemProperty(named = "faultline.scenarios", matches = "true")
class CompositionsBrokerImplDockerTest {
    @Test
    void eachCompositionDrivesTheRolesItNames() throws Exception {
        var settings = KafkaSettings.defaults();
        try (SutCluster cluster = SutCluster.start(new BrokerImpl(settings), 3, Duration.ofMinutes(3));
             Admin admin = KafkaAdmin.create(cluster.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic("c-0", 1, (short) 3))).all().get(60, TimeUnit.SECONDS);
            var ctx = NemesisContext.builder(cluster).seed(3).build();
            var packages = FaultPackages.create(List.of("partition", "pause", "clock", "kill", "stop", "membership", "disk"), ctx,
                    FaultOptions.defaults().withPrimaries(List.of(new io.faultline.nemesis.ClusterView.PartitionRef("c-0", 0))));
            var scheduler = new Scheduler(ctx, packages);
            scheduler.setup();
            List<String> log = new ArrayList<>();
            var shape = new CompositionKind.Shape(2000, settings.brokerSessionTimeoutMs(), true, false, true, true);
            try (var observer = new MetadataObserver(cluster.bootstrapServers(), t -> t.equals("c-0"), Duration.ofMillis(300),
                    ctx::now, t -> { })) {
                observer.start();
                var runner = new CompositionRunner(scheduler::invoke, p -> {
                    try {
                        return ComposedSchedule.rolesOf(admin, "c-0", ctx.activeController().orElse(null));
                    } catch (Exception e) {
                        return java.util.Optional.empty();
                    }
                }, 1, ctx.nodeNames(), Pacer.SYSTEM, ctx::now, log::add);
                int i = 0;
                for (CompositionKind kind : CompositionKind.values()) {
                    awaitHealthy(admin);
                    var c = new Composition(i++, 0, kind, 0, kind.steps(new Random(7), shape), "test");
                    runner.run(List.of(c), 600_000);
                    var done = runner.executed().get(runner.executed().size() - 1);
                    assertEquals(kind, done.composition().kind());
                    for (String op : done.ops()) {
                        assertFalse(op.contains(" !! "), kind.id() + ": an op failed: " + op + "\n" + String.join("\n", log));
                    }
                    String leader = done.roles().leader();
                    for (int s = 0; s < c.steps().size(); s++) {
                        Step step = c.steps().get(s);
                        if (step instanceof Step.Kill k && k.role() == Role.LEADER) {
                            assertTrue(done.ops().stream().anyMatch(o -> o.startsWith(step + ": kill [" + leader + "] -> killed [" + leader + "]")),
                                    kind.id() + ": the bound leader " + leader + " is killed: " + done.ops());
                        }
                        if (step instanceof Step.Stop st && st.role() == Role.LEADER) {
                            assertTrue(done.ops().stream().anyMatch(o -> o.startsWith(step + ": stop [" + leader + "] -> stopped [" + leader + "]")),
                                    kind.id() + ": the bound leader " + leader + " is stopped cleanly: " + done.ops());
                        }
                    }
                    if (kind == CompositionKind.ISOLATE_LEADER_THEN_KILL || kind == CompositionKind.LAGGING_REPLICA_ELECTION) {
                        assertTrue(seen(observer, done, "leader-", ctx::now), kind.id() + ": the partition changed leader: " + observer.transitions());
                    }
                    if (kind == CompositionKind.TORN_WRITE_CRASH) {
                        assertTrue(done.ops().get(0).contains("zeroed the last") && done.ops().get(0).contains("c-0/"),
                                kind.id() + ": the bound partition's newest segment is torn: " + done.ops());
                    }
                    if (kind == CompositionKind.PAUSE_LEADER_PAST_SESSION) {
                        assertTrue(seen(observer, done, "broker-fenced", ctx::now), kind.id() + ": the frozen leader is fenced: " + observer.transitions());
                    }
                }
                assertTrue(observer.polls() > 10);
            } finally {
                scheduler.finalHeal(Duration.ZERO);
                scheduler.teardown();
            }
        }
    }

    /** Whether the observer saw such a transition from the composition's start to its settling's end. */
    private static boolean seen(MetadataObserver observer, CompositionRunner.Executed done, String kindPrefix,
                                java.util.function.LongSupplier now) {
        long until = done.endNanos() + ComposedSchedule.SETTLE_NANOS;
        await().atMost(Duration.ofSeconds(30)).until(() -> now.getAsLong() > until
                || observer.transitions().stream().anyMatch(t -> t.kind().startsWith(kindPrefix) && t.timeNanos() >= done.startNanos()));
        for (Transition t : observer.transitions()) {
            if (t.kind().startsWith(kindPrefix) && t.timeNanos() >= done.startNanos()) return true;
        }
        return false;
    }

    /** Every replica of the topic in sync and a leader, before the next composition. */
    private static void awaitHealthy(Admin admin) {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).ignoreExceptions().until(() -> {
            var p = admin.describeTopics(List.of("c-0")).allTopicNames().get(5, TimeUnit.SECONDS).get("c-0").partitions().get(0);
            return p.leader() != null && !p.leader().isEmpty() && p.isr().size() == 3;
        });
    }
}
