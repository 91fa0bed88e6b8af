package io.faultline.results;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How a run's fault packages are named, coloured and bounded in its history: which op functions open a band of a
 * package and which close it. A run writes its vocabulary (test.json's "faults", from the nemesis' own packages)
 * and the report reads it from there, so the report never needs its own copy of the nemesis' names. Op functions
 * no package claims fall back to the generic convention: "start-X" opens X, "stop-X" closes it.
 */
public record FaultVocabulary(List<Entry> packages) {

    /** One fault package: its name, band colour ("#rrggbb") and the op functions that open and close its bands. */
    public record Entry(String name, String colour, Set<String> opens, Set<String> closes) {
        public Entry {
            Objects.requireNonNull(name, "name");
            opens = Set.copyOf(opens);
            closes = Set.copyOf(closes);
        }
    }

    /** Colours for packages the vocabulary does not colour, picked by name so they are stable. */
    static final List<String> FALLBACK_COLOURS = List.of("#2ca02c", "#bcbd22", "#17becf", "#e377c2", "#ff7f0e");

    /**
     * For runs written before runs recorded their vocabulary, and for pages built without a run folder: the
     * nemesis' names as they were when this fallback was written.
     */
    public static final FaultVocabulary FALLBACK = new FaultVocabulary(List.of(
            new Entry("partition", "#e6550d", Set.of("start-partition"), Set.of("stop-partition")),
            new Entry("kill", "#d62728", Set.of("kill"), Set.of("start")),
            new Entry("stop", "#7f7f7f", Set.of("stop"), Set.of("start")),
            new Entry("pause", "#9467bd", Set.of("pause"), Set.of("resume")),
            new Entry("clock", "#1f77b4", Set.of("bump-clock", "strobe-clock"), Set.of("reset-clock")),
            new Entry("disk", "#8c564b", Set.of(), Set.of())));

    public FaultVocabulary {
        packages = List.copyOf(packages);
    }

    /** The package whose band {@code f} opens, or null. */
    public String opens(String f) {
        for (Entry e : packages) if (e.opens().contains(f)) return e.name();
        if (f.startsWith("start-") && f.length() > 6) return f.substring(6);
        return null;
    }

    /** The packages whose bands {@code f} closes (one start heals both killed and stopped nodes). */
    public List<String> closes(String f) {
        List<String> out = new ArrayList<>();
        for (Entry e : packages) if (e.closes().contains(f)) out.add(e.name());
        if (out.isEmpty() && f.startsWith("stop-") && f.length() > 5) out.add(f.substring(5));
        return out;
    }

    /** The package's colour: the vocabulary's, else a stable pick from a small palette. */
    public String colourOf(String pkg) {
        for (Entry e : packages) if (e.name().equals(pkg) && e.colour() != null) return e.colour();
        return FALLBACK_COLOURS.get(Math.floorMod(pkg.hashCode(), FALLBACK_COLOURS.size()));
    }

    /** Package → colour, for every package the vocabulary colours. */
    public Map<String, String> colours() {
        Map<String, String> out = new LinkedHashMap<>();
        for (Entry e : packages) if (e.colour() != null) out.put(e.name(), e.colour());
        return out;
    }

    /** The form written into test.json's "faults": name, colour, opens, closes. */
    public List<Map<String, Object>> toJson() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Entry e : packages) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", e.name());
            m.put("colour", e.colour());
            m.put("opens", new ArrayList<>(new java.util.TreeSet<>(e.opens())));
            m.put("closes", new ArrayList<>(new java.util.TreeSet<>(e.closes())));
            out.add(m);
        }
        return out;
    }

    /**
     * Reads what {@link #toJson} wrote (test.json's "faults"); null when it is absent or not of that shape, so the
     * caller falls back (an old run). An entry without a valid "#rrggbb" colour keeps the palette's.
     */
    public static FaultVocabulary fromJson(Object json) {
        if (!(json instanceof List<?> list)) return null;
        List<Entry> out = new ArrayList<>();
        for (Object o : list) {
            if (!(o instanceof Map<?, ?> m) || !(m.get("name") instanceof String name)) return null;
            Object c = m.get("colour");
            String colour = c instanceof String s && s.matches("#[0-9A-Fa-f]{6}") ? s : null;
            out.add(new Entry(name, colour, strings(m.get("opens")), strings(m.get("closes"))));
        }
        return new FaultVocabulary(out);
    }

    private static Set<String> strings(Object o) {
        Set<String> out = new LinkedHashSet<>();
        if (o instanceof List<?> l) for (Object x : l) if (x instanceof String s) out.add(s);
        return out;
    }
}
