package io.faultline.harness;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The release tarball, unpacked in an empty folder far from the source tree, runs `faultline --help` and
 * `faultline analyze` on a stored run with its own launcher and jars only. Runs at integration-test, after package
 * made the tarball (harness/pom.xml); in the test phase there is none yet and it skips itself.
 */
class ReleaseTarballTest {
    @Test
    void unpackedInAnEmptyFolderItRunsHelpAndAnalyze(@TempDir Path empty) throws Exception {
        String tarball = System.getProperty("faultline.releaseTarball");
        assumeTrue(tarball != null, "runs at integration-test, after package");
        assertTrue(Files.isRegularFile(Path.of(tarball)), "no tarball at " + tarball);

        Path unpacked = empty.resolve("unpacked");
        Files.createDirectories(unpacked);
        assertEquals(0, run(unpacked, List.of("tar", "-xzf", tarball)).exit());
        String version = Path.of(tarball).getFileName().toString().replace(".tar.gz", "");
        Path home = unpacked.resolve(version);
        Path launcher = home.resolve("bin/faultline");
        assertTrue(Files.isExecutable(launcher), "launcher missing in " + home);
        for (String dir : List.of("lib", "node-libs/apache-kafka", "node-libs/broker-impl", "node-libs/lazyfs",
                "scripts", "images", "suts")) {
            try (var s = Files.list(home.resolve(dir))) {
                assertTrue(s.findAny().isPresent(), dir + " is empty");
            }
        }
        assertTrue(Files.isRegularFile(home.resolve("node-libs/apache-kafka/kafka_2.13-4.4.0.jar")));

        // A small stored run (synthetic history with planted anomalies), made where the release runs.
        Path work = empty.resolve("work");
        Path store = work.resolve("store");
        AnalyzeBenchmark.main(new String[]{store.toString(), "2000"});
        Path runDir = store.resolve("bench-queue/20260101T000000.000Z");

        Result help = run(work, List.of(launcher.toString(), "--help"));
        assertEquals(0, help.exit(), help.output());
        assertTrue(help.output().contains("Usage: faultline"), help.output());
        assertTrue(help.output().contains("doctor"), help.output());

        Result analyze = run(work, List.of(launcher.toString(), "analyze", "store/bench-queue/20260101T000000.000Z"));
        assertEquals(FaultlineCli.EXIT_INVALID, analyze.exit(), analyze.output()); // the planted anomalies
        assertTrue(analyze.output().contains("INVALID") || analyze.output().toLowerCase().contains("invalid"),
                analyze.output());
        assertTrue(Files.readString(runDir.resolve("results.json")).contains("\"INVALID\""));
        assertTrue(Files.size(runDir.resolve("report.html")) > 1000);
    }

    record Result(int exit, String output) {}

    /** A child process with a PATH that has Java but neither Maven nor the source tree as working directory. */
    private static Result run(Path dir, List<String> cmd) throws IOException, InterruptedException {
        var pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("MAVEN") || k.startsWith("FAULTLINE"));
        env.put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":/usr/bin:/bin");
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "still running: " + cmd);
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
