package io.faultline.harness;

import io.faultline.checker.Verdict;
import io.faultline.results.BugsPage;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The seeded-bug score: every chosen bug on a 3-node broker-impl under its fault mix, seed after seed until the
 * first invalid verdict (at most {@code seeds} runs), then the unseeded broker {@code seeds} times under each
 * distinct mix. Every run's seed derives from the hunt's, so the whole hunt replays from one number, and each run
 * is an ordinary `test` run (its broker properties are in test.json) that `replay` repeats.
 */
final class BugHunt {
    /** The settings of every run that the catalog does not fix. */
    record Shape(int timeLimitSeconds, double rate, int concurrency, int recoverySeconds, int drainSeconds) {
        static Shape defaults(int timeLimitSeconds) {
            return new Shape(timeLimitSeconds, 200, 8, 10, 30);
        }
    }

    /**
     * What the unseeded broker runs under as a bug's false-alarm control: its mix and its entry's broker properties.
     * A bug whose entry sets properties (zombie-not-fenced: transaction.version=1) gets a control of its own, since
     * the clean broker under the mix's defaults says nothing about false alarms under those properties; bugs that
     * share a mix and properties share one control.
     */
    record Control(SeededBugCatalog.Mix mix, Map<String, String> brokerProperties) {
        Control {
            brokerProperties = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(brokerProperties));
        }

        static Control of(SeededBugCatalog.Entry e) {
            return new Control(e.mix(), e.brokerProperties());
        }

        String describe() {
            return SeededBugCatalog.describe(mix, brokerProperties);
        }
    }

    /** The runs a hunt may do, decided before any starts: per bug up to N configurations, per control N clean ones. */
    record Plan(long seed, Map<SeededBugCatalog.Entry, List<TestConfig>> bugs, Map<Control, List<TestConfig>> clean) {
        /**
         * The points `--shard` splits: each bug (all its seeds, since it stops at the first detection), then each
         * mix's unseeded runs, named as on the page ("bug NAME", "unseeded MIX").
         */
        List<String> points() {
            List<String> out = new ArrayList<>();
            bugs.keySet().forEach(e -> out.add(bugPoint(e.name())));
            clean.keySet().forEach(m -> out.add(cleanPoint(m.describe())));
            return out;
        }

        /** The part of the plan shard {@code part} runs: point k when k mod N = I. */
        Plan shard(Shard part) {
            Map<SeededBugCatalog.Entry, List<TestConfig>> someBugs = new LinkedHashMap<>();
            Map<Control, List<TestConfig>> someClean = new LinkedHashMap<>();
            int k = 0;
            for (var e : bugs.entrySet()) if (part.owns(k++)) someBugs.put(e.getKey(), e.getValue());
            for (var e : clean.entrySet()) if (part.owns(k++)) someClean.put(e.getKey(), e.getValue());
            return new Plan(seed, someBugs, someClean);
        }

        /** Every run the plan may do, in order: what the hunt's identity hashes. */
        List<TestConfig> allConfigs() {
            List<TestConfig> out = new ArrayList<>();
            bugs.values().forEach(out::addAll);
            clean.values().forEach(out::addAll);
            return out;
        }

        /** Every seed, in the order the runs would take them. */
        List<String> seedLines() {
            List<String> out = new ArrayList<>();
            bugs.forEach((e, cs) -> out.add("bug " + e.name() + ": seeds " + cs.stream().map(c -> Long.toString(c.seed())).toList()));
            clean.forEach((m, cs) -> out.add("unseeded, " + m.describe() + ": seeds "
                    + cs.stream().map(c -> Long.toString(c.seed())).toList()));
            return out;
        }
    }

    /** Runs one test; TestRunner in the command, a fake in unit tests. */
    interface Runner {
        /** One run of {@code config} under {@code mix}'s faults (a scenario's script, or random ones). */
        TestRunner.Result run(TestConfig config, SeededBugCatalog.Mix mix) throws Exception;
    }

    /** The fault schedule of a mix: its scenario's script, or random faults of its packages. */
    static TestRunner.FaultScheduleFactory schedule(SeededBugCatalog.Mix mix) {
        if (mix.composed()) return ComposedSchedule.factory(SeededBugCatalog.Mix.COMPOSITIONS, null, made -> { });
        return mix.script().<TestRunner.FaultScheduleFactory>map(ScenarioSchedule::factory).orElse(NemesisSchedule::create);
    }

    private BugHunt() {}

    static String bugPoint(String bug) {
        return "bug " + bug;
    }

    static String cleanPoint(String mix) {
        return "unseeded " + mix;
    }

    static Plan plan(List<String> only, int seeds, Shape shape, long huntSeed) {
        return plan(only, seeds, seeds, shape, huntSeed);
    }

    /**
     * @param only       bug names; empty for all; {@code none} for no bug (only the clean broker, under every mix)
     * @param cleanSeeds runs of the clean broker per mix (0: none)
     */
    static Plan plan(List<String> only, int seeds, int cleanSeeds, Shape shape, long huntSeed) {
        if (seeds < 1) throw new IllegalArgumentException("--seeds must be at least 1, got " + seeds);
        if (cleanSeeds < 0) throw new IllegalArgumentException("--clean-seeds must be at least 0, got " + cleanSeeds);
        boolean none = only != null && only.equals(List.of("none"));
        List<SeededBugCatalog.Entry> chosen = only == null || only.isEmpty() || none ? SeededBugCatalog.ALL
                : only.stream().distinct().map(SeededBugCatalog::named).toList();
        var random = new SplittableRandom(huntSeed);
        Map<SeededBugCatalog.Entry, List<TestConfig>> bugs = new LinkedHashMap<>();
        Map<Control, List<TestConfig>> clean = new LinkedHashMap<>();
        for (var e : chosen) {
            List<TestConfig> cs = new ArrayList<>();
            for (int i = 0; i < seeds; i++) {
                // the entry's own properties, then the switch: the switch is the only difference from its control
                cs.add(config(e.mix(), shape, random.nextLong() & Long.MAX_VALUE)
                        .withBrokerProperties(e.brokerProperties())
                        .withBrokerProperties(SeededBugCatalog.properties(List.of(e.name()))));
            }
            if (!none) bugs.put(e, cs);
            clean.putIfAbsent(Control.of(e), new ArrayList<>());
        }
        if (cleanSeeds == 0) clean.clear();
        for (var m : clean.entrySet()) {
            for (int i = 0; i < cleanSeeds; i++) {
                m.getValue().add(config(m.getKey().mix(), shape, random.nextLong() & Long.MAX_VALUE)
                        .withBrokerProperties(m.getKey().brokerProperties()));
            }
        }
        return new Plan(huntSeed, bugs, clean);
    }

    /**
     * A scenario mix takes the scenario's own settings and time limit (its script needs them; --time-limit shapes
     * only the random mixes).
     */
    static TestConfig config(SeededBugCatalog.Mix mix, Shape shape, long seed) {
        if (mix.scenario() != null) return ScenarioCommand.config(mix.script().orElseThrow(), "broker-impl", null, null, seed);
        var config = new TestConfig("broker-impl", 3, mix.workload(), mix.nemesis(), shape.timeLimitSeconds(), shape.rate(),
                shape.concurrency(), mix.keys(), mix.acks(), mix.idempotence(), mix.minIsr(), mix.replicationFactor(), false, "assign",
                mix.nemesisIntervalSeconds(), seed, shape.recoverySeconds(), shape.drainSeconds());
        return mix.composed() ? NightlyMix.configure(config, SeededBugCatalog.Mix.COMPOSITIONS) : config;
    }

    /** Runs the plan: bugs first (each stops at its first detection), then the clean broker; progress lines to out. */
    static BugsPage.Input run(Plan plan, Runner runner, PrintStream out, String startedAt) {
        return run(plan, runner, out, startedAt, partial -> {}, () -> false);
    }

    /**
     * As above, handing the score so far to {@code afterEachRun} after every run (the command rewrites its page, so
     * an interrupted hunt still leaves one). No run starts once {@code stopped} says so (Ctrl-C: the run under way
     * writes its partial report, the hunt its page, and nothing more starts).
     */
    static BugsPage.Input run(Plan plan, Runner runner, PrintStream out, String startedAt,
                              java.util.function.Consumer<BugsPage.Input> afterEachRun,
                              java.util.function.BooleanSupplier stopped) {
        int total = plan.bugs().values().stream().mapToInt(List::size).sum()
                + plan.clean().values().stream().mapToInt(List::size).sum();
        int[] done = {0};
        List<BugsPage.Bug> bugs = new ArrayList<>();
        for (var e : plan.bugs().entrySet()) {
            var entry = e.getKey();
            List<BugsPage.Attempt> attempts = series(e.getValue(), true, c -> runner.run(c, entry.mix()), out, stopped,
                    c -> out.printf("faultline: bugs: run %d (at most %d): bug %s, seed %d, %s%n", ++done[0], total,
                            entry.name(), c.seed(), entry.describe()),
                    (c, a, soFar) -> {
                        afterEachRun.accept(input(plan, startedAt, bugs, entry, soFar, List.of()));
                        out.printf("faultline: bugs: %s seed %d: %s%n", entry.name(), c.seed(), a.invalid()
                                ? "DETECTED (" + String.join(", ", a.anomalies()) + ")" : "not detected (" + a.verdict() + ")");
                    });
            bugs.add(new BugsPage.Bug(entry.name(), entry.mistake(), entry.describe(), attempts));
        }
        List<BugsPage.Clean> clean = new ArrayList<>();
        for (var m : plan.clean().entrySet()) {
            List<BugsPage.Attempt> attempts = series(m.getValue(), false, c -> runner.run(c, m.getKey().mix()), out, stopped,
                    c -> out.printf("faultline: bugs: run %d (at most %d): unseeded broker, seed %d, %s%n", ++done[0], total,
                            c.seed(), m.getKey().describe()),
                    (c, a, soFar) -> {
                        List<BugsPage.Clean> partial = new ArrayList<>(clean);
                        partial.add(new BugsPage.Clean(m.getKey().describe(), soFar));
                        afterEachRun.accept(input(plan, startedAt, bugs, null, List.of(), partial));
                        out.printf("faultline: bugs: unseeded seed %d: %s%n", c.seed(), a.invalid()
                                ? "FALSE ALARM (" + String.join(", ", a.anomalies()) + ")" : a.verdict());
                    });
            clean.add(new BugsPage.Clean(m.getKey().describe(), attempts));
        }
        return input(plan, startedAt, bugs, null, List.of(), clean);
    }

    /** One run of a configuration whose broker and faults the caller has chosen. */
    interface OneRun {
        TestRunner.Result run(TestConfig config) throws Exception;
    }

    /** Told after each run of a series: the run, its outcome, and the series' outcomes so far. */
    interface AfterRun {
        void after(TestConfig config, BugsPage.Attempt attempt, List<BugsPage.Attempt> soFar);
    }

    /**
     * The run loop of a hunt (`bugs` and `mutants`): the configurations in order, each announced before it starts,
     * stopping at the first invalid verdict when {@code untilDetected} (a broken broker needs only one detection;
     * the unbroken one runs every seed), and before any run once {@code stopped} says so.
     */
    static List<BugsPage.Attempt> series(List<TestConfig> configs, boolean untilDetected, OneRun run, PrintStream out,
                                         java.util.function.BooleanSupplier stopped,
                                         java.util.function.Consumer<TestConfig> before, AfterRun after) {
        List<BugsPage.Attempt> attempts = new ArrayList<>();
        for (TestConfig c : configs) {
            if (stopped.getAsBoolean()) break;
            before.accept(c);
            BugsPage.Attempt a = attempt(run, c, out);
            attempts.add(a);
            after.after(c, a, List.copyOf(attempts));
            if (untilDetected && a.invalid()) break;
        }
        return attempts;
    }

    /** The score of the bugs done, plus the one under way (if any), and the clean runs so far. */
    private static BugsPage.Input input(Plan plan, String startedAt, List<BugsPage.Bug> done, SeededBugCatalog.Entry current,
                                        List<BugsPage.Attempt> currentAttempts, List<BugsPage.Clean> clean) {
        List<BugsPage.Bug> bugs = new ArrayList<>(done);
        if (current != null) bugs.add(new BugsPage.Bug(current.name(), current.mistake(), current.describe(), currentAttempts));
        return new BugsPage.Input("Seeded bugs: " + bugs.stream().filter(BugsPage.Bug::detected).count() + " of "
                + bugs.size() + " detected", startedAt, plan.seed(), bugs, clean);
    }

    /** One run; a harness error is an unknown verdict with the reason, not the end of the hunt. */
    private static BugsPage.Attempt attempt(OneRun run, TestConfig c, PrintStream out) {
        long t0 = System.nanoTime();
        try {
            TestRunner.Result r = run.run(c);
            return new BugsPage.Attempt(c.seed(), r.verdict().name(), r.verdict() == Verdict.INVALID ? r.anomalies() : List.of(),
                    r.runDir() == null ? null : r.runDir().toString(), r.seconds());
        } catch (Exception e) {
            out.println("faultline: run with seed " + c.seed() + " failed: " + e);
            return new BugsPage.Attempt(c.seed(), "unknown", List.of(), null, (System.nanoTime() - t0) / 1e9);
        }
    }
}
