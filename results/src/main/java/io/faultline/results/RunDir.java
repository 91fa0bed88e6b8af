package io.faultline.results;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * One run's folder, store/&lt;test-name&gt;/&lt;timestamp&gt;/, and the paths of the files it holds. The files are
 * written by their owners (the history by the recorder, node folders by the cluster's collection, the report by
 * {@link HtmlReport}); this class only names them and writes the two JSON documents.
 */
public record RunDir(Path dir, String testName, String timestamp) {

    /** Present while the run is in progress; holds the pid of the JVM running it. */
    static final String RUNNING_MARKER = ".running";

    public Path testJson() {
        return dir.resolve("test.json");
    }

    public Path historyJsonl() {
        return dir.resolve("history.jsonl");
    }

    public Path historyEdn() {
        return dir.resolve("history.edn");
    }

    public Path resultsJson() {
        return dir.resolve("results.json");
    }

    public Path reportHtml() {
        return dir.resolve("report.html");
    }

    public Path faultlineLog() {
        return dir.resolve("faultline.log");
    }

    public Path plotsDir() {
        return dir.resolve("plots");
    }

    /** nodes/, with one folder per node: nodes/&lt;n&gt;/logs/*.log, nodes/&lt;n&gt;/console.log, data archives. */
    public Path nodesDir() {
        return dir.resolve("nodes");
    }

    public Path nodeDir(String node) {
        return nodesDir().resolve(RunStore.sanitize(node));
    }

    /** test.json: every parameter of the run, the seed, the versions of Faultline and of the system under test. */
    public void writeTestJson(Map<String, Object> parameters) throws IOException {
        Json.write(testJson(), parameters);
    }

    /**
     * results.json. Any Jackson-serialisable value; {@link RunResults} is the intended shape. The store reads its
     * top-level "verdict" to list runs. Writing it ends the run's "running" state.
     */
    public void writeResults(Object results) throws IOException {
        Json.write(resultsJson(), results);
        Files.deleteIfExists(dir.resolve(RUNNING_MARKER));
    }

    /** Adds (or replaces) one top-level entry of an existing results.json, keeping the rest as written. */
    @SuppressWarnings("unchecked")
    public void addToResults(String key, Object value) throws IOException {
        Map<String, Object> results = Json.MAPPER.readValue(resultsJson().toFile(), java.util.LinkedHashMap.class);
        results.put(key, value);
        Json.write(resultsJson(), results);
    }
}
