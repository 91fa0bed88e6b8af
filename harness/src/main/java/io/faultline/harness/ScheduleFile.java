package io.faultline.harness;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.faultline.nemesis.Schedule;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A fault schedule as a file: the test's parameters (seed included) and which of its fault cycles to keep. Every
 * run writes its own as schedule.json (all cycles); `shrink` writes a smaller one; `replay --schedule FILE` runs
 * one. The planned faults are listed for people to read; what a replay runs is recomputed from the seed and the
 * kept cycles, so the file cannot drift from the scheduler.
 *
 * @param cycles  the kept cycles, or null for every cycle of the seed's schedule
 * @param faults  the kept faults as planned: cycle, time, package, op and value
 * @param origin  where the file came from (the run it was recorded or shrunk from), free text
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record ScheduleFile(@JsonProperty("format") String format, @JsonProperty("parameters") Map<String, Object> parameters,
                    @JsonProperty("cycles") List<Integer> cycles, @JsonProperty("faults") List<Fault> faults,
                    @JsonProperty("origin") String origin) {
    static final String FORMAT = "faultline-schedule/1";
    static final String RUN_FILE = "schedule.json";

    /** One planned op of a kept cycle, as text. */
    record Fault(@JsonProperty("cycle") int cycle, @JsonProperty("at-ms") long atMillis,
                 @JsonProperty("package") String packageName, @JsonProperty("role") String role,
                 @JsonProperty("f") String f, @JsonProperty("value") String value) {
        static Fault of(Schedule.PlannedOp p) {
            return new Fault(p.cycle(), p.atMillis(), p.packageName(), p.role().name().toLowerCase(), p.op().f(),
                    p.op().describeValue());
        }
    }

    ScheduleFile {
        if (!FORMAT.equals(format)) throw new IllegalArgumentException("not a Faultline schedule file (format " + format + ")");
        if (parameters == null) throw new IllegalArgumentException("schedule file without parameters");
        parameters = new LinkedHashMap<>(parameters);
        cycles = cycles == null ? null : List.copyOf(new TreeSet<>(cycles));
        faults = faults == null ? List.of() : List.copyOf(faults);
    }

    static ScheduleFile of(TestConfig config, Set<Integer> cycles, List<Schedule.PlannedOp> plan, String origin) {
        List<Fault> faults = new ArrayList<>();
        for (Schedule.PlannedOp p : plan) {
            if (cycles == null || cycles.contains(p.cycle())) faults.add(Fault.of(p));
        }
        return new ScheduleFile(FORMAT, config.asMap(), cycles == null ? null : new ArrayList<>(cycles), faults, origin);
    }

    /** This schedule keeping only the given cycles, with a new origin. */
    ScheduleFile keeping(Set<Integer> kept, String newOrigin) {
        List<Fault> left = faults.stream().filter(f -> kept.contains(f.cycle())).toList();
        return new ScheduleFile(FORMAT, parameters, new ArrayList<>(kept), left, newOrigin);
    }

    TestConfig config() {
        return TestConfig.fromMap(parameters);
    }

    /** The kept cycles, or null for all. */
    Set<Integer> cycleSet() {
        return cycles == null ? null : new TreeSet<>(cycles);
    }

    /** The distinct fault cycles listed, in order (what shrinking chooses among). */
    List<Integer> faultCycles() {
        return faults.stream().filter(f -> f.role().equals("fault")).map(Fault::cycle).distinct().toList();
    }

    void write(Path file) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        StoredRun.JSON.writeValue(tmp.toFile(), this);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    static ScheduleFile read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException("no schedule file " + file);
        try {
            return StoredRun.JSON.readValue(file.toFile(), ScheduleFile.class);
        } catch (com.fasterxml.jackson.databind.JsonMappingException e) {
            Throwable cause = e.getCause() instanceof IllegalArgumentException iae ? iae : e;
            throw new IllegalArgumentException(file + ": " + cause.getMessage());
        }
    }
}
