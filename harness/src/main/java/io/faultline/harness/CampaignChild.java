package io.faultline.harness;

import io.faultline.checker.Verdict;
import io.faultline.results.RunStore;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One campaign run on another Docker engine, in a JVM of its own (see {@link DockerHosts} for why).
 *
 * <p>The parent writes the run's {@link TestConfig} as JSON, starts {@code java … CampaignChild CONFIG RESULT STORE}
 * with DOCKER_HOST set, and reads back a {@link Outcome} from RESULT. The run itself is an ordinary TestRunner run
 * in the shared store, so its report and files are exactly those of a local run.
 */
final class CampaignChild {
    /** What the parent needs of a finished run; {@code error} is set (and the rest empty) when the run broke. */
    record Outcome(String runDir, String verdict, int exitCode, List<String> anomalies, List<String> caveats,
                   double seconds, String error) {
        TestRunner.Result toResult() {
            return new TestRunner.Result(Verdict.valueOf(verdict), Path.of(runDir), exitCode, anomalies, caveats,
                    seconds);
        }
    }

    private CampaignChild() {}

    public static void main(String[] args) throws IOException {
        FaultlineCli.quietClientLogs();
        if (args.length != 3) {
            System.err.println("usage: CampaignChild CONFIG.json RESULT.json STORE");
            System.exit(FaultlineCli.EXIT_UNKNOWN_OR_ERROR);
        }
        Path result = Path.of(args[1]);
        Outcome outcome;
        try {
            TestConfig config = StoredRun.JSON.readValue(Path.of(args[0]).toFile(), TestConfig.class);
            var r = new TestRunner(config, new RunStore(Path.of(args[2])), System.err, NemesisSchedule::create).run();
            outcome = new Outcome(r.runDir().toString(), r.verdict().name(), r.exitCode(), r.anomalies(),
                    r.caveats(), r.seconds(), null);
        } catch (Exception e) {
            e.printStackTrace();
            outcome = new Outcome(null, null, FaultlineCli.EXIT_UNKNOWN_OR_ERROR, List.of(), List.of(), 0,
                    String.valueOf(e));
        }
        StoredRun.JSON.writeValue(result.toFile(), outcome);
        // Leftover non-daemon threads (client libraries) must not keep the child, and so the campaign, alive.
        System.exit(outcome.exitCode());
    }

    /**
     * The -D flags a child JVM inherits: every faultline.* setting (the project root, the release tarball's node-libs
     * folders, which its launcher sets) and the log level.
     */
    static List<String> inheritedProperties(java.util.Properties props) {
        return new java.util.TreeSet<>(props.stringPropertyNames()).stream()
                .filter(p -> p.startsWith("faultline.") || p.equals("org.slf4j.simpleLogger.defaultLogLevel"))
                .map(p -> "-D" + p + "=" + props.getProperty(p))
                .toList();
    }

    /**
     * Runs {@code config} in a child JVM against the engine at {@code dockerHost}; its output lines go to {@code err}
     * prefixed with {@code label}. Interrupting the caller stops the child (SIGTERM: its cleanup hooks run).
     */
    static Outcome run(TestConfig config, String dockerHost, String label, Path store, Path workDir, PrintStream err)
            throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path configFile = Files.createTempFile(workDir, "run-", ".json");
        Path resultFile = Path.of(configFile.toString().replace(".json", ".result.json"));
        StoredRun.JSON.writeValue(configFile.toFile(), config);
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + System.getProperty("faultline.childHeap", "1g"));
        cmd.addAll(inheritedProperties(System.getProperties()));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), CampaignChild.class.getName(),
                configFile.toString(), resultFile.toString(), store.toAbsolutePath().toString()));
        var pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        DockerHosts.applyTo(env, dockerHost);
        Process p = pb.start();
        Thread pump = new Thread(() -> prefixLines(p.getInputStream(), label, err), "campaign-child-output");
        pump.setDaemon(true);
        pump.start();
        try {
            p.waitFor();
        } catch (InterruptedException e) {
            p.destroy();
            if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) p.destroyForcibly();
            throw e;
        }
        pump.join(5_000);
        if (!Files.isRegularFile(resultFile)) {
            return new Outcome(null, null, FaultlineCli.EXIT_UNKNOWN_OR_ERROR, List.of(), List.of(), 0,
                    "the run's JVM on " + dockerHost + " ended (exit " + p.exitValue() + ") without a result");
        }
        return StoredRun.JSON.readValue(resultFile.toFile(), Outcome.class);
    }

    private static void prefixLines(InputStream in, String label, PrintStream err) {
        try (var reader = new java.io.BufferedReader(new java.io.InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                err.println("[" + label + "] " + line);
            }
        } catch (IOException ignored) {
            // the child is gone; its result file says how it ended
        }
    }
}
