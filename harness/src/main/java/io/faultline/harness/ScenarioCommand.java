package io.faultline.harness;

import io.faultline.results.RunStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** `faultline scenario NAME`: a named, scripted fault sequence with fixed settings and a stated expectation. */
@Command(name = "scenario", mixinStandardHelpOptions = true,
        description = "Run a named data-loss scenario (acks-1-failover, unclean-election, min-isr-1, kip-101-loss, "
                + "kip-101-failover, kip-101-divergence, ...; none lists them all) and compare its verdict with the expected one.")
final class ScenarioCommand implements Callable<Integer> {
    @Parameters(paramLabel = "NAME", arity = "0..1", description = "The scenario; none lists them")
    String name;

    @Option(names = "--sut", description = "apache-kafka, apache-kafka:VERSION or broker-impl (default: ${DEFAULT-VALUE})")
    String sut = "apache-kafka";

    @Option(names = "--metadata", description = "Apache Kafka only: zk or kraft (default: kraft from 3.3, zk before)")
    String metadata;

    @Option(names = "--seed", description = "Seed of the workload (default: random, printed first)")
    Long seed;

    @Option(names = "--time-limit", description = "Seconds of workload (default: the script's waits, 20 s per gate, then 45 s)")
    Integer timeLimit;

    @Option(names = "--truncation", description = "broker-impl only: leader-epoch or high-watermark")
    String truncation;

    @Option(names = "--store", description = "Run store folder (default: ${DEFAULT-VALUE})")
    Path store = Path.of("store");

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /**
     * Workload seconds after the script's waits. A loss is proven only once later writes pass the lost offsets and a
     * poll reads them: the script's restarts take seconds of their own (a node back from a power cut took 30 s on this
     * busy machine before it led again), and with 20 s a min-isr-1 run ended with its 8 lost values merely unseen
     * (unknown), as acks-1-failover on Kafka did twice.
     */
    static final int AFTER_SCRIPT_SECONDS = 45;

    /** Workload seconds the script's gates may take: the first writes, then each wait for a leader. */
    static final int GATE_SECONDS = 20;

    /** The script's waits, its gates, then {@link #AFTER_SCRIPT_SECONDS}. */
    static int defaultTimeLimit(Scenario scenario) {
        long awaits = scenario.steps().stream()
                .filter(s -> s instanceof Scenario.Step.AwaitLeader || s instanceof Scenario.Step.AwaitIsr
                        || s instanceof Scenario.Step.AwaitInIsr).count();
        return (int) (scenario.scriptSeconds() + GATE_SECONDS * (1 + awaits) + AFTER_SCRIPT_SECONDS);
    }

    /** What a scenario run saw next to what it expected. */
    record Outcome(TestRunner.Result result, Scenario.Expectation expected, boolean asExpected) {}

    @Override
    public Integer call() throws Exception {
        if (name == null) {
            var out = spec.commandLine().getOut();
            Scenarios.ALL.forEach(s -> out.println(s.name() + ": " + s.summary()));
            out.flush();
            return FaultlineCli.EXIT_VALID;
        }
        Scenario scenario = Scenarios.forRun(name);
        TestConfig config = config(scenario, Suts.withMetadata(sut, metadata), truncation, timeLimit, seed);
        return run(scenario, config, new RunStore(store), System.err).result().exitCode();
    }

    /** The test configuration of a scenario on a system; refuses what that system cannot do, in one line. */
    static TestConfig config(Scenario scenario, String sut, String truncation, Integer timeLimit, Long seed) {
        Suts.named(sut); // an unknown name: one line listing the known ones
        var s = scenario.settings();
        int limit = timeLimit != null ? timeLimit : defaultTimeLimit(scenario);
        if (limit < scenario.scriptSeconds()) {
            throw new IllegalArgumentException("--time-limit " + limit + " is shorter than the script of " + scenario.name()
                    + " (" + scenario.scriptSeconds() + " s of waits)");
        }
        long runSeed = seed != null ? seed : new java.security.SecureRandom().nextLong() & Long.MAX_VALUE;
        return new TestConfig(sut, s.nodes(), "queue", scenario.packages(), limit, 100, 5, 1, s.acks(),
                s.idempotence(), s.minIsr(), s.replicationFactor(), s.unclean(), "assign", 5, runSeed, 10, 30,
                null, null, brokerProps(s, truncation), s.producerProps());
    }

    /** The scenario's own broker settings (e.g. a flush interval) plus --truncation. */
    private static java.util.Map<String, String> brokerProps(Scenario.Settings s, String truncation) {
        var props = new java.util.TreeMap<>(s.brokerProps());
        if (truncation != null) props.put(TestConfig.TRUNCATION, truncation);
        return props;
    }

    /** Prints the settings, script and expectation, runs the test, then says whether the verdict was the expected one. */
    static Outcome run(Scenario scenario, TestConfig config, RunStore store, PrintStream out) throws java.io.IOException {
        Scenario.Expectation expected = scenario.expectationFor(config.sut(), config.truncation().orElse(null));
        out.println("faultline: scenario " + scenario.name() + " on " + config.sut() + ": " + scenario.summary());
        out.println("faultline: settings " + scenario.settings().describe());
        out.println("faultline: script " + scenario.steps());
        out.println("faultline: expect: " + (expected == null ? "nothing stated for " + config.sut() : expected.describe()));
        if (!scenario.needs().isEmpty() && expected != null && expected.verdict() == io.faultline.checker.Verdict.VALID) {
            out.println("faultline: (to show the bug: " + scenario.needs() + ")");
        }
        var result = new TestRunner(config, store, out, ScenarioSchedule.factory(scenario)).run();
        boolean as = expected != null && expected.matches(result.verdict(), result.anomalies());
        out.println("faultline: seen: " + result.verdict().name().toLowerCase()
                + (result.anomalies().isEmpty() ? "" : " (" + String.join(", ", result.anomalies()) + ")")
                + (expected == null ? "" : as ? " — as expected" : " — NOT as expected"));
        return new Outcome(result, expected, as);
    }
}
