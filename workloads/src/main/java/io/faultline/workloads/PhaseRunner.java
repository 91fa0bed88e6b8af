package io.faultline.workloads;

import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.Op;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Interpreter;

import java.time.Duration;
import java.util.List;

/**
 * The one place a workload runs, phase by phase: setup → workload with the nemesis → final heal → recovery wait →
 * final reads. The nemesis is an interface here so that the workloads module needs no fault code (a run without
 * faults passes {@link Faults#NONE}).
 */
public final class PhaseRunner {
    private PhaseRunner() {}

    /** Phase names, as the progress line shows them. */
    public static final String SETUP = "create-topics", START_FAULTS = "start-faults", WORKLOAD = "workload",
            FINAL_HEAL = "final-heal", RECOVERY = "recovery", FINAL_READS = "final-drain";

    /**
     * The main phase ends at its time limit: the final heal begins at once, while the ops still in flight go on (an op
     * stuck behind a partition completes for real once it heals), and those ops get this long after the heal to
     * complete: a Kafka request times out in 5 s and is retried. Any still running after it stay in the history as
     * {@code info} (Jepsen's indeterminate), so the phase ends on time however long a client would wait (a send
     * waits up to its delivery timeout, 15 s). The final reads judge what they did.
     */
    public static final Duration MAIN_STOP_GRACE = Duration.ofSeconds(5);

    /** The faults of a run, as the phases need them. */
    public interface Faults {
        Faults NONE = new Faults() {
            @Override
            public void start(List<String> targets) {}

            @Override
            public void heal() {}
        };

        /** Starts the fault schedule (it runs in the background); {@code targets}: the workload's topics. */
        void start(List<String> targets) throws Exception;

        /** Stops the schedule and heals every fault. */
        void heal() throws Exception;

        /**
         * After the heal, once the main phase's ops still in flight have completed or were given up (at most
         * {@link #MAIN_STOP_GRACE}): what must not cut them short, such as crashing every node, goes here.
         */
        default void afterInFlight() throws Exception {}
    }

    /** Told of each phase as it begins. */
    @FunctionalInterface
    public interface Phases {
        Phases NONE = name -> {};

        void enter(String phase);
    }

    /**
     * @param ops      history entries after the run
     * @param opsBeforeFinal history entries before the final reads began
     * @param main     length of the main phase
     * @param reached  whether the final reads reached what they had to (true when there are none)
     */
    public record Outcome(long ops, int opsBeforeFinal, Duration main, Duration finalReads, boolean reached) {}

    /** How long the cluster gets to recover after the heal, as a pause the caller can replace in tests. */
    @FunctionalInterface
    public interface Pause {
        void sleep(Duration d) throws InterruptedException;
    }

    /**
     * The cluster answered the workload's set-up (creating its topics, a first transactional producer id) with a
     * refusal or never answered it, before any fault: on a healthy network that is the system's failure, like a
     * cluster that never comes up, not the harness's.
     */
    public static final class SetupRefused extends Exception {
        SetupRefused(RuntimeException cause) {
            super("it came up but failed the workload's set-up before any fault: " + cause.getMessage(), cause);
        }

        /** A Kafka client error or a refusal the workload classified as definite, anywhere in the cause chain. */
        static boolean isFromCluster(Throwable e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof org.apache.kafka.common.KafkaException
                        || t instanceof io.faultline.workloads.queue.ErrorClassifier.DefiniteFailure) return true;
            }
            return false;
        }
    }

    public static Outcome run(Workload workload, String bootstrapServers, HistoryRecorder recorder, Faults faults,
                              Duration recovery, Phases phases) throws Exception {
        return run(workload, bootstrapServers, recorder, faults, recovery, d -> Thread.sleep(d.toMillis()), phases);
    }

    public static Outcome run(Workload workload, String bootstrapServers, HistoryRecorder recorder, Faults faults,
                              Duration recovery, Pause pause, Phases phases) throws Exception {
        phases.enter(SETUP);
        Workload.Session opened;
        try {
            opened = workload.setup().open(bootstrapServers);
        } catch (RuntimeException e) {
            throw SetupRefused.isFromCluster(e) ? new SetupRefused(e) : e;
        }
        try (Workload.Session session = opened) {
            Interpreter interpreter = new Interpreter(recorder, session.clients());
            phases.enter(START_FAULTS);
            faults.start(session.faultTargets());
            phases.enter(WORKLOAD);
            long t0 = recorder.now();
            long[] t1 = {-1};
            Interpreter.AtEnd finalHeal = () -> {
                t1[0] = recorder.now();
                phases.enter(FINAL_HEAL);
                faults.heal();
            };
            interpreter.run(workload.generator(), MAIN_STOP_GRACE, finalHeal);
            if (t1[0] < 0) finalHeal.run(); // the interpreter runs it whenever the generator ends; never twice
            faults.afterInFlight();

            List<Op> before = recorder.ops();
            Gen finalGen = workload.finalReads().generator(before);
            if (finalGen == null) {
                return new Outcome(before.size(), before.size(), Duration.ofNanos(t1[0] - t0), Duration.ZERO, true);
            }
            phases.enter(RECOVERY);
            pause.sleep(recovery);

            phases.enter(FINAL_READS);
            long t2 = recorder.now();
            Gen writes = workload.finalReads().writesBeforeReads(before);
            if (writes != null) {
                interpreter.run(writes);
                before = recorder.ops();
                finalGen = workload.finalReads().generator(before); // the reads' targets include those writes
            }
            interpreter.run(finalGen);
            List<Op> all = recorder.ops();
            boolean reached = workload.finalReads().reached(before, all.subList(before.size(), all.size()));
            return new Outcome(all.size(), before.size(), Duration.ofNanos(t1[0] - t0), Duration.ofNanos(recorder.now() - t2), reached);
        }
    }
}
