package io.faultline.workloads;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Checker;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Client;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two workloads on the same workers: each keeps its own client, generator completions, final reads and checks. */
class BesideWorkloadTest {
    private final List<String> calls = Collections.synchronizedList(new ArrayList<>());

    /** A checker that remembers which op names it was shown. */
    static final class Seen implements Checker {
        final String name;
        final Set<String> fs = Collections.synchronizedSet(new TreeSet<>());

        Seen(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public CheckResult analyze(List<Op> history) {
            history.forEach(o -> fs.add(o.f()));
            return new CheckResult(name, Verdict.VALID, java.util.Map.of(), Set.of(), java.util.Map.of(), java.util.Map.of(), null);
        }
    }

    private Workload workload(String who, String mainOp, int ops, String finalOp, Checker checker, List<String> targets) {
        return workload(who, mainOp, ops, null, finalOp, checker, targets);
    }

    /** {@code finalWrite}: one op of this name (as the main phase's) after the heal, before the reads; null for none. */
    private Workload workload(String who, String mainOp, int ops, String finalWrite, String finalOp, Checker checker,
                              List<String> targets) {
        Client.Factory clients = thread -> {
            calls.add(who + " open " + thread);
            return new Client() {
                @Override
                public Completion invoke(String f, OpValue value) {
                    calls.add(who + " " + f);
                    return Completion.ok(value);
                }

                @Override
                public void close() {}
            };
        };
        Workload.FinalReads reads = new Workload.FinalReads() {
            @Override
            public Gen generator(List<Op> before) {
                before.forEach(o -> assertEquals(mainOp, o.f(), who + "'s final reads are made from its own ops and writes"));
                return Gens.limit(2, Gens.repeat(Gens.op(finalOp, OpValue.None.INSTANCE)));
            }

            @Override
            public Gen writesBeforeReads(List<Op> before) {
                return finalWrite == null ? null : Gens.once(Gens.op(finalWrite, OpValue.None.INSTANCE));
            }

            @Override
            public boolean reached(List<Op> before, List<Op> finalOps) {
                finalOps.forEach(o -> assertEquals(finalOp, o.f(), who + " judges only its own final reads"));
                return finalOps.size() == 4; // two invoke/ok pairs
            }
        };
        return new Workload(who, b -> Workload.Session.of(clients, targets, () -> calls.add(who + " close")),
                Gens.limit(ops, Gens.repeat(Gens.op(mainOp, OpValue.None.INSTANCE))), reads, List.of(checker));
    }

    @Test
    void bothRunOnTheSameWorkersAndEachIsJudgedOnItsOwnOps() throws Exception {
        Seen queueCheck = new Seen("queue"), offsetsCheck = new Seen("offsets");
        Workload w = BesideWorkload.of("both", workload("main", "send", 20, "poll", queueCheck, List.of("t1", "t2")),
                workload("side", "write", 6, "read", offsetsCheck, List.of("t2", "__consumer_offsets:3")),
                Set.of("write", "read"));
        List<List<String>> targets = new ArrayList<>();
        var rec = HistoryRecorder.inMemory(2, () -> 0L);
        var outcome = PhaseRunner.run(w, "b:1", rec, new PhaseRunner.Faults() {
            @Override
            public void start(List<String> t) {
                targets.add(t);
            }

            @Override
            public void heal() {}
        }, Duration.ZERO, d -> {}, p -> {});

        assertEquals(List.of(List.of("t1", "t2", "__consumer_offsets:3")), targets, "both workloads' fault targets");
        assertEquals(20, calls.stream().filter("main send"::equals).count());
        assertEquals(6, calls.stream().filter("side write"::equals).count());
        assertEquals(2, calls.stream().filter("main poll"::equals).count());
        assertEquals(2, calls.stream().filter("side read"::equals).count());
        assertTrue(outcome.reached());
        for (Checker c : w.checkers()) c.check(rec.ops());
        assertEquals(Set.of("send", "poll"), queueCheck.fs);
        assertEquals(Set.of("write", "read"), offsetsCheck.fs);
        assertEquals(List.of("queue", "offsets"), w.checkers().stream().map(Checker::name).toList());
        assertTrue(calls.contains("main close") && calls.contains("side close"));
    }

    @Test
    void theSidesWritesAfterTheHealComeAfterTheMainOnesAndBeforeAnyRead() throws Exception {
        Seen queueCheck = new Seen("queue"), kvCheck = new Seen("compaction");
        Workload w = BesideWorkload.of("both", workload("main", "send", 4, "send", "poll", queueCheck, List.of()),
                workload("side", "write", 2, "write", "read", kvCheck, List.of()), Set.of("write", "read"));
        var rec = HistoryRecorder.inMemory(1, () -> 0L);
        var outcome = PhaseRunner.run(w, "b:1", rec, new PhaseRunner.Faults() {
            @Override
            public void start(List<String> t) {}

            @Override
            public void heal() {}
        }, Duration.ZERO, d -> {}, p -> {});

        // the heal may run while the main phase's last op is still running: judge the calls from the end
        List<String> ops = calls.stream().filter(c -> !c.endsWith("close") && !c.contains(" open ")).toList();
        assertEquals(4 + 2 + 6, ops.size(), ops.toString());
        assertEquals(List.of("main send", "side write", "main poll", "main poll", "side read", "side read"),
                ops.subList(ops.size() - 6, ops.size()), "each workload's writes after the heal, the main one's first, then the reads");
        assertTrue(outcome.reached());
    }
}
