package io.faultline.harness;

import io.faultline.results.JunitXml;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Turns finished runs into JUnit XML testcases for `--junit-xml`. */
final class JunitCases {
    private JunitCases() {}

    /** A run's testcase; a harness error around a valid history still counts as unknown (exit code 2). */
    static JunitXml.Case of(String name, String classname, TestRunner.Result r) {
        String verdict = r.verdict().name().toLowerCase(Locale.ROOT);
        if (verdict.equals("valid") && r.exitCode() != FaultlineCli.EXIT_VALID) verdict = "unknown";
        return new JunitXml.Case(name, classname, r.seconds(), verdict, r.anomalies(), r.caveats(),
                r.runDir().resolve("report.html").toString());
    }

    /** A run that threw before it could conclude: an error with the exception as its caveat. */
    static JunitXml.Case broken(String name, String classname, Exception e) {
        return new JunitXml.Case(name, classname, 0, "unknown", List.of(), List.of("run failed: " + e), "(none)");
    }

    static void write(Path file, String suite, List<JunitXml.Case> cases) {
        try {
            JunitXml.write(file, suite, cases);
            System.err.println("faultline: JUnit XML " + file.toAbsolutePath());
        } catch (Exception e) {
            System.err.println("faultline: could not write " + file + ": " + e);
        }
    }
}
