package io.faultline.harness.mutants;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * broker-impl's own unit tests run against a mutant: the tests of the mutated class's package, in a child JVM whose
 * classpath has the mutated jar in place of broker-impl's classes. A failing test kills the mutant cheaply (no
 * cluster); the harness's score that matters is on the mutants the unit tests let through. Each package's tests
 * first run once against the unmutated jar: a package whose tests fail there (flaky, or a broken build) decides
 * nothing.
 */
public final class UnitTests {
    /** What broker-impl's unit tests said of one mutant. */
    public enum Status {
        KILLED("killed"), TIMED_OUT("timed out"), SURVIVED("survived"), NOT_RUN("not run");

        private final String label;

        Status(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        /** A timeout counts as a kill, as in PIT: the mutant hangs a test the original passes. */
        public boolean killed() {
            return this == KILLED || this == TIMED_OUT;
        }
    }

    /** The outcome for one mutant, with why (failing tests' count or the reason they did not run) and the log. */
    public record Outcome(Status status, String detail, double seconds, String log) {}

    private final Path testClasses;
    private final List<String> testClasspath;
    private final Duration timeout;
    private final Map<String, Outcome> baseline = new HashMap<>();

    private UnitTests(Path testClasses, List<String> testClasspath, Duration timeout) {
        this.testClasses = testClasses;
        this.testClasspath = testClasspath;
        this.timeout = timeout;
    }

    /**
     * The unit tests of the checkout at {@code projectRoot} (broker-impl/target/test-classes and target/test.classpath,
     * which `./mvnw -pl broker-impl test-compile process-test-classes` writes), or why they cannot run.
     */
    public static UnitTests find(Path projectRoot, Duration timeout) {
        Path target = projectRoot.resolve("broker-impl/target");
        Path classes = target.resolve("test-classes"), classpath = target.resolve("test.classpath");
        if (!Files.isDirectory(classes) || !Files.isRegularFile(classpath)) {
            throw new IllegalArgumentException("broker-impl's unit tests are not built (" + classes + ", " + classpath
                    + "): run ./mvnw -pl broker-impl test-compile process-test-classes, or pass --unit-tests none");
        }
        try {
            return new UnitTests(classes, List.of(Files.readString(classpath).strip().split(java.io.File.pathSeparator)), timeout);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + classpath + ": " + e);
        }
    }

    /**
     * Runs the package's tests against {@code mutantJar}; {@code originalJar}'s run of the same tests (once per
     * package) is the control. Logs go to {@code logDir}.
     */
    public Outcome run(Mutant m, Path mutantJar, Path originalJar, Path logDir) throws InterruptedException {
        Outcome control;
        synchronized (baseline) {
            control = baseline.get(m.packageName());
            if (control == null) {
                control = launch(m.packageName(), originalJar, logDir.resolve("unit-tests-unmutated-" + m.packageName() + ".log"));
                baseline.put(m.packageName(), control);
            }
        }
        if (control.status() != Status.SURVIVED) {
            return new Outcome(Status.NOT_RUN, "the unmutated broker's " + m.packageName() + " tests did not pass ("
                    + control.status().label() + ": " + control.detail() + ")", 0, control.log());
        }
        return launch(m.packageName(), mutantJar, logDir.resolve(m.id() + "-unit-tests.log"));
    }

    private Outcome launch(String pkg, Path brokerJar, Path log) throws InterruptedException {
        List<String> cp = new ArrayList<>();
        cp.add(brokerJar.toAbsolutePath().toString());
        cp.add(testClasses.toAbsolutePath().toString());
        cp.addAll(testClasspath);
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
                "-cp", String.join(java.io.File.pathSeparator, cp), "org.junit.platform.console.ConsoleLauncher", "execute",
                "--select-package", pkg, "--disable-banner", "--details=summary", "--disable-ansi-colors");
        long t0 = System.nanoTime();
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor();
                return new Outcome(Status.TIMED_OUT, "the tests ran past " + timeout.toSeconds() + " s", seconds(t0), log.toString());
            }
            String failed = summary(log, "tests failed").orElse("?");
            return switch (p.exitValue()) {
                case 0 -> new Outcome(Status.SURVIVED, "every test of " + pkg + " passed", seconds(t0), log.toString());
                case 1 -> new Outcome(Status.KILLED, failed + " failing tests of " + pkg, seconds(t0), log.toString());
                default -> new Outcome(Status.NOT_RUN, "the test launcher exited with " + p.exitValue(), seconds(t0), log.toString());
            };
        } catch (IOException e) {
            return new Outcome(Status.NOT_RUN, "cannot start the tests: " + e.getMessage(), seconds(t0), log.toString());
        }
    }

    /** A count from the launcher's summary box, e.g. "[         2 tests failed          ]". */
    private static Optional<String> summary(Path log, String label) {
        try (var lines = Files.lines(log)) {
            return lines.map(String::strip).filter(l -> l.startsWith("[") && l.contains(label))
                    .map(l -> l.substring(1).strip().split("\\s+")[0]).findFirst();
        } catch (IOException | java.io.UncheckedIOException e) {
            return Optional.empty();
        }
    }

    private static double seconds(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }
}
