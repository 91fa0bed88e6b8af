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
            ScheduleFile file = ScheduleFile.read(schedule);
            System.err.println("faultline: replaying " + schedule + ": " + file.faultCycles().size() + " faults");
            return runner(file.config(), new RunStore(store), file.cycleSet()).run().exitCode();
        }
        TestConfig config = StoredRun.configOf(runDir.toRealPath().resolve("test.json"), StoredRun.readTestJson(runDir.toRealPath()));
        return new TestRunner(config, new RunStore(store), System.err, NemesisSchedule::create).run().exitCode();
    }

    /** A run of this configuration keeping only these fault cycles (null: all). */
    static TestRunner runner(TestConfig config, RunStore store, java.util.Set<Integer> cycles) {
        return new TestRunner(config, store, System.err, NemesisSchedule.factory(cycles), cycles);
    }
}
