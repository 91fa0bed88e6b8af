package io.faultline.harness;

import io.faultline.checker.history.HistoryReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** `faultline analyze RUN_DIR`: check a stored history again and rewrite its results and report; no cluster. */
@Command(name = "analyze", mixinStandardHelpOptions = true,
        description = "Re-check a stored run's history (no cluster) and rewrite results.json and report.html.")
final class AnalyzeCommand implements Callable<Integer> {
    @Parameters(paramLabel = "RUN_DIR", description = "A run folder, e.g. store/latest")
    Path runDir;

    @picocli.CommandLine.Option(names = "--edn", description = "Also rewrite history.edn (Jepsen's format).")
    boolean edn;

    @Override
    public Integer call() throws Exception {
        Path dir = runDir.toRealPath();
        var testJson = StoredRun.readTestJson(dir);
        var config = StoredRun.configOf(dir.resolve("test.json"), testJson);
        Path history = dir.resolve("history.jsonl");
        if (!Files.isRegularFile(history)) throw new IllegalArgumentException(dir + " has no history.jsonl");
        HistoryReader.Read read;
        try {
            read = HistoryReader.readWithCaveats(history);
        } catch (HistoryReader.MalformedHistoryException e) {
            throw new IllegalArgumentException(dir.resolve(e.getMessage()).toString()); // one line: file, line, what
        }
        var ops = read.ops();
        Path stored = dir.resolve("results.json");
        if (ops.isEmpty() && Files.isRegularFile(stored)) {
            // An empty history can only give `unknown`: never let it silently replace a verdict made from more.
            throw new IllegalArgumentException(history + " holds no operations; refusing to replace the stored "
                    + "results (verdict " + storedVerdict(stored) + "): results.json, report.html and plots unchanged");
        }
        var ending = RunAnalysis.Ending.ofStored(dir);
        var outcome = RunAnalysis.analyze(StoredRun.runDirOf(dir), config, testJson, ops, ending,
                StoredRun.startedAt(testJson), StoredRun.readClocks(dir), read.caveats(), edn);
        System.out.println("faultline: " + ops.size() + " ops checked: " + outcome.verdict().name().toLowerCase()
                + (outcome.caveats().isEmpty() ? "" : " (" + String.join("; ", outcome.caveats()) + ")")
                + "; report: " + dir.resolve("report.html"));
        return outcome.exitCode();
    }

    private static String storedVerdict(Path resultsJson) {
        try {
            String v = StoredRun.JSON.readTree(resultsJson.toFile()).path("verdict").asText("");
            return v.isEmpty() ? "not recorded" : v.toLowerCase(java.util.Locale.ROOT);
        } catch (java.io.IOException unreadable) {
            return "unreadable";
        }
    }
}
