package io.faultline.harness;

import com.fasterxml.jackson.databind.JsonNode;
import io.faultline.results.BugsPage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * `bugs --shard I/N` and its merge: what a shard records in bugs.json (the hunt's identity, seed, shard, every
 * point of the whole plan, and the points it ran), reading that back, and joining shards into one score where a
 * point no shard ran is missing — a missing bug counts as not detected.
 */
final class BugsShards {
    static final String SECTION = "hunt";

    private BugsShards() {}

    /** One shard's bugs.json: its folder, identity, seed, shard, the whole plan's points, and its bugs and mixes. */
    record Record(Path dir, String startedAt, String identity, long seed, Shard shard, List<String> points,
                  Map<String, BugsPage.Bug> bugs, Map<String, BugsPage.Clean> clean, boolean merged) {
        String describe() {
            return "bugs hunt (identity " + identity + ", seed " + seed + ", shard " + shard + ") in " + dir;
        }
    }

    static Map<String, Object> section(String identity, long seed, Shard shard, List<String> points, BugsPage.Input ran) {
        List<String> done = new ArrayList<>();
        ran.bugs().stream().filter(b -> !b.attempts().isEmpty()).forEach(b -> done.add(BugHunt.bugPoint(b.name())));
        ran.clean().stream().filter(c -> !c.attempts().isEmpty()).forEach(c -> done.add(BugHunt.cleanPoint(c.mix())));
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("identity", identity);
        s.put("seed", seed);
        s.put("shard", shard.toString());
        s.put("points", points);
        s.put("done", done);
        return Map.of(SECTION, s);
    }

    /** Every bugs folder (holding a bugs.json) in {@code dir}, at most a few folders down. */
    static List<Path> bugsDirs(Path dir) throws IOException {
        try (var files = Files.walk(dir, 5)) {
            return files.filter(f -> f.getFileName().toString().equals(BugsPage.JSON) && Files.isRegularFile(f))
                    .map(Path::getParent).sorted().toList();
        }
    }

    /**
     * Reads a shard's bugs.json; null when it records no hunt section (an unsharded hunt from before sharding). Run
     * folders are re-based on the store the file lies in (STORE/bugs/TIME/bugs.json): the paths recorded are those
     * of the machine the shard ran on.
     */
    static Record read(Path dir) throws IOException {
        JsonNode root = StoredRun.JSON.readTree(dir.resolve(BugsPage.JSON).toFile());
        JsonNode s = root.path(SECTION);
        if (!s.isObject() || !s.path("identity").isTextual()) return null;
        Path store = dir.toAbsolutePath().normalize().getParent().getParent();
        UnaryOperator<String> rebase = runDir -> {
            if (runDir == null) return null;
            Path p = Path.of(runDir);
            int n = p.getNameCount();
            return n < 2 ? runDir : store.resolve(p.getName(n - 2).toString()).resolve(p.getName(n - 1).toString()).toString();
        };
        Map<String, BugsPage.Bug> bugs = new LinkedHashMap<>();
        for (JsonNode b : root.path("bugTable")) {
            String name = b.path("name").asText();
            String mistake = SeededBugCatalog.ALL.stream().filter(e -> e.name().equals(name)).map(SeededBugCatalog.Entry::mistake)
                    .findFirst().orElse("");
            bugs.put(BugHunt.bugPoint(name), new BugsPage.Bug(name, mistake, b.path("mix").asText(), attempts(b.path("attempts"), rebase)));
        }
        Map<String, BugsPage.Clean> clean = new LinkedHashMap<>();
        for (JsonNode c : root.path("clean")) {
            String mix = c.path("mix").asText();
            clean.put(BugHunt.cleanPoint(mix), new BugsPage.Clean(mix, attempts(c.path("attempts"), rebase)));
        }
        List<String> points = new ArrayList<>();
        s.path("points").forEach(p -> points.add(p.asText()));
        List<String> done = new ArrayList<>();
        s.path("done").forEach(p -> done.add(p.asText()));
        bugs.keySet().retainAll(done);
        clean.keySet().retainAll(done);
        return new Record(dir, root.path("startedAt").asText(), s.path("identity").asText(), s.path("seed").asLong(),
                Shard.parse(s.path("shard").asText()), points, bugs, clean, s.has("merged"));
    }

    private static List<BugsPage.Attempt> attempts(JsonNode array, UnaryOperator<String> rebase) {
        List<BugsPage.Attempt> out = new ArrayList<>();
        for (JsonNode a : array) {
            List<String> anomalies = new ArrayList<>();
            a.path("anomalies").forEach(x -> anomalies.add(x.asText()));
            out.add(new BugsPage.Attempt(a.path("seed").asLong(), a.path("verdict").asText("unknown"), anomalies,
                    rebase.apply(a.path("runDir").isTextual() ? a.path("runDir").asText() : null), a.path("seconds").asDouble()));
        }
        return out;
    }

    /**
     * The shards joined in plan order: each point from the first shard that ran it; a point none ran is missing (a
     * bug without attempts, not detected). Shards of different hunts are one line, naming both.
     */
    static BugsPage.Input merge(List<Record> shards, List<String> duplicates) {
        Record first = shards.get(0);
        for (Record r : shards) {
            if (!r.identity().equals(first.identity())) {
                throw new IllegalArgumentException("merge: shards of different bugs hunts: " + first.describe() + " vs " + r.describe());
            }
        }
        List<BugsPage.Bug> bugs = new ArrayList<>();
        List<BugsPage.Clean> clean = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (String point : first.points()) {
            Record from = null;
            for (Record r : shards) {
                if (!r.bugs().containsKey(point) && !r.clean().containsKey(point)) continue;
                if (from == null) from = r;
                else duplicates.add(point + " is in shard " + from.shard() + " at " + from.dir() + " and in shard "
                        + r.shard() + " at " + r.dir() + "; kept the first");
            }
            if (from != null && from.bugs().containsKey(point)) bugs.add(from.bugs().get(point));
            else if (from != null) clean.add(from.clean().get(point));
            else {
                missing.add(point);
                if (point.startsWith("bug ")) {
                    String name = point.substring(4);
                    bugs.add(new BugsPage.Bug(name, SeededBugCatalog.ALL.stream().filter(e -> e.name().equals(name))
                            .map(SeededBugCatalog.Entry::mistake).findFirst().orElse(""), "–", List.of()));
                }
            }
        }
        String startedAt = shards.stream().map(Record::startedAt).min(String::compareTo).orElse("");
        long detected = bugs.stream().filter(BugsPage.Bug::detected).count();
        return new BugsPage.Input("Seeded bugs: " + detected + " of " + bugs.size() + " detected", startedAt, first.seed(),
                bugs, clean, missing, Map.of());
    }
}
