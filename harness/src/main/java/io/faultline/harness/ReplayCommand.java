package io.faultline.harness;

import io.faultline.results.RunStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** `faultline replay RUN_DIR` or `faultline replay --schedule FILE`: the same test again, same seed. */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = "Run a stored test again with its seed and parameters, or run a schedule file (e.g. from shrink).")
final class ReplayCommand implements Callable<Integer> {
    @Parameters(paramLabel = "RUN_DIR", arity = "0..1", description = "A run folder, e.g. store/latest")
    Path runDir;

    @Option(names = "--schedule", paramLabel = "FILE",
            description = "A schedule file (a run's schedule.json, or what shrink wrote): its parameters, seed and faults")
    Path schedule;

    @Option(names = "--store", description = "Run store folder for the new run (default: ${DEFAULT-VALUE})")
    Path store = Path.of("store");

    @Override
    public Integer call() throws Exception {
        if ((runDir == null) == (schedule == null)) {
            throw new IllegalArgumentException("replay needs a RUN_DIR or --schedule FILE (one of them)");
        }
        if (schedule != null) {
            Path sibling = schedule.toAbsolutePath().resolveSibling("test.json");
            if (java.nio.file.Files.isRegularFile(sibling)
                    && ScenarioSchedule.of(StoredRun.readTestJson(sibling.getParent())).isPresent()) {
                throw new IllegalArgumentException(schedule + " is a scenario run's: its faults are the scenario's script, "
                        + "not a plan; replay the run folder " + sibling.getParent() + " instead");
            }
            ScheduleFile file = ScheduleFile.read(schedule);
            System.err.println("faultline: replaying " + schedule + ": " + file.faultCycles().size() + " faults");
            var stored = java.nio.file.Files.isRegularFile(sibling) ? StoredRun.readTestJson(sibling.getParent())
                    : java.util.Map.<String, Object>of();
            return runner(stored, file.config(), new RunStore(store), file.cycleSet()).run().exitCode();
        }
        var testJson = StoredRun.readTestJson(runDir.toRealPath());
        TestConfig config = StoredRun.configOf(runDir.toRealPath().resolve("test.json"), testJson);
        var scenario = ScenarioSchedule.of(testJson);
        if (scenario.isPresent()) {
            // the same script, settings (broker-props included) and seed; says again what to expect
            return ScenarioCommand.run(scenario.get(), config, new RunStore(store), System.err).result().exitCode();
        }
        return new TestRunner(config, new RunStore(store), System.err, scheduleOf(testJson)).withStoredBrokerJar(testJson)
                .run().exitCode();
    }

    /** The schedule a stored run had: its scenario's script, or the seed's random faults. */
    static TestRunner.FaultScheduleFactory scheduleOf(java.util.Map<String, Object> testJson) {
        var mix = NightlyMix.Spec.of(testJson);
        if (mix.isPresent()) return ComposedSchedule.factory(mix.get(), null, s -> { });
        return ScenarioSchedule.of(testJson).map(ScenarioSchedule::factory)
                .orElse(NemesisSchedule::create);
    }

    /**
     * A run of this configuration keeping only these fault cycles (null: all); a nightly-mix run (its test.json names
     * the mix) keeps those compositions of its plan.
     */
    static TestRunner runner(java.util.Map<String, Object> testJson, TestConfig config, RunStore store, java.util.Set<Integer> cycles)
            throws java.io.IOException {
        var mix = NightlyMix.Spec.of(testJson);
        if (mix.isEmpty()) return runner(config, store, cycles).withStoredBrokerJar(testJson);
        return new TestRunner(config, store, System.err, ComposedSchedule.factory(mix.get(), cycles, s -> { }), cycles)
                .withStoredBrokerJar(testJson);
    }

    /** A run of this configuration keeping only these fault cycles (null: all). */
    static TestRunner runner(TestConfig config, RunStore store, java.util.Set<Integer> cycles) {
        return new TestRunner(config, store, System.err, NemesisSchedule.factory(cycles), cycles);
    }
}
