package io.faultline.harness;

import io.faultline.checker.observe.CoverageMap;
import io.faultline.checker.observe.Transition;
import io.faultline.results.RunStore;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A coverage map kept on disk across runs (a campaign's, in its folder, so one night's campaign continues the last):
 * each nightly run is planned from it when guided, and adds what its observer saw. Each run folder also gets
 * {@value #RUN_FILE}: the transitions seen and the compositions that ran, with the nodes their roles named.
 */
final class CoverageBook {
    static final String FILE = "coverage.json";
    static final String RUN_FILE = "transitions.json";

    private final Path file;
    private final CoverageMap map;

    CoverageBook(Path file) {
        this.file = file;
        this.map = CoverageMap.readOrEmpty(file);
    }

    /** A campaign's map: next to its dated folders, so every campaign of that name adds to it. */
    static CoverageBook ofCampaign(Path store, String campaignName) throws IOException {
        Path dir = store.resolve("campaigns").resolve(campaignName);
        Files.createDirectories(dir);
        return new CoverageBook(dir.resolve(FILE));
    }

    CoverageMap map() {
        return map;
    }

    Path file() {
        return file;
    }

    /** One run of the nightly mix: planned from the map when guided, recorded into it after. */
    record Run(TestRunner.Result result, CoverageMap.RunGrowth growth, int compositions) {}

    Run run(TestConfig config, NightlyMix.Spec spec, RunStore store, PrintStream err) throws IOException {
        return run(config, spec, store, err, null);
    }

    /** As above, running broker-impl from {@code brokerJar} when not null (`test --broker-jar`). */
    Run run(TestConfig config, NightlyMix.Spec spec, RunStore store, PrintStream err, Path brokerJar) throws IOException {
        NightlyMix.Spec used = spec.guided() ? spec.withCoverage(map.toJson()) : spec;
        AtomicReference<ComposedSchedule> made = new AtomicReference<>();
        var runner = new TestRunner(config, store, err, ComposedSchedule.factory(used, null, made::set));
        TestRunner.Result result = (brokerJar == null ? runner : runner.withBrokerJar(brokerJar)).run();
        ComposedSchedule schedule = made.get();
        if (schedule == null) return new Run(result, null, 0);
        CoverageMap.RunGrowth growth = record(result.runDir(), schedule);
        err.printf("faultline: coverage %d transition sequences (+%d new%s) after %s; %s%n", growth.total(), growth.added(),
                growth.examples().isEmpty() ? "" : ", e.g. " + growth.examples().get(0), result.runDir().getFileName(), file);
        return new Run(result, growth, schedule.executed().size());
    }

    /** Adds a finished run's observations to the map, writes the map and the run's {@value #RUN_FILE}. */
    CoverageMap.RunGrowth record(Path runDir, ComposedSchedule schedule) throws IOException {
        List<Transition> transitions = schedule.transitions();
        var growth = map.record(runDir.toString(), transitions, schedule.windows());
        if (file.getParent() != null) Files.createDirectories(file.getParent());
        map.write(file);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("transitions", transitions.stream().map(t -> Map.of("time-ns", t.timeNanos(), "kind", t.kind(),
                "where", t.where(), "detail", t.detail())).toList());
        out.put("compositions", schedule.executed().stream().map(e -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("index", e.composition().index());
            m.put("kind", e.composition().kind().id());
            m.put("choice", e.composition().choice());
            m.put("roles", e.roles().toString());
            m.put("start-ns", e.startNanos());
            m.put("end-ns", e.endNanos());
            m.put("ops", e.ops());
            return m;
        }).toList());
        out.put("coverage", Map.of("total", growth.total(), "new", growth.added(), "examples", growth.examples()));
        StoredRun.JSON.writerWithDefaultPrettyPrinter().writeValue(runDir.resolve(RUN_FILE).toFile(), out);
        return growth;
    }
}
