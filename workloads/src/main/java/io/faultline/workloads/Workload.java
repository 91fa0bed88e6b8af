package io.faultline.workloads;

import io.faultline.checker.Checker;
import io.faultline.checker.history.Op;
import io.faultline.workloads.generator.Client;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;
import io.faultline.workloads.generator.Invocation;

import java.util.List;
import java.util.Objects;

/**
 * A workload as one value, in Jepsen's shape: how to set it up on a cluster and open its clients, the generator of
 * the main phase, the final generator that runs after the heal, and the checkers that judge the history. Built
 * from a run's settings before any cluster exists, so `analyze` takes the checkers from the same value the run
 * used; {@link PhaseRunner} runs it.
 *
 * @param name        the {@code --workload} name
 * @param setup       creates what the workload needs on a running cluster (topics) and opens a session
 * @param generator   the main phase's ops (time-bounded)
 * @param finalReads  what runs after the heal and the recovery wait; {@link FinalReads#NONE} for nothing
 * @param checkers    the checks of the history, in report order
 */
public record Workload(String name, Setup setup, Gen generator, FinalReads finalReads, List<Checker> checkers) {
    public Workload {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(setup, "setup");
        Objects.requireNonNull(generator, "generator");
        Objects.requireNonNull(finalReads, "finalReads");
        checkers = List.copyOf(checkers);
    }

    /** Prepares the workload on one cluster. */
    @FunctionalInterface
    public interface Setup {
        Session open(String bootstrapServers) throws Exception;
    }

    /** A workload set up on one cluster: its clients and the topics faults may aim at. */
    public interface Session extends AutoCloseable {
        Client.Factory clients();

        /** The topics whose partitions leader-aimed faults may pick. */
        List<String> faultTargets();

        @Override
        void close();

        static Session of(Client.Factory clients, List<String> faultTargets, Runnable close) {
            List<String> targets = List.copyOf(faultTargets);
            return new Session() {
                @Override
                public Client.Factory clients() {
                    return clients;
                }

                @Override
                public List<String> faultTargets() {
                    return targets;
                }

                @Override
                public void close() {
                    close.run();
                }
            };
        }
    }

    /** The final generator, made from the history before it, and whether its ops reached what they had to. */
    public interface FinalReads {
        /** No final phase (and no recovery wait before it): the checks need none. */
        FinalReads NONE = new FinalReads() {
            @Override
            public Gen generator(List<Op> before) {
                return null;
            }

            @Override
            public boolean reached(List<Op> before, List<Op> finalOps) {
                return true;
            }
        };

        /**
         * Final reads that need nothing from the main phase and always reach their end (registers, descriptions, one
         * read of a whole topic): the same generator whatever came before.
         */
        static FinalReads always(java.util.function.Supplier<Gen> reads) {
            return always(() -> null, reads);
        }

        /**
         * {@link #always} with writes first: {@code writes} after the recovery wait, then {@code reads}. A side
         * workload's writes after the heal give its check something to judge however few of its writes the faults
         * let through, and prove that the healed cluster takes them and keeps them.
         */
        static FinalReads always(java.util.function.Supplier<Gen> writes, java.util.function.Supplier<Gen> reads) {
            return new FinalReads() {
                @Override
                public Gen generator(List<Op> before) {
                    return reads.get();
                }

                @Override
                public Gen writesBeforeReads(List<Op> before) {
                    return writes.get();
                }

                @Override
                public boolean reached(List<Op> before, List<Op> finalOps) {
                    return true;
                }
            };
        }

        /** How often a side workload's op after the heal is tried before its refusal counts (liveness). */
        int ATTEMPTS = 4;
        /** The pause between those tries. */
        long PAUSE_NANOS = 2_000_000_000L;

        /**
         * One op after the heal, tried again while it is refused ({@link Gens#untilOk}, {@link #ATTEMPTS} times):
         * the recovery check judges a side op every try of which failed as the healed cluster's failure.
         */
        static Gen tried(Invocation template) {
            return Gens.untilOk(template, ATTEMPTS, PAUSE_NANOS);
        }

        /** The final phase's ops; null for none. */
        Gen generator(List<Op> before);

        /**
         * Writes to make after the recovery wait and before the reads ({@code null}: none); the reads'
         * {@link #generator} then sees them in its {@code before}.
         */
        default Gen writesBeforeReads(List<Op> before) {
            return null;
        }

        /** Whether {@code finalOps} read everything {@code before} said there was (only then is an unread value lost). */
        boolean reached(List<Op> before, List<Op> finalOps);
    }
}
