package io.faultline.harness;

import io.faultline.harness.mutants.Mutant;
import io.faultline.results.BugsPage;
import io.faultline.results.MutantsPage;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The harness's mutation score: each chosen mutant of broker-impl on a 3-node cluster under the nightly mix, run after
 * run until the first invalid verdict (at most {@code runs}), after broker-impl's own unit tests had their say; then
 * the unmutated broker {@code cleanRuns} times under the same mix (an invalid verdict there is a false alarm). Every
 * run's seed derives from the hunt's, and every run is an ordinary `test` run whose test.json names the jar it ran.
 */
final class MutantHunt {
    private MutantHunt() {}

    /** The settings of every run. */
    record Shape(int timeLimitSeconds, double rate, int concurrency, int keys, int recoverySeconds, int drainSeconds) {
        static Shape defaults(int timeLimitSeconds) {
            return new Shape(timeLimitSeconds, 200, 10, 4, 10, 30);
        }
    }

    /** The runs a hunt may do, decided before any starts. */
    record Plan(long seed, Map<Mutant, List<TestConfig>> mutants, List<TestConfig> clean) {
        Plan {
            mutants = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(mutants));
            clean = List.copyOf(clean);
        }

        int totalRuns() {
            return mutants.values().stream().mapToInt(List::size).sum() + clean.size();
        }

        /** Every seed, in the order the runs would take them. */
        List<String> seedLines() {
            List<String> out = new ArrayList<>();
            mutants.forEach((m, cs) -> out.add("mutant " + m.id() + ": seeds " + cs.stream().map(c -> Long.toString(c.seed())).toList()));
            out.add("unmutated: seeds " + clean.stream().map(c -> Long.toString(c.seed())).toList());
            return out;
        }
    }

    /** The nightly mix of every run: random compositions over all roles, the default density and links. */
    static NightlyMix.Spec spec() {
        return spec(false);
    }

    /** As {@link #spec()}; guided: each run's compositions planned from the coverage of the hunt's earlier runs. */
    static NightlyMix.Spec spec(boolean guided) {
        return new NightlyMix.Spec(guided, 0.5, 3, NightlyMix.Spec.allCompositions(), true, null);
    }

    static Plan plan(List<Mutant> mutants, int runs, int cleanRuns, Shape shape, long seed) {
        return plan(mutants, runs, cleanRuns, shape, seed, true);
    }

    /** As above; {@code nightly} false: every run is the standard `test` (the queue under partition and kill faults). */
    static Plan plan(List<Mutant> mutants, int runs, int cleanRuns, Shape shape, long seed, boolean nightly) {
        if (runs < 0) throw new IllegalArgumentException("--runs must be at least 0 (0: unit tests only), got " + runs);
        if (cleanRuns < 0) throw new IllegalArgumentException("--clean-runs must be at least 0, got " + cleanRuns);
        if (shape.timeLimitSeconds() < 10) {
            throw new IllegalArgumentException("--time-limit must be at least 10 seconds for compositions to happen");
        }
        var random = new SplittableRandom(seed);
        Map<Mutant, List<TestConfig>> out = new LinkedHashMap<>();
        for (Mutant m : mutants) {
            List<TestConfig> cs = new ArrayList<>();
            for (int i = 0; i < runs; i++) cs.add(config(shape, random.nextLong() & Long.MAX_VALUE, nightly, i));
            out.put(m, cs);
        }
        List<TestConfig> clean = new ArrayList<>();
        for (int i = 0; i < cleanRuns; i++) clean.add(config(shape, random.nextLong() & Long.MAX_VALUE, nightly, i));
        return new Plan(seed, out, clean);
    }

    /** One run: a 3-node broker-impl, rf 3, acks=all, idempotent, min ISR 2, under the nightly mix. */
    static TestConfig config(Shape shape, long seed) {
        return config(shape, seed, true);
    }

    /**
     * The {@code index}-th run of a mutant (or of the unmutated broker) under the nightly mix: the nightly queue with its
     * company, and every second run the transactional queue under the same compositions. The plain queue has no
     * transactions, so the last stable offset, markers, the transaction coordinator and the aborted-transaction index
     * were reached by no run of a hunt; the transactional runs still check loss, order and divergence of what they send,
     * and every run-level check (recovery, replicas, segments, node logs).
     */
    static TestConfig config(Shape shape, long seed, boolean nightly, int index) {
        TestConfig c = config(shape, seed, nightly);
        if (!nightly || index % 2 == 0) return c;
        TestConfig base = new TestConfig("broker-impl", 3, NightlyMix.TXN_WORKLOAD, List.of(), shape.timeLimitSeconds(), shape.rate(),
                shape.concurrency(), shape.keys(), "all", true, 2, 3, false, "assign", 5, seed, shape.recoverySeconds(),
                shape.drainSeconds());
        return NightlyMix.configure(base, spec());
    }

    /**
     * As above; {@code nightly} false: what `test --sut broker-impl --nodes 3 --time-limit T` runs (every other
     * flag at its default: the plain queue under partition and kill faults in Jepsen's rhythm), so a hunt
     * can say what the command a user types first catches.
     */
    static TestConfig config(Shape shape, long seed, boolean nightly) {
        if (!nightly) {
            var standard = new TestOptions(); // every other flag at test's default
            standard.shape.sut = "broker-impl";
            standard.shape.nodes = 3;
            standard.shape.timeLimit = shape.timeLimitSeconds();
            standard.shape.seed = seed;
            return standard.toConfig();
        }
        TestConfig base = new TestConfig("broker-impl", 3, "queue", List.of(), shape.timeLimitSeconds(), shape.rate(),
                shape.concurrency(), shape.keys(), "all", true, 2, 3, false, "assign", 5, seed, shape.recoverySeconds(),
                shape.drainSeconds()).withBulkSends(RunShapeOptions.DEFAULT_BULK_SENDS);
        return NightlyMix.configure(base, spec());
    }

    /** What happens to a mutant before its runs: its jar is written, its unit tests run. */
    interface Prepare {
        /** The mutant made ready; its jar is null when it is not live (the detail says why), and then it gets no runs. */
        Prepared prepare(Mutant m) throws Exception;
    }

    /** A mutant made ready: its jar (null when not live) and what its unit tests said. */
    record Prepared(Path jar, String unitTests, String unitDetail) {}

    /** One run of a configuration on a given broker jar (null: the built, unmutated broker). */
    interface Runner {
        TestRunner.Result run(TestConfig config, Path jar) throws Exception;
    }

    /**
     * Runs the plan: per mutant its preparation, then its runs (each stops at its first detection); then the
     * unmutated broker. Progress lines go to out, the score so far to {@code afterEachRun}; nothing starts once
     * {@code stopped} says so.
     */
    static MutantsPage.Input run(Plan plan, Prepare prepare, Runner runner, PrintStream out, String startedAt, String setup,
                                 Consumer<MutantsPage.Input> afterEachRun, BooleanSupplier stopped) {
        int total = plan.totalRuns();
        int[] done = {0};
        List<MutantsPage.Mutant> rows = new ArrayList<>();
        int index = 0;
        for (var e : plan.mutants().entrySet()) {
            if (stopped.getAsBoolean()) break;
            Mutant m = e.getKey();
            index++;
            out.printf("faultline: mutants: mutant %d of %d: %s%n", index, plan.mutants().size(), m.listing());
            Prepared p;
            try {
                p = prepare.prepare(m);
            } catch (Exception ex) {
                p = new Prepared(null, "not run", "could not prepare the mutant: " + ex);
            }
            if (p.unitTests() != null) out.printf("faultline: mutants: %s unit tests: %s (%s)%n", m.id(), p.unitTests(), p.unitDetail());
            if (p.jar() == null) {
                out.printf("faultline: mutants: %s skipped: %s%n", m.id(), p.unitDetail());
                rows.add(row(m, p, List.of()));
                continue;
            }
            Prepared ready = p;
            List<BugsPage.Attempt> attempts = BugHunt.series(e.getValue(), true, c -> runner.run(c, ready.jar()), out, stopped,
                    c -> out.printf("faultline: mutants: run %d (at most %d): mutant %s, seed %d%n", ++done[0], total, m.id(), c.seed()),
                    (c, a, soFar) -> {
                        List<MutantsPage.Mutant> partial = new ArrayList<>(rows);
                        partial.add(row(m, ready, soFar));
                        afterEachRun.accept(input(plan, startedAt, setup, partial, List.of()));
                        out.printf("faultline: mutants: %s seed %d: %s%n", m.id(), c.seed(), a.invalid()
                                ? "DETECTED (" + String.join(", ", a.anomalies()) + ")" : "not detected (" + a.verdict() + ")");
                    });
            rows.add(row(m, ready, attempts));
        }
        List<BugsPage.Attempt> clean = BugHunt.series(plan.clean(), false, c -> runner.run(c, null), out, stopped,
                c -> out.printf("faultline: mutants: run %d (at most %d): unmutated broker, seed %d%n", ++done[0], total, c.seed()),
                (c, a, soFar) -> {
                    afterEachRun.accept(input(plan, startedAt, setup, rows, soFar));
                    out.printf("faultline: mutants: unmutated seed %d: %s%n", c.seed(), a.invalid()
                            ? "FALSE ALARM (" + String.join(", ", a.anomalies()) + ")" : a.verdict());
                });
        return input(plan, startedAt, setup, rows, clean);
    }

    private static MutantsPage.Mutant row(Mutant m, Prepared p, List<BugsPage.Attempt> attempts) {
        return new MutantsPage.Mutant(m.id(), m.className(), m.method(), m.line(), m.operator().id(), m.description(),
                p.unitTests() == null ? "not run" : p.unitTests(), p.unitDetail() == null ? "" : p.unitDetail(), attempts);
    }

    private static MutantsPage.Input input(Plan plan, String startedAt, String setup, List<MutantsPage.Mutant> rows,
                                           List<BugsPage.Attempt> clean) {
        long detected = rows.stream().filter(MutantsPage.Mutant::detected).count();
        return new MutantsPage.Input("Mutants: " + detected + " of " + rows.size() + " detected", startedAt, plan.seed(),
                setup, rows, clean, Map.of());
    }
}
