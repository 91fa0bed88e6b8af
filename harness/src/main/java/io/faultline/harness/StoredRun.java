package io.faultline.harness;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.faultline.nemesis.FaultPackage;
import io.faultline.nemesis.FaultPackages;
import io.faultline.results.FaultVocabulary;
import io.faultline.results.ReportInput;
import io.faultline.results.RunDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * test.json and clocks.json of a run: what `analyze` and `replay` read back. test.json holds the test name,
 * the start time, versions and every parameter (seed included) under "parameters".
 */
final class StoredRun {
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    static final String CLOCKS = "clocks.json";
    /** test.json's fault vocabulary: each package's name, colour and the op functions opening and closing it. */
    static final String FAULTS = "faults";
    /** test.json's configs of the workload's key topics, as created (absent in runs stored before 6 December 2026). */
    static final String TOPIC_CONFIGS = "topic-configs";

    private StoredRun() {}

    static Map<String, Object> testJson(String testName, TestConfig config, Instant startedAt, String sutVersion) {
        var m = new LinkedHashMap<String, Object>();
        m.put("test-name", testName);
        m.put("started-at", startedAt.toString());
        m.put("seed", config.seed());
        m.put("versions", Map.of("faultline", FaultlineVersion.get(), "sut", config.sut() + " " + sutVersion,
                "kafka-clients", org.apache.kafka.common.utils.internals.AppInfoParser.getVersion(),
                "java", System.getProperty("java.version")));
        m.put("parameters", config.asMap());
        var topicConfigs = Workloads.queueTopicConfigs(config);
        if (!topicConfigs.isEmpty()) m.put(TOPIC_CONFIGS, new java.util.TreeMap<>(topicConfigs));
        m.put(FAULTS, vocabularyOf(FaultPackages.legends()).toJson());
        return m;
    }

    /** The nemesis packages' legends as the report's vocabulary. */
    static FaultVocabulary vocabularyOf(List<FaultPackage.Legend> legends) {
        return new FaultVocabulary(legends.stream()
                .map(l -> new FaultVocabulary.Entry(l.name(), l.colour(), l.faultFs(), l.healFs())).toList());
    }

    /** The vocabulary the run wrote; for a run older than that, the nemesis packages' current one. */
    static FaultVocabulary vocabulary(Map<String, Object> testJson) {
        FaultVocabulary written = FaultVocabulary.fromJson(testJson.get(FAULTS));
        return written != null ? written : vocabularyOf(FaultPackages.legends());
    }

    static Map<String, Object> readTestJson(Path runDir) throws IOException {
        Path file = runDir.resolve("test.json");
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException(runDir + " has no test.json: not a run folder");
        try {
            Map<String, Object> m = JSON.readValue(file.toFile(), new TypeReference<LinkedHashMap<String, Object>>() {});
            if (m == null) throw new IllegalArgumentException(file + ": empty, expected a JSON object");
            return m;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            var at = e.getLocation();
            String msg = e.getOriginalMessage() == null ? e.getClass().getSimpleName() : e.getOriginalMessage();
            msg = msg.lines().findFirst().orElse("");
            throw new IllegalArgumentException(file + (at == null ? "" : " line " + at.getLineNr()) + ": not valid JSON ("
                    + (msg.length() > 160 ? msg.substring(0, 160) + "…" : msg) + ")");
        }
    }

    /** The run's configuration; a missing or malformed "parameters" object is one clear line naming the file. */
    static TestConfig configOf(Map<String, Object> testJson) {
        return configOf(Path.of("test.json"), testJson);
    }

    @SuppressWarnings("unchecked")
    static TestConfig configOf(Path file, Map<String, Object> testJson) {
        if (!(testJson.get("parameters") instanceof Map<?, ?> params)) {
            throw new IllegalArgumentException(file + ": no \"parameters\" object (not a Faultline run, or written by a "
                    + "version that stored its settings differently)");
        }
        try {
            return TestConfig.fromMap((Map<String, Object>) params);
        } catch (ClassCastException | NullPointerException e) {
            throw new IllegalArgumentException(file + ": \"parameters\" is missing a setting or has one of the wrong "
                    + "type (" + e.getMessage() + ")");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage());
        }
    }

    /** test.json's key for the wall-clock time of history time 0 (the recorder starts after the cluster is up). */
    static final String HISTORY_ORIGIN = "history-origin";

    /**
     * The wall-clock time of history time 0, which the report uses to match node log lines to ops: the recorded
     * origin, or for runs older than that record, the run's start (their log matching is off by the cluster start).
     */
    static Instant startedAt(Map<String, Object> testJson) {
        Object s = testJson.getOrDefault(HISTORY_ORIGIN, testJson.get("started-at"));
        return s == null ? Instant.EPOCH : Instant.parse(s.toString());
    }

    static RunDir runDirOf(Path dir) {
        Path abs = dir.toAbsolutePath().normalize();
        return new RunDir(abs, abs.getParent().getFileName().toString(), abs.getFileName().toString());
    }

    static void writeClocks(Path runDir, Map<String, List<ReportInput.ClockPoint>> clocks) throws IOException {
        JSON.writeValue(runDir.resolve(CLOCKS).toFile(), clocks);
    }

    static Map<String, List<ReportInput.ClockPoint>> readClocks(Path runDir) {
        Path file = runDir.resolve(CLOCKS);
        if (!Files.isRegularFile(file)) return Map.of();
        try {
            return JSON.readValue(file.toFile(), new TypeReference<LinkedHashMap<String, List<ReportInput.ClockPoint>>>() {});
        } catch (IOException e) {
            return Map.of();
        }
    }
}
