package io.faultline.harness;

import io.faultline.results.JunitXml;
import io.faultline.results.RunStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** `faultline test`: one Jepsen-style test (or several, until one fails, with --test-count). */
@Command(name = "test", mixinStandardHelpOptions = true,
        description = "Run a test: start a cluster, drive the workload under faults, check the history, write a report.")
final class TestCommand implements Callable<Integer> {
    @Mixin
    TestOptions options;

    @Mixin
    MixOptions mix = new MixOptions();

    @Mixin
    LivenessOptions liveness = new LivenessOptions();

    @Option(names = "--test-count", description = "Run this many tests, stopping at the first that is not valid (default: ${DEFAULT-VALUE})")
    int testCount = 1;

    @Option(names = "--store", description = "Run store folder (default: ${DEFAULT-VALUE})")
    Path store = Path.of("store");

    @Option(names = "--junit-xml", paramLabel = "FILE", description = "Also write the results as JUnit XML (one testcase per run)")
    Path junitXml;

    @Option(names = "--broker-jar", paramLabel = "JAR", description = "broker-impl only: run this broker-impl jar instead of"
            + " the built one (same dependencies; its node image is tagged by content, e.g. a mutant's from `mutants`)")
    Path brokerJar;

    @Override
    public Integer call() throws Exception {
        if (brokerJar != null && !java.nio.file.Files.isRegularFile(brokerJar)) {
            throw new IllegalArgumentException("--broker-jar: no such file " + brokerJar);
        }
        if (testCount < 1) throw new IllegalArgumentException("--test-count must be at least 1");
        boolean nightly = mix.nightly(false);
        if (nightly && !options.nemesis.equals(new TestOptions().nemesis)) {
            throw new IllegalArgumentException("--mix nightly chooses its own faults: drop --nemesis, or use --mix random");
        }
        TestConfig first = mix.apply(options.toConfig(), nightly);
        // one map per system by default: their states differ, and a guided plan should follow the system it tests
        CoverageBook coverage = nightly ? new CoverageBook(mix.coverage != null ? mix.coverage
                : store.resolve("coverage-" + Suts.label(first.sut()) + ".json")) : null;
        var bounds = liveness.bounds(); // nightly runs (CoverageBook) use the default bounds
        int exit = FaultlineCli.EXIT_VALID;
        List<JunitXml.Case> cases = new ArrayList<>();
        for (int i = 0; i < testCount; i++) {
            // Each repetition gets its own seed, derived from the first so the whole series replays.
            TestConfig config = i == 0 ? first : first.withSeed(new java.util.SplittableRandom(first.seed() + i).nextLong() & Long.MAX_VALUE);
            if (testCount > 1) System.err.println("faultline: test " + (i + 1) + " of " + testCount);
            var result = nightly ? coverage.run(config, mix.spec(), new RunStore(store), System.err, brokerJar).result()
                    : withJar(new TestRunner(config, new RunStore(store), System.err, NemesisSchedule::create)
                            .withLivenessBounds(bounds)).run();
            exit = result.exitCode();
            cases.add(JunitCases.of("run " + (i + 1) + " seed " + config.seed(), "faultline." + config.testName(), result));
            if (junitXml != null) JunitCases.write(junitXml, "faultline test", cases); // after every run: a crash keeps the rest
            if (exit != FaultlineCli.EXIT_VALID) break;
        }
        return exit;
    }

    private TestRunner withJar(TestRunner runner) {
        return brokerJar == null ? runner : runner.withBrokerJar(brokerJar);
    }
}
