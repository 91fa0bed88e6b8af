package io.faultline.checker.observe;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which sequences of abstract transitions a series of runs has seen (Mallory's coverage, over metadata states): the
 * n-grams (n = 1..{@link #MAX_N}) of each run's transition kinds in time order, with how often each was seen; per
 * fault composition, how often it ran and how many n-grams it was the first to show; and each run's growth. Mutable;
 * read and written as JSON so a campaign keeps it from one run (and one night) to the next.
 */
public final class CoverageMap {
    /** The longest sequence counted. */
    public static final int MAX_N = 3;
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final TreeMap<String, Long> grams = new TreeMap<>();
    private final TreeMap<String, CompositionStats> compositions = new TreeMap<>();
    private final List<RunGrowth> runs = new ArrayList<>();

    /**
     * One composition's record: runs of it, n-grams first seen while it ran (or just after), n-grams it showed.
     */
    public record CompositionStats(@JsonProperty("tries") long tries, @JsonProperty("discoveries") long discoveries,
                                   @JsonProperty("grams") Map<String, Long> grams) {
        public CompositionStats {
            grams = new TreeMap<>(grams == null ? Map.of() : grams);
        }
    }

    /** One run's contribution: n-grams known after it, how many were new, and which (up to 20, for the page). */
    public record RunGrowth(@JsonProperty("run") String run, @JsonProperty("total") int total,
                            @JsonProperty("new") int added, @JsonProperty("examples") List<String> examples) {
        public RunGrowth {
            examples = examples == null ? List.of() : List.copyOf(examples);
        }
    }

    /** A composition's time window in a run (its first op to its last, plus the settling after). */
    public record Window(String composition, long startNanos, long endNanos) {}

    /** The n-grams (1..MAX_N) of a sequence of kinds, each joined by " > ", in order of first appearance. */
    public static List<String> gramsOf(List<String> kinds) {
        Set<String> out = new LinkedHashSet<>();
        for (int i = 0; i < kinds.size(); i++) {
            StringBuilder b = new StringBuilder();
            for (int n = 1; n <= MAX_N && i + n <= kinds.size(); n++) {
                if (n > 1) b.append(" > ");
                b.append(kinds.get(i + n - 1));
                out.add(b.toString());
            }
        }
        return List.copyOf(out);
    }

    /**
     * A run's transitions as a sequence of kinds: those of one poll (one time) once each, in name order, and a kind
     * repeated back to back once. One poll that sees eight partitions shrink their ISR is one state change of the
     * cluster ({@code isr-shrink}), not eight, so the n-grams count orders of distinct changes.
     */
    public static List<String> sequence(List<Transition> transitions) {
        List<Transition> sorted = transitions.stream().sorted(java.util.Comparator.comparingLong(Transition::timeNanos)).toList();
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < sorted.size()) {
            long t = sorted.get(i).timeNanos();
            java.util.TreeSet<String> poll = new java.util.TreeSet<>();
            for (; i < sorted.size() && sorted.get(i).timeNanos() == t; i++) poll.add(sorted.get(i).kind());
            for (String k : poll) if (out.isEmpty() || !out.get(out.size() - 1).equals(k)) out.add(k);
        }
        return out;
    }

    /** How often this n-gram was seen (0: never). */
    public long count(String gram) {
        return grams.getOrDefault(gram, 0L);
    }

    public int size() {
        return grams.size();
    }

    /** The record of this composition (zero tries if it never ran). */
    public CompositionStats composition(String name) {
        return compositions.getOrDefault(name, new CompositionStats(0, 0, Map.of()));
    }

    /** Runs of every composition together. */
    public long totalTries() {
        return compositions.values().stream().mapToLong(CompositionStats::tries).sum();
    }

    public List<RunGrowth> runs() {
        return List.copyOf(runs);
    }

    public Map<String, Long> grams() {
        return java.util.Collections.unmodifiableMap(grams);
    }

    /**
     * Adds one run: its transitions (as a {@link #sequence}) and its compositions' windows. A composition is credited with the
     * n-grams of the transitions inside its window, and with a discovery for each of those the map did not hold
     * before this run. Returns the run's growth.
     */
    public RunGrowth record(String run, List<Transition> transitions, List<Window> windows) {
        Set<String> before = Set.copyOf(grams.keySet());
        List<String> kinds = sequence(transitions);
        List<String> runGrams = gramsOf(kinds);
        List<String> added = new ArrayList<>();
        for (String g : runGrams) {
            if (!before.contains(g)) added.add(g);
        }
        // counts: every occurrence, not only distinct ones
        countOccurrences(kinds);
        for (Window w : windows) {
            List<String> inside = sequence(transitions.stream().filter(t -> t.timeNanos() >= w.startNanos() && t.timeNanos() <= w.endNanos())
                    .toList());
            List<String> wg = gramsOf(inside);
            CompositionStats s = composition(w.composition());
            Map<String, Long> g = new TreeMap<>(s.grams());
            wg.forEach(x -> g.merge(x, 1L, Long::sum));
            long found = wg.stream().filter(x -> !before.contains(x)).count();
            compositions.put(w.composition(), new CompositionStats(s.tries() + 1, s.discoveries() + found, g));
        }
        RunGrowth growth = new RunGrowth(run, grams.size(), added.size(), added.subList(0, Math.min(20, added.size())));
        runs.add(growth);
        return growth;
    }

    private void countOccurrences(List<String> kinds) {
        for (int i = 0; i < kinds.size(); i++) {
            StringBuilder b = new StringBuilder();
            for (int n = 1; n <= MAX_N && i + n <= kinds.size(); n++) {
                if (n > 1) b.append(" > ");
                b.append(kinds.get(i + n - 1));
                grams.merge(b.toString(), 1L, Long::sum);
            }
        }
    }

    /** The stored form. */
    record Stored(@JsonProperty("format") String format, @JsonProperty("grams") Map<String, Long> grams,
                  @JsonProperty("compositions") Map<String, CompositionStats> compositions,
                  @JsonProperty("runs") List<RunGrowth> runs) {}

    static final String FORMAT = "faultline-coverage/1";

    public Map<String, Object> toJson() {
        return JSON.convertValue(new Stored(FORMAT, grams, compositions, runs), Map.class);
    }

    public static CoverageMap fromJson(Map<String, Object> json) {
        Stored s = JSON.convertValue(json, Stored.class);
        if (!FORMAT.equals(s.format())) throw new IllegalArgumentException("not a coverage map (format " + s.format() + ")");
        CoverageMap m = new CoverageMap();
        if (s.grams() != null) m.grams.putAll(s.grams());
        if (s.compositions() != null) m.compositions.putAll(s.compositions());
        if (s.runs() != null) m.runs.addAll(s.runs());
        return m;
    }

    /** A copy, so a plan can be made from a snapshot while the original keeps growing. */
    public CoverageMap copy() {
        return fromJson(toJson());
    }

    public void write(Path file) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        JSON.writeValue(tmp.toFile(), toJson());
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** The map stored in {@code file}, or an empty one when there is none; a damaged file is one clear error. */
    @SuppressWarnings("unchecked")
    public static CoverageMap readOrEmpty(Path file) {
        if (!Files.isRegularFile(file)) return new CoverageMap();
        try {
            return fromJson(JSON.readValue(file.toFile(), Map.class));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": not a readable coverage map (" + e.getMessage() + ")");
        }
    }
}
