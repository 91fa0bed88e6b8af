package io.faultline.harness;

import io.faultline.docker.DockerBacked;
import io.faultline.docker.DockerEngine;
import io.faultline.docker.ResourceJanitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ctrl-C during a run: the CLI tears everything down and keeps the history and a partial report. */
@DockerBacked
class InterruptTest {
    @Test
    void sigintLeavesNoContainersAndKeepsTheHistory(@TempDir Path store) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                "-Dfaultline.projectRoot=" + System.getProperty("faultline.projectRoot", ""),
                FaultlineCli.class.getName(), "test", "--nemesis", "none", "--nodes", "3", "--time-limit", "120",
                "--store", store.toString()));
        Path output = store.resolve("cli-output.txt");
        var pb = new ProcessBuilder(withDefaultSigint(cmd)).redirectErrorStream(true).redirectOutput(output.toFile());
        pb.environment().put("TESTCONTAINERS_RYUK_DISABLED", "true");
        pb.environment().put("TESTCONTAINERS_HOST_OVERRIDE", "localhost");
        Process cli = pb.start();
        long pid = cli.pid();
        try {
            // Signal only in an observable state: the CLI said it entered the workload phase (and no later one),
            // and the workload has recorded some ops.
            long deadline = System.currentTimeMillis() + 240_000;
            Path history = null;
            while (System.currentTimeMillis() < deadline) {
                var runs = CliTestSupport.runDirs(store);
                if (Files.readString(output).contains("phase workload") && !runs.isEmpty()
                        && Files.exists(runs.get(0).resolve("history.jsonl"))
                        && Files.readAllLines(runs.get(0).resolve("history.jsonl")).size() > 20) {
                    history = runs.get(0).resolve("history.jsonl");
                    break;
                }
                assertTrue(cli.isAlive(), "the CLI died early: " + Files.readString(output));
                Thread.sleep(500);
            }
            assertTrue(history != null, "the run started its workload: " + Files.readString(output));
            assertFalse(Files.readString(output).contains("phase final-heal"), "signalled during the workload");
            new ProcessBuilder("kill", "-INT", Long.toString(pid)).start().waitFor();
            // The CLI gives its cleanup at most 150 s (TestRunner.INTERRUPT_GRACE) before the JVM exits anyway: wait longer than
            // that, so a busy machine makes this slow rather than failed (a run under three other clusters took over 120 s).
            assertTrue(cli.waitFor(200, TimeUnit.SECONDS), "the CLI exits after SIGINT");
            String said = Files.readString(output);
            assertTrue(said.contains("interrupted: tearing down"), "the CLI saw SIGINT: " + said);
            assertTrue(said.contains("run interrupted in phase workload"), "and stopped its workload: " + said);

            var client = DockerEngine.client();
            var left = client.listContainersCmd().withShowAll(true)
                    .withLabelFilter(Map.of(ResourceJanitor.OWNER_PID, Long.toString(pid))).exec();
            assertEquals(List.of(), left.stream().map(c -> String.join(",", c.getNames())).toList(), "no containers left");
            var nets = client.listNetworksCmd().withFilter("label", List.of(ResourceJanitor.OWNER_PID + "=" + pid)).exec();
            assertEquals(0, nets.size(), "no networks left");

            Path run = history.getParent();
            assertTrue(Files.readAllLines(history).size() > 20, "the history is kept");
            Map<String, Object> results = CliTestSupport.results(run);
            assertEquals(false, results.get("complete"), "the results say the run is incomplete");
            assertTrue(Files.readString(run.resolve("report.html")).toLowerCase().contains("incomplete")
                    || Files.readString(run.resolve("report.html")).toLowerCase().contains("interrupted"), "the report says so");
        } finally {
            if (cli.isAlive()) cli.destroyForcibly();
        }
    }

    /**
     * The command, started with SIGINT at its default action. A build started in the background by a
     * non-interactive shell (`bash -c 'mvn verify &'`, CI wrappers) runs with SIGINT ignored, every child inherits
     * that, and a JVM that starts with SIGINT ignored never installs its handler: the CLI then ignored the signal,
     * ran its whole workload and reported a complete run. coreutils' env resets the disposition before exec.
     */
    static List<String> withDefaultSigint(List<String> cmd) throws java.io.IOException {
        String ignored = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("SigIgn:")).map(l -> l.substring(7).strip()).findFirst().orElse("0");
        boolean sigintIgnored = (Long.parseUnsignedLong(ignored, 16) & (1L << (2 - 1))) != 0; // SIGINT is 2
        if (!sigintIgnored) return cmd;
        List<String> wrapped = new ArrayList<>(List.of("env", "--default-signal=INT"));
        wrapped.addAll(cmd);
        return wrapped;
    }
}
