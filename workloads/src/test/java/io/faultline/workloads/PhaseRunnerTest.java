package io.faultline.workloads;

import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Client;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one phase runner: phases in order, faults around the main phase only, final reads from the history before. */
class PhaseRunnerTest {
    private final List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());

    private Workload workload(Workload.FinalReads finalReads) {
        Client.Factory clients = thread -> new Client() {
            @Override
            public Completion invoke(String f, OpValue value) {
                events.add("op " + f);
                return Completion.ok(value);
            }

            @Override
            public void close() {}
        };
        Workload.Setup setup = bootstrap -> {
            events.add("setup " + bootstrap);
            return Workload.Session.of(clients, List.of("t1"), () -> events.add("close"));
        };
        return new Workload("w", setup, Gens.limit(3, Gens.repeat(Gens.op("main", OpValue.None.INSTANCE))),
                finalReads, List.of());
    }

    private final PhaseRunner.Faults faults = new PhaseRunner.Faults() {
        @Override
        public void start(List<String> targets) {
            events.add("faults on " + targets);
        }

        @Override
        public void heal() {
            events.add("heal");
        }

        @Override
        public void afterInFlight() {
            events.add("after in flight");
        }
    };

    /** {@code list} without the occurrences of {@code item} after the first {@code keep}. */
    private static List<String> without(List<String> list, String item, int keep) {
        List<String> out = new ArrayList<>();
        int seen = 0;
        for (String s : List.copyOf(list)) {
            if (s.equals(item) && ++seen > keep) continue;
            out.add(s);
        }
        return out;
    }

    @Test
    void phasesRunInJepsensOrderAndTheFinalReadsSeeTheMainHistory() throws Exception {
        List<Integer> seenBefore = new ArrayList<>();
        var finalReads = new Workload.FinalReads() {
            @Override
            public Gen generator(List<Op> before) {
                seenBefore.add(before.size());
                return Gens.limit(1, Gens.repeat(Gens.op("read", OpValue.None.INSTANCE)));
            }

            @Override
            public boolean reached(List<Op> before, List<Op> finalOps) {
                return finalOps.size() == 2 && finalOps.get(1).type() == OpType.OK;
            }
        };
        var rec = HistoryRecorder.inMemory(1, () -> 0L);
        var o = PhaseRunner.run(workload(finalReads), "b:1", rec, faults, Duration.ofSeconds(7),
                d -> events.add("pause " + d.toSeconds()), p -> events.add("phase " + p));
        // the final heal begins as soon as the generator has ended, beside the last op still in flight; that op
        // completes before the recovery wait (the test's clock stands still, so its grace never runs out)
        assertEquals(List.of("phase create-topics", "setup b:1", "phase start-faults", "faults on [t1]", "phase workload",
                "op main", "op main", "phase final-heal", "heal", "after in flight", "phase recovery", "pause 7",
                "phase final-drain", "op read", "close"), without(events, "op main", 2));
        assertEquals(3, java.util.Collections.frequency(events, "op main"));
        assertTrue(events.lastIndexOf("op main") < events.indexOf("after in flight"),
                "what comes after the heal (a crash of every node) waits for the op in flight: " + events);
        assertEquals(List.of("op main", "op main"), events.subList(5, 7), "one thread: two ops done before the third goes out");
        assertEquals(List.of(6), seenBefore, "the final generator is made from the main phase's 3 invoke/ok pairs");
        assertEquals(8, o.ops());
        assertEquals(6, o.opsBeforeFinal());
        assertTrue(o.reached());
    }

    @Test
    void writesBeforeReadsRunAfterTheRecoveryWaitAndTheReadsAreMadeFromAHistoryWithThem() throws Exception {
        List<Integer> seenBefore = new ArrayList<>();
        var finalReads = new Workload.FinalReads() {
            @Override
            public Gen generator(List<Op> before) {
                seenBefore.add(before.size());
                return Gens.limit(1, Gens.repeat(Gens.op("read", OpValue.None.INSTANCE)));
            }

            @Override
            public Gen writesBeforeReads(List<Op> before) {
                return Gens.limit(2, Gens.repeat(Gens.op("top-up", OpValue.None.INSTANCE)));
            }

            @Override
            public boolean reached(List<Op> before, List<Op> finalOps) {
                return finalOps.size() == 2;
            }
        };
        var rec = HistoryRecorder.inMemory(1, () -> 0L);
        var o = PhaseRunner.run(workload(finalReads), "b:1", rec, faults, Duration.ofSeconds(7),
                d -> events.add("pause " + d.toSeconds()), p -> events.add("phase " + p));
        List<String> tail = events.subList(events.indexOf("pause 7"), events.size());
        assertEquals(List.of("pause 7", "phase final-drain", "op top-up", "op top-up", "op read", "close"), tail);
        assertEquals(List.of(6, 10), seenBefore, "made again once the 2 top-up writes are in the history");
        assertEquals(10, o.opsBeforeFinal());
        assertTrue(o.reached());
    }

    @Test
    void withoutFinalReadsThereIsNoRecoveryWaitAndTheEndCountsAsReached() throws Exception {
        var rec = HistoryRecorder.inMemory(1, () -> 0L);
        var o = PhaseRunner.run(workload(Workload.FinalReads.NONE), "b:1", rec, faults, Duration.ofSeconds(7),
                d -> events.add("pause"), p -> events.add("phase " + p));
        assertFalse(events.contains("pause"));
        assertFalse(events.contains("phase recovery"));
        assertEquals("close", events.get(events.size() - 1));
        assertTrue(o.reached());
        assertEquals(6, o.ops());
    }

    @Test
    void theSessionIsClosedWhenAPhaseFails() {
        var failingHeal = new PhaseRunner.Faults() {
            @Override
            public void start(List<String> targets) {}

            @Override
            public void heal() {
                throw new IllegalStateException("heal failed");
            }
        };
        var rec = HistoryRecorder.inMemory(1, () -> 0L);
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> PhaseRunner.run(
                workload(Workload.FinalReads.NONE), "b:1", rec, failingHeal, Duration.ZERO, PhaseRunner.Phases.NONE));
        assertEquals("heal failed", e.getMessage());
        assertEquals("close", events.get(events.size() - 1));
    }

    @Test
    void aClusterThatRefusesTheSetUpIsTheSystemsFailureAndAHarnessMistakeStaysOne() {
        var rec = HistoryRecorder.inMemory(1, () -> 0L);
        Workload refused = new Workload("w", bootstrap -> {
            throw new io.faultline.workloads.queue.ErrorClassifier.DefiniteFailure("could not create topics",
                    new org.apache.kafka.common.errors.InvalidConfigurationException("Unknown topic config segment.ms"));
        }, Gens.once(Gens.op("main", OpValue.None.INSTANCE)), Workload.FinalReads.NONE, List.of());
        var e = org.junit.jupiter.api.Assertions.assertThrows(PhaseRunner.SetupRefused.class, () -> PhaseRunner.run(
                refused, "b:1", rec, faults, Duration.ZERO, PhaseRunner.Phases.NONE));
        assertTrue(e.getMessage().contains("could not create topics"), e.getMessage());
        assertFalse(events.stream().anyMatch(x -> x.startsWith("faults")), "no fault started: " + events);

        Workload mistaken = new Workload("w", bootstrap -> {
            throw new IllegalArgumentException("keys must be at least 1");
        }, Gens.once(Gens.op("main", OpValue.None.INSTANCE)), Workload.FinalReads.NONE, List.of());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> PhaseRunner.run(
                mistaken, "b:1", rec, faults, Duration.ZERO, PhaseRunner.Phases.NONE));
    }
}
