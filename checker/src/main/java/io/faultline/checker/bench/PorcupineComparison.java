package io.faultline.checker.bench;

import io.faultline.checker.Verdict;
import io.faultline.checker.linear.LinOp;
import io.faultline.checker.linear.LinearizabilityChecker;
import io.faultline.checker.linear.RegisterModel;
import io.faultline.checker.linear.RegisterOp;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Faultline's linearizability checker beside Porcupine on the Jepsen etcd histories Porcupine ships
 * ({@code test_data/jepsen/etcd_000.log} … {@code etcd_102.log}). Give it a Porcupine checkout (fetched the way a
 * user would, e.g. {@code git clone https://github.com/anishathalye/porcupine}; it is not part of this repository)
 * or a folder holding just the logs. Each round, alternating: ours in a fresh JVM (with the flags bin/faultline
 * gives {@code analyze}; {@code -Dfaultline.bench.freshJvmOptions} to change them),
 * ours warm (in this JVM), and, when {@code go} is on the PATH and the folder is a checkout, Porcupine's own tests
 * ({@code TestEtcdJepsen*}: its test binary, built once with {@code go test -c}, run as a fresh process) and its
 * benchmarks ({@code BenchmarkEtcdJepsen*}, warm: the sum of the 103 ns/op, parsing excluded as in ours). Prints every run, then medians and ratios,
 * and whether our verdicts match the ones Porcupine's tests expect. Go runs offline (GOPROXY=off): Porcupine has
 * no dependencies. Skips with one line when the histories are absent.
 * <pre>
 * java -cp checker/target/classes:... io.faultline.checker.bench.PorcupineComparison /path/to/porcupine 5
 * </pre>
 */
public final class PorcupineComparison {
    private static final Pattern EXPECTED = Pattern.compile("checkJepsen\\(t, (\\d+), (true|false)\\)");
    private static final Pattern BENCH_LINE = Pattern.compile("^BenchmarkEtcdJepsen\\d+\\S*\\s+\\d+\\s+(\\d+) ns/op");

    private PorcupineComparison() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--once")) { // the fresh-JVM run: check everything once, print ms
            long t0 = System.nanoTime();
            Map<String, Verdict> verdicts = checkAll(parse(histories(Path.of(args[1]))));
            System.out.println((System.nanoTime() - t0) / 1_000_000 + " " + verdicts.size());
            return;
        }
        Path dir = Path.of(args.length > 0 ? args[0] : "porcupine");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Map<String, Path> logs = histories(dir);
        if (logs.isEmpty()) {
            System.out.println("skipped: no Jepsen etcd histories (etcd_NNN.log) under " + dir.toAbsolutePath()
                    + "; fetch them with: git clone https://github.com/anishathalye/porcupine");
            return;
        }
        boolean go = dir.resolve("go.mod").toFile().isFile() && onPath("go");
        System.out.printf(Locale.ROOT, "%d histories under %s; fresh JVM options: %s; Porcupine %s; load %.1f%n",
                logs.size(), dir, FRESH_JVM_OPTIONS, go ? "runs (go found)" : "not run (" + (onPath("go") ? "not a Porcupine checkout" : "no go on PATH")
                        + ")", load());

        Map<String, List<LinOp<RegisterOp, Object>>> parsed = parse(logs);
        Map<String, Verdict> ours = checkAll(parsed);
        reportAgreement(dir, ours);

        List<Double> cold = new ArrayList<>(), warm = new ArrayList<>(), goCold = new ArrayList<>(),
                goWarm = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            if (go) {
                goCold.add(goTestSeconds(dir));
            }
            cold.add(freshJvmSeconds(dir));
            long t0 = System.nanoTime();
            checkAll(parsed); // parsed beforehand, as Porcupine's benchmarks parse before timing
            warm.add((System.nanoTime() - t0) / 1e9);
            if (go) {
                goWarm.add(goBenchSeconds(dir));
            }
            System.out.printf(Locale.ROOT, "round %d: ours fresh JVM %.3f s, ours warm %.3f s%s; load %.1f%n", round,
                    last(cold), last(warm), go ? String.format(Locale.ROOT, ", Porcupine fresh process %.3f s, "
                            + "Porcupine warm (bench) %.3f s", last(goCold), last(goWarm)) : "", load());
        }
        System.out.printf(Locale.ROOT, "medians over %d rounds: ours fresh JVM %.3f s, ours warm %.3f s", rounds,
                median(cold), median(warm));
        if (go) {
            System.out.printf(Locale.ROOT, ", Porcupine fresh process %.3f s, Porcupine warm %.3f s; ratios (ours / "
                    + "Porcupine): fresh %.2f×, warm %.2f×", median(goCold), median(goWarm),
                    median(cold) / median(goCold), median(warm) / median(goWarm));
        }
        System.out.println();
    }

    /** etcd_NNN.log files directly under {@code dir} or under {@code dir/test_data/jepsen}, by name. */
    static Map<String, Path> histories(Path dir) throws IOException {
        Map<String, Path> logs = new TreeMap<>();
        for (Path d : List.of(dir, dir.resolve("test_data").resolve("jepsen"))) {
            if (Files.isDirectory(d)) {
                try (Stream<Path> s = Files.list(d)) {
                    s.filter(p -> p.getFileName().toString().matches("etcd_\\d+\\.log"))
                            .forEach(p -> logs.put(p.getFileName().toString(), p));
                }
            }
        }
        return logs;
    }

    static Map<String, List<LinOp<RegisterOp, Object>>> parse(Map<String, Path> logs) throws IOException {
        Map<String, List<LinOp<RegisterOp, Object>>> parsed = new TreeMap<>();
        for (Map.Entry<String, Path> e : logs.entrySet()) {
            parsed.put(e.getKey(), JepsenEtcdLog.read(e.getValue()));
        }
        return parsed;
    }

    static Map<String, Verdict> checkAll(Map<String, List<LinOp<RegisterOp, Object>>> histories) {
        Map<String, Verdict> verdicts = new TreeMap<>();
        var checker = new LinearizabilityChecker<>(RegisterModel.withCas(), LinearizabilityChecker.Options.defaults());
        for (Map.Entry<String, List<LinOp<RegisterOp, Object>>> e : histories.entrySet()) {
            verdicts.put(e.getKey(), checker.check(Map.of("r", e.getValue())).verdict());
        }
        return verdicts;
    }

    /** Our verdicts beside the ones Porcupine's test file expects, when the folder is a checkout. */
    private static void reportAgreement(Path dir, Map<String, Verdict> ours) throws IOException {
        long valid = ours.values().stream().filter(v -> v == Verdict.VALID).count();
        long unknown = ours.values().stream().filter(v -> v == Verdict.UNKNOWN).count();
        System.out.printf("ours: %d linearizable, %d not, %d unknown%n", valid, ours.size() - valid - unknown, unknown);
        Path tests = dir.resolve("porcupine_test.go");
        if (!Files.isRegularFile(tests)) {
            return;
        }
        Matcher m = EXPECTED.matcher(Files.readString(tests));
        int agree = 0, compared = 0;
        List<String> differ = new ArrayList<>();
        while (m.find()) {
            String name = String.format(Locale.ROOT, "etcd_%03d.log", Integer.parseInt(m.group(1)));
            Verdict v = ours.get(name);
            if (v == null) {
                continue;
            }
            compared++;
            if ((v == Verdict.VALID) == Boolean.parseBoolean(m.group(2)) && v != Verdict.UNKNOWN) {
                agree++;
            } else {
                differ.add(name + " (ours " + v + ", Porcupine " + m.group(2) + ")");
            }
        }
        System.out.println("verdicts agree with Porcupine's expected ones on " + agree + " of " + compared
                + (differ.isEmpty() ? "" : "; differ: " + differ));
    }

    /** The fresh JVM gets the flags bin/faultline gives {@code analyze}, unless told otherwise. */
    static final String FRESH_JVM_OPTIONS = System.getProperty("faultline.bench.freshJvmOptions",
            "-Xmx2g -Xms2g -XX:MaxTenuringThreshold=0 -XX:TieredStopAtLevel=1 -XX:+UseSerialGC");

    private static double freshJvmSeconds(Path dir) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(FRESH_JVM_OPTIONS.trim().split("\\s+")));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), PorcupineComparison.class.getName(),
                "--once", dir.toString()));
        return timed(new ProcessBuilder(cmd), dir);
    }

    /**
     * Porcupine's test binary, built once ({@code go test -c}) into a temporary folder, so a timed run is the
     * checker's process alone: no go driver, build-cache check or vet in the figure.
     */
    private static Path goTestBinary;

    private static Path goTestBinary(Path dir) throws IOException, InterruptedException {
        if (goTestBinary == null) {
            Path out = Files.createTempDirectory("porcupine-test").resolve("porcupine.test");
            out.getParent().toFile().deleteOnExit();
            out.toFile().deleteOnExit();
            timed(goCommand(dir, "test", "-c", "-o", out.toString(), "."), dir);
            goTestBinary = out;
        }
        return goTestBinary;
    }

    private static double goTestSeconds(Path dir) throws IOException, InterruptedException {
        return timed(new ProcessBuilder(goTestBinary(dir).toString(), "-test.count=1", "-test.run", "^TestEtcdJepsen")
                .directory(dir.toFile()), dir);
    }

    private static double goBenchSeconds(Path dir) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(goTestBinary(dir).toString(), "-test.run", "^$", "-test.bench",
                "^BenchmarkEtcdJepsen", "-test.benchtime=3x").directory(dir.toFile()).redirectErrorStream(true).start();
        long ns = 0;
        int n = 0;
        for (String line : new String(p.getInputStream().readAllBytes()).split("\n")) {
            Matcher m = BENCH_LINE.matcher(line);
            if (m.find()) {
                ns += Long.parseLong(m.group(1));
                n++;
            }
        }
        if (p.waitFor() != 0 || n == 0) {
            throw new IllegalStateException("Porcupine's benchmarks failed in " + dir);
        }
        return ns / 1e9;
    }

    private static ProcessBuilder goCommand(Path dir, String... args) {
        List<String> cmd = new ArrayList<>(List.of("go"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().put("GOPROXY", "off");
        pb.environment().put("GOFLAGS", "-mod=mod");
        pb.environment().put("GOTOOLCHAIN", "local");
        return pb;
    }

    /** Wall time of a process, which must exit 0. */
    private static double timed(ProcessBuilder pb, Path dir) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        Process p = pb.redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        int code = p.waitFor();
        double s = (System.nanoTime() - t0) / 1e9;
        if (code != 0) {
            throw new IllegalStateException(String.join(" ", pb.command()) + " in " + dir + " exited " + code + ": "
                    + new String(out).lines().limit(5).toList());
        }
        return s;
    }

    private static boolean onPath(String exe) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (new File(d, exe).canExecute()) {
                return true;
            }
        }
        return false;
    }

    private static double load() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static double last(List<Double> xs) {
        return xs.get(xs.size() - 1);
    }

    private static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }
}
