package io.faultline.nemesis.compose;

import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.Pacer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The runner with a stub invoker and a manual clock: which ops it sends where, and when. */
class CompositionRunnerTest {
    /** Time moves only when the runner waits, by exactly as long as it asks. */
    static final class ManualPacer implements Pacer {
        final AtomicLong now = new AtomicLong(1_000);

        public long nanoTime() {
            return now.get();
        }

        public void sleep(long nanos) {
            now.addAndGet(nanos);
        }
    }

    record Call(long atNanos, String pkg, String f, String value) {}

    @Test
    void rolesAreBoundOnceSoTheIsolatedLeaderIsTheOneKilled() {
        var pacer = new ManualPacer();
        List<Call> calls = new ArrayList<>();
        // the metadata names n1 leader first, then (after the cut) n2: the composition must stay on n1
        AtomicReference<String> leader = new AtomicReference<>("n1");
        CompositionRunner.RoleSource roles = p -> Optional.of(new Roles("t-" + p, leader.get(), List.of("n2", "n3"), Set.of("n1", "n2", "n3"), "n3"));
        CompositionRunner.Invoker invoker = (pkg, op) -> {
            calls.add(new Call(pacer.nanoTime(), pkg, op.f(), String.valueOf(op.value())));
            leader.set("n2");
            return op.completed("ok");
        };
        var runner = new CompositionRunner(invoker, roles, 1, List.of("n1", "n2", "n3"), pacer, pacer::nanoTime, s -> { });
        var c = new Composition(0, 2000, CompositionKind.ISOLATE_LEADER_THEN_KILL, 0, List.of(new Step.Isolate(Role.LEADER),
                new Step.Wait(4000), new Step.Kill(Role.LEADER), new Step.Wait(500), new Step.Heal(), new Step.Wait(3000),
                new Step.Start(Role.LEADER)), "random");
        runner.run(List.of(c), 60_000);
        assertEquals(List.of("start-partition", "kill", "stop-partition", "start"), calls.stream().map(Call::f).toList());
        assertEquals("[n1]", calls.get(1).value());
        assertEquals("[n1]", calls.get(3).value());
        assertEquals(1_000 + 2000_000_000L, calls.get(0).atNanos(), "after its healthy window");
        assertEquals(4000_000_000L, calls.get(1).atNanos() - calls.get(0).atNanos(), "waits counted from the step before");
        var executed = runner.executed();
        assertEquals(1, executed.size());
        assertEquals("n1", executed.get(0).roles().leader());
    }

    @Test
    void cuttingTheLeaderFromTheControllerLooksForAPartitionWhereTheyDiffer() {
        var pacer = new ManualPacer();
        List<String> cuts = new ArrayList<>();
        CompositionRunner.RoleSource roles = p -> Optional.of(p == 0
                ? new Roles("t-0", "n3", List.of("n1", "n2"), Set.of(), "n3")
                : new Roles("t-1", "n2", List.of("n3", "n1"), Set.of(), "n3"));
        var runner = new CompositionRunner((pkg, op) -> {
            cuts.add(String.valueOf(op.value()));
            return op.completed("ok");
        }, roles, 2, List.of("n1", "n2", "n3"), pacer, pacer::nanoTime, s -> { });
        runner.run(List.of(new Composition(0, 0, CompositionKind.CUT_LEADER_FROM_CONTROLLER, 0,
                List.of(new Step.Cut(List.of(Role.LEADER), List.of(Role.CONTROLLER)), new Step.Wait(1000), new Step.Heal()), "random")), 10_000);
        assertEquals("grudge {n2=[n3], n3=[n2]}", cuts.get(0));
    }

    @Test
    void aCompositionWithoutALeaderIsSkippedAndFailedOpsDoNotStopTheRest() {
        var pacer = new ManualPacer();
        List<String> fs = new ArrayList<>();
        AtomicReference<Boolean> known = new AtomicReference<>(false);
        CompositionRunner.RoleSource roles = p -> known.get()
                ? Optional.of(new Roles("t-0", "n1", List.of("n2"), Set.of(), null)) : Optional.empty();
        List<String> log = new ArrayList<>();
        var runner = new CompositionRunner((pkg, op) -> {
            fs.add(op.f());
            return op.f().equals("pause") ? op.failed(new IllegalStateException("no")) : op.completed("ok");
        }, roles, 1, List.of("n1", "n2", "n3"), pacer, pacer::nanoTime, log::add);
        var pause = new Composition(0, 0, CompositionKind.PAUSE_LEADER_PAST_SESSION, 0,
                List.of(new Step.Pause(Role.LEADER), new Step.Wait(3000), new Step.Resume(Role.LEADER)), "random");
        runner.run(List.of(pause), 10_000);
        assertTrue(fs.isEmpty(), "no leader known: skipped");
        known.set(true);
        var withController = new Composition(1, 0, CompositionKind.FLAPPING_PARTITION, 0,
                List.of(new Step.Isolate(Role.CONTROLLER), new Step.Pause(Role.LEADER), new Step.Resume(Role.FOLLOWER_2),
                        new Step.Resume(Role.LEADER)), "random");
        runner.run(List.of(withController), 10_000);
        assertEquals(List.of("pause", "resume"), fs, "no controller, no second follower: those steps are skipped; a failed pause does not stop the resume");
        assertTrue(log.stream().anyMatch(l -> l.contains("skipped: no leader")), log.toString());
    }

    @Test
    void nothingStartsAfterTheDeadline() {
        var pacer = new ManualPacer();
        List<String> fs = new ArrayList<>();
        var runner = new CompositionRunner((pkg, op) -> {
            fs.add(op.f());
            return op.completed("ok");
        }, p -> Optional.of(new Roles("t-0", "n1", List.of("n2"), Set.of(), "n1")), 1, List.of("n1", "n2"), pacer, pacer::nanoTime, s -> { });
        runner.run(List.of(new Composition(0, 20_000, CompositionKind.ROLLING_RESTART, 0, List.of(new Step.Kill(Role.LEADER),
                new Step.Start(Role.LEADER)), "random")), 10_000);
        assertTrue(fs.isEmpty(), fs.toString());
    }
}
