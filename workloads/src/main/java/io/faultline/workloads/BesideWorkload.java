package io.faultline.workloads;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Checker;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Client;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Two workloads in one run, on the same worker threads: a main one (the queue) and one beside it (offsets
 * registers), so one schedule of faults is judged by both kinds of check. The side workload's ops are told apart by
 * their function names ({@code sideOps}), which must not be names the main workload uses.
 *
 * <ul>
 *   <li>Each worker holds one client of each; an op goes to the client of its workload (the side's is opened on
 *       first use). After an indeterminate op the worker reopens both, as it would one.</li>
 *   <li>The main phase draws from both generators at once ({@link Gens#any}); each generator is told only of the
 *       completions of its own ops.</li>
 *   <li>After the heal: the main workload's final writes, then the side's, then the main workload's final reads,
 *       then the side's. Whether the final reads reached their targets is asked of each workload's own ops.</li>
 *   <li>Each checker sees only its workload's ops.</li>
 * </ul>
 */
public final class BesideWorkload {
    private BesideWorkload() {}

    public static Workload of(String name, Workload main, Workload side, Set<String> sideOps) {
        Set<String> sideFs = Set.copyOf(sideOps);
        Predicate<Op> isSide = op -> sideFs.contains(op.f());
        Workload.Setup setup = bootstrap -> {
            Workload.Session mainSession = main.setup().open(bootstrap);
            Workload.Session sideSession;
            try {
                sideSession = side.setup().open(bootstrap);
            } catch (Exception | Error e) {
                mainSession.close();
                throw e;
            }
            List<String> targets = new ArrayList<>(mainSession.faultTargets());
            sideSession.faultTargets().stream().filter(t -> !targets.contains(t)).forEach(targets::add);
            return Workload.Session.of(
                    thread -> new RoutingClient(mainSession.clients(), sideSession.clients(), thread, sideFs),
                    targets, () -> {
                        try {
                            sideSession.close();
                        } finally {
                            mainSession.close();
                        }
                    });
        };
        Workload.FinalReads finalReads = new Workload.FinalReads() {
            @Override
            public Gen generator(List<Op> before) {
                Gen mainReads = main.finalReads().generator(only(before, isSide.negate()));
                Gen sideReads = side.finalReads().generator(only(before, isSide));
                if (mainReads == null) return sideReads;
                return sideReads == null ? mainReads : Gens.seq(mainReads, sideReads);
            }

            @Override
            public Gen writesBeforeReads(List<Op> before) {
                Gen mainWrites = main.finalReads().writesBeforeReads(only(before, isSide.negate()));
                Gen sideWrites = side.finalReads().writesBeforeReads(only(before, isSide));
                if (mainWrites == null) return sideWrites;
                return sideWrites == null ? mainWrites : Gens.seq(mainWrites, sideWrites);
            }

            @Override
            public boolean reached(List<Op> before, List<Op> finalOps) {
                return main.finalReads().reached(only(before, isSide.negate()), only(finalOps, isSide.negate()))
                        && side.finalReads().reached(only(before, isSide), only(finalOps, isSide));
            }
        };
        List<Checker> checkers = new ArrayList<>();
        main.checkers().forEach(c -> checkers.add(new OwnOpsChecker(c, isSide.negate())));
        side.checkers().forEach(c -> checkers.add(new OwnOpsChecker(c, isSide)));
        return new Workload(name, setup, Gens.any(main.generator(), side.generator()), finalReads, checkers);
    }

    static List<Op> only(List<Op> ops, Predicate<Op> keep) {
        return ops.stream().filter(keep).toList();
    }

    /** A checker that judges only the ops of its own workload (under its own name). */
    record OwnOpsChecker(Checker inner, Predicate<Op> keep) implements Checker {
        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public CheckResult analyze(List<Op> history) {
            return inner.check(only(history, keep));
        }
    }

    /** One worker's clients of both workloads; the side's is opened when the worker first needs it. */
    static final class RoutingClient implements Client {
        private final Client main;
        private final Client.Factory sideFactory;
        private final int thread;
        private final Set<String> sideOps;
        private Client side;

        RoutingClient(Client.Factory mainFactory, Client.Factory sideFactory, int thread, Set<String> sideOps) {
            this.main = mainFactory.open(thread);
            this.sideFactory = sideFactory;
            this.thread = thread;
            this.sideOps = sideOps;
        }

        @Override
        public Completion invoke(String f, OpValue value) {
            if (!sideOps.contains(f)) return main.invoke(f, value);
            if (side == null) side = sideFactory.open(thread);
            return side.invoke(f, value);
        }

        @Override
        public void close() {
            try {
                if (side != null) side.close();
            } finally {
                main.close();
            }
        }
    }
}
