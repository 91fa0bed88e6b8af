package io.faultline.harness;

import com.fasterxml.jackson.databind.JsonNode;
import io.faultline.results.CampaignInput;
import io.faultline.results.JunitXml;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a campaign records about itself in campaign.json so that shards run on different machines can be merged:
 * the campaign's identity, its seed, its whole matrix (every point's configuration, also the points other shards
 * ran, so a merge can name the missing ones), which shard this was, and each point it ran with its JUnit case.
 *
 * <p>The identity is a hash of the campaign name and the full matrix, every point's configuration including the
 * run seed derived from the campaign seed. It is therefore fixed by the campaign-defining flags and the seed, and
 * untouched by --shard, --store, --junit-xml or --docker-hosts (where and how the points run).
 */
final class CampaignShards {
    /** The key of the section in campaign.json. */
    static final String SECTION = "campaign";

    private CampaignShards() {}

    /** One point of the matrix: its index, its JUnit case name, and its row on the campaign page. */
    record Point(int index, String caseName, Map<String, String> config) {}

    /** A point a shard ran: its JUnit case, and its page row unless the run broke before it had a report. */
    record Done(JunitXml.Case junit, CampaignInput.Run run) {}

    /** One shard's campaign.json, read back. */
    record Record(Path campaignDir, String name, Instant createdAt, String identity, long seed, Shard shard,
                  List<Point> matrix, Map<Integer, Done> done, boolean merged) {
        String describe() {
            return "campaign " + name + " (identity " + identity + ", seed " + seed + ", shard " + shard + ") in "
                    + campaignDir;
        }
    }

    static String identity(String name, long seed, List<TestConfig> matrix) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update(("faultline campaign\n" + name + "\n" + seed + "\n").getBytes(StandardCharsets.UTF_8));
            for (TestConfig c : matrix) md.update((StoredRun.JSON.writeValueAsString(c) + "\n").getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(md.digest(), 0, 8);
        } catch (NoSuchAlgorithmException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The section a campaign (sharded or not: then shard 0/1) adds to its campaign.json. */
    static Map<String, Object> section(String identity, long seed, Shard shard, List<Point> matrix, Map<Integer, JunitXml.Case> done) {
        List<Map<String, Object>> points = new ArrayList<>();
        for (Point p : matrix) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("point", p.index());
            m.put("case", p.caseName());
            m.put("config", p.config());
            points.add(m);
        }
        List<Map<String, Object>> ran = new ArrayList<>();
        new TreeMap<>(done).forEach((point, c) -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("point", point);
            m.put("verdict", c.verdict());
            m.put("seconds", c.seconds());
            m.put("anomalies", c.anomalies());
            m.put("caveats", c.caveats());
            ran.add(m);
        });
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("identity", identity);
        s.put("seed", seed);
        s.put("shard", shard.toString());
        s.put("points", matrix.size());
        // campaign.json sorts map keys: the column order of the page is kept here
        s.put("configKeys", matrix.isEmpty() ? List.of() : List.copyOf(matrix.get(0).config().keySet()));
        s.put("matrix", points);
        s.put("done", ran);
        return Map.of(SECTION, s);
    }

    /**
     * Reads a campaign folder's campaign.json; a file without the section (a campaign from before sharding, or not
     * a campaign) is one line saying so.
     */
    static Record read(Path campaignDir) throws IOException {
        Path file = campaignDir.resolve("campaign.json");
        JsonNode root;
        try {
            root = StoredRun.JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage().lines().findFirst().orElse(""));
        }
        JsonNode s = root.path(SECTION);
        if (!s.isObject() || !s.path("identity").isTextual()) {
            throw new IllegalArgumentException(file + " records no campaign identity (written by an older faultline?)");
        }
        String name = root.path("name").asText();
        Shard shard = Shard.parse(s.path("shard").asText());
        List<String> keys = new ArrayList<>();
        s.path("configKeys").forEach(k -> keys.add(k.asText()));
        List<Point> matrix = new ArrayList<>();
        for (JsonNode p : s.path("matrix")) {
            matrix.add(new Point(p.path("point").asInt(), p.path("case").asText(), ordered(p.path("config"), keys)));
        }
        Map<Integer, CampaignInput.Run> rows = new TreeMap<>();
        for (JsonNode r : root.path("runs")) {
            if (!r.path("point").isInt()) continue;
            int point = r.path("point").asInt();
            Path runDir = r.path("report").isTextual()
                    ? campaignDir.resolve(r.path("report").asText()).normalize().getParent() : null;
            Map<String, Long> counts = new LinkedHashMap<>();
            r.path("anomalyCounts").fields().forEachRemaining(e -> counts.put(e.getKey(), e.getValue().asLong()));
            rows.put(point, new CampaignInput.Run(ordered(r.path("config"), keys), runDir, r.path("verdict").asText(),
                    counts, number(r.path("availability")), number(r.path("availabilityDuringFaults")),
                    number(r.path("okOpsPerSecond")), point));
        }
        Map<Integer, Done> done = new TreeMap<>();
        for (JsonNode d : s.path("done")) {
            int point = d.path("point").asInt();
            if (point < 0 || point >= matrix.size()) {
                throw new IllegalArgumentException(file + " lists point " + point + " outside its matrix of " + matrix.size());
            }
            CampaignInput.Run run = rows.get(point);
            String report = run != null && run.runDir() != null ? run.runDir().resolve("report.html").toString() : "(none)";
            var junit = new JunitXml.Case(matrix.get(point).caseName(), "faultline.campaign." + name,
                    d.path("seconds").asDouble(), d.path("verdict").asText("unknown"), texts(d.path("anomalies")),
                    texts(d.path("caveats")), report);
            done.put(point, new Done(junit, run));
        }
        return new Record(campaignDir, name, Instant.parse(root.path("createdAt").asText()), s.path("identity").asText(),
                s.path("seed").asLong(), shard, matrix, done, s.has("merged"));
    }

    /**
     * Every campaign folder in {@code dir}: the folder itself when it holds a campaign.json, else the
     * campaigns/NAME/TIME folders of a store at most two folders down (an unpacked archive may wrap the store).
     */
    static List<Path> campaignDirs(Path dir) throws IOException {
        if (Files.isRegularFile(dir.resolve("campaign.json"))) return List.of(dir);
        try (var files = Files.walk(dir, 6)) {
            return files.filter(f -> f.getFileName().toString().equals("campaign.json") && Files.isRegularFile(f))
                    .map(Path::getParent)
                    .filter(c -> c.getParent() != null && c.getParent().getParent() != null
                            && c.getParent().getParent().getFileName().toString().equals(io.faultline.results.RunStore.CAMPAIGNS))
                    .sorted().toList();
        }
    }

    private static Map<String, String> ordered(JsonNode config, List<String> keys) {
        Map<String, String> all = new TreeMap<>();
        config.fields().forEachRemaining(e -> all.put(e.getKey(), e.getValue().asText()));
        Map<String, String> out = new LinkedHashMap<>();
        for (String k : keys) if (all.containsKey(k)) out.put(k, all.remove(k));
        out.putAll(all);
        return out;
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    /** Non-finite figures are stored as "NaN" strings. */
    private static double number(JsonNode n) {
        if (n.isNumber()) return n.asDouble();
        try {
            return Double.parseDouble(n.asText());
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}
