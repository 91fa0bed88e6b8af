package io.faultline.harness;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Runs the CLI in this JVM and reads what a run left in the store. */
final class CliTestSupport {
    private CliTestSupport() {}

    record CliResult(int exitCode, String out, String err) {}

    static CliResult run(String... args) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        var cli = FaultlineCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new CliResult(code, out.toString(), err.toString());
    }

    /** Every run folder (store/<test>/<timestamp>) under a store. */
    static List<Path> runDirs(Path store) throws IOException {
        try (Stream<Path> s = Files.walk(store, 2)) {
            return s.filter(p -> !Files.isSymbolicLink(p) && Files.isRegularFile(p.resolve("test.json"))).sorted().toList();
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> results(Path runDir) throws IOException {
        return new ObjectMapper().readValue(runDir.resolve("results.json").toFile(), Map.class);
    }
}
