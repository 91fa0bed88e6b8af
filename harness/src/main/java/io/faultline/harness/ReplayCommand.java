package io.faultline.harness;

import io.faultline.results.RunStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** `faultline replay RUN_DIR`: the same test again, with the stored seed and parameters. */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = "Run a stored test again with its seed and parameters.")
final class ReplayCommand implements Callable<Integer> {
    @Parameters(paramLabel = "RUN_DIR", description = "A run folder, e.g. store/latest")
    Path runDir;

    @Option(names = "--store", description = "Run store folder for the new run (default: ${DEFAULT-VALUE})")
    Path store = Path.of("store");

    @Override
    public Integer call() throws Exception {
        TestConfig config = StoredRun.configOf(runDir.toRealPath().resolve("test.json"), StoredRun.readTestJson(runDir.toRealPath()));
        return new TestRunner(config, new RunStore(store), System.err, NemesisSchedule::create).run().exitCode();
    }
}
