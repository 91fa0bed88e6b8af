package io.faultline.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.faultline.results.CampaignInput;
import io.faultline.results.CampaignPage;
import io.faultline.results.JunitXml;
import io.faultline.results.RunStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * `campaign --shard` and `merge` without clusters: the split, the identity, and merges of shard stores whose
 * campaign.json is written by the same two calls the campaign command makes (its runs' folders hold a report only;
 * ShardedCampaignTest does the same with real runs).
 */
class CampaignMergeTest {
    /** 4 points: acks 1,all x unclean false,true. */
    private static final String[] MATRIX = {"--name", "grid", "--sut", "broker-impl", "--nodes", "1", "--rf", "1",
            "--min-isr", "1", "--acks", "1,all", "--unclean", "false,true", "--nemesis", "none"};

    @Test
    void shardsCoverEveryPointExactlyOnce() {
        for (int n = 1; n <= 5; n++) {
            for (int total = 0; total <= 11; total++) {
                List<Integer> all = new ArrayList<>();
                for (int i = 0; i < n; i++) all.addAll(new Shard(i, n).points(total));
                assertEquals(total, all.size(), n + " shards of " + total);
                assertEquals(total, new HashSet<>(all).size(), "no point twice: " + all);
            }
        }
        assertEquals(List.of(1, 4, 7), new Shard(1, 3).points(9));
        // --docker-hosts runs engine e's share exactly as --shard e/N would
        var hosts = new DockerHosts(List.of("unix:///a.sock", "unix:///b.sock", "unix:///c.sock"));
        for (int e = 0; e < 3; e++) assertEquals(new Shard(e, 3).points(10), hosts.shares(10).get(e));
    }

    @Test
    void badShardValuesAreOneLineErrorsBeforeAnythingRuns() {
        for (String bad : List.of("2/2", "-1/2", "1/0", "x", "1/two", "3")) {
            var r = CliTestSupport.run("campaign", "--seed", "1", "--shard", bad);
            assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode(), bad);
            assertEquals(1, r.err().strip().lines().count(), r.err());
            assertTrue(r.err().contains("--shard"), r.err());
        }
        var noSeed = CliTestSupport.run("campaign", "--shard", "0/2");
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, noSeed.exitCode());
        assertEquals("faultline: --shard needs --seed: every shard must derive the same matrix from the same campaign seed",
                noSeed.err().strip());
    }

    @Test
    void identityIsTheMatrixAndSeedNotWhereOrHowItRuns() {
        String base = identity(List.of("--seed", "5"));
        assertEquals(base, identity(List.of("--seed", "5", "--shard", "1/3", "--store", "elsewhere", "--junit-xml", "j.xml",
                "--docker-hosts", "unix:///x.sock")));
        assertNotEquals(base, identity(List.of("--seed", "6")));
        assertNotEquals(base, identity(List.of("--seed", "5", "--time-limit", "7")));
        CampaignCommand renamed = command(List.of("--seed", "5"));
        renamed.name = "other";
        assertNotEquals(base, CampaignShards.identity(renamed.name, 5, renamed.configurations(5)));
    }

    @Test
    void twoShardsMergeIntoTheUnshardedTableAndJunit(@TempDir Path tmp) throws Exception {
        List<String> verdicts = List.of("valid", "invalid", "valid", "unknown");
        Path whole = writeCampaign(tmp.resolve("whole"), Shard.WHOLE, 5, verdicts);
        writeCampaign(tmp.resolve("s0"), new Shard(0, 2), 5, verdicts);
        writeCampaign(tmp.resolve("s1"), new Shard(1, 2), 5, verdicts);

        Path out = tmp.resolve("merged");
        var r = CliTestSupport.run("merge", tmp.resolve("s1").toString(), tmp.resolve("s0").toString(), "--store",
                out.toString(), "--junit-xml", tmp.resolve("merged.xml").toString());
        assertEquals(FaultlineCli.EXIT_INVALID, r.exitCode(), "an invalid run makes the campaign invalid: " + r.err());
        Path page = onlyCampaign(out, "grid");
        assertEquals(table(whole), table(page), "same rows, in matrix order");
        // the runs were copied next to the page, so its links resolve in the merged store alone
        for (Object run : runs(page)) {
            String report = (String) ((Map<?, ?>) run).get("report");
            Path file = page.resolve(report).normalize();
            assertTrue(Files.isRegularFile(file), report);
            assertTrue(file.startsWith(out), file + " lies in " + out);
        }
        String junit = Files.readString(tmp.resolve("merged.xml"));
        assertEquals(4, count(junit, "<testcase "));
        assertEquals(1, count(junit, "<failure "));
        assertEquals(1, count(junit, "<error "));
        assertTrue(junit.indexOf("run 1 ") < junit.indexOf("run 2 ") && junit.indexOf("run 2 ") < junit.indexOf("run 3 "),
                "cases in matrix order: " + junit);
        assertTrue(Files.isRegularFile(page.resolveSibling("trend.html")));
    }

    @Test
    void aMissingShardIsShownMissingAndFailsTheMerge(@TempDir Path tmp) throws Exception {
        List<String> verdicts = List.of("valid", "valid", "valid", "valid");
        writeCampaign(tmp.resolve("s0"), new Shard(0, 2), 5, verdicts);
        Path out = tmp.resolve("merged");
        var r = CliTestSupport.run("merge", tmp.resolve("s0").toString(), "--store", out.toString(),
                "--junit-xml", tmp.resolve("merged.xml").toString());
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode());
        List<String> errors = r.err().lines().filter(l -> l.contains("missing")).toList();
        assertEquals(List.of("faultline: merge: 2 of 4 points missing, from shard(s) [1/2] (given: [0/2]); the page marks"
                + " them missing"), errors);
        Path page = onlyCampaign(out, "grid");
        assertEquals(List.of("0 valid", "1 missing", "2 valid", "3 missing"),
                table(page).stream().map(row -> row.get(0) + " " + row.get(2)).toList());
        String html = Files.readString(page.resolve("index.html"));
        assertTrue(html.contains("2 of 4 points of the matrix missing"), "banner");
        assertEquals(2, count(html, ">MISSING<"));
        assertEquals(2, count(Files.readString(tmp.resolve("merged.xml")), "<error "));

        var allowed = CliTestSupport.run("merge", tmp.resolve("s0").toString(), "--store", tmp.resolve("m2").toString(),
                "--allow-missing");
        assertEquals(FaultlineCli.EXIT_VALID, allowed.exitCode(), allowed.err());
    }

    @Test
    void shardsOfDifferentCampaignsAreRefusedInOneLine(@TempDir Path tmp) throws Exception {
        List<String> verdicts = List.of("valid", "valid", "valid", "valid");
        writeCampaign(tmp.resolve("s0"), new Shard(0, 2), 5, verdicts);
        writeCampaign(tmp.resolve("s1"), new Shard(1, 2), 6, verdicts);
        Path out = tmp.resolve("merged");
        var r = CliTestSupport.run("merge", tmp.resolve("s0").toString(), tmp.resolve("s1").toString(), "--store", out.toString());
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("faultline: merge: shards of different campaigns: campaign grid (identity "), r.err());
        assertTrue(r.err().contains("seed 5, shard 0/2") && r.err().contains("seed 6, shard 1/2"), r.err());
        assertFalse(Files.exists(out.resolve(RunStore.CAMPAIGNS)), "nothing written");
    }

    @Test
    void archivesMergeAndDuplicatesAreReported(@TempDir Path tmp) throws Exception {
        List<String> verdicts = List.of("valid", "valid", "valid", "valid");
        writeCampaign(tmp.resolve("s0"), new Shard(0, 2), 5, verdicts);
        writeCampaign(tmp.resolve("s1"), new Shard(1, 2), 5, verdicts);
        Path archive = tmp.resolve("s1.tar.gz");
        var tar = new ProcessBuilder("tar", "-czf", archive.toString(), "-C", tmp.toString(), "s1").redirectErrorStream(true).start();
        assertEquals(0, tar.waitFor(), new String(tar.getInputStream().readAllBytes()));
        var r = CliTestSupport.run("merge", tmp.resolve("s0").toString(), archive.toString(), tmp.resolve("s0").toString(),
                "--store", tmp.resolve("merged").toString());
        assertEquals(FaultlineCli.EXIT_VALID, r.exitCode(), r.err());
        assertEquals(2, r.err().lines().filter(l -> l.startsWith("faultline: merge: duplicate point ")).count(), r.err());
        assertEquals(4, table(onlyCampaign(tmp.resolve("merged"), "grid")).size());

        var notAStore = CliTestSupport.run("merge", tmp.toString() + "/nowhere", "--store", tmp.resolve("m3").toString());
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, notAStore.exitCode());
        assertEquals(1, notAStore.err().strip().lines().count(), notAStore.err());
    }

    // --- helpers ---

    private static CampaignCommand command(List<String> extra) {
        var c = new CampaignCommand();
        List<String> args = new ArrayList<>(List.of(MATRIX));
        args.addAll(extra);
        new CommandLine(c).parseArgs(args.toArray(String[]::new));
        return c;
    }

    private static String identity(List<String> extra) {
        var c = command(extra);
        return CampaignShards.identity(c.name, c.shape.seed, c.configurations(c.shape.seed));
    }

    /**
     * A store as `campaign --seed SEED [--shard]` leaves it: for each point of the shard a run folder with a report,
     * then the page with the campaign section (the same calls the command makes after its runs).
     */
    private static Path writeCampaign(Path store, Shard shard, long seed, List<String> verdicts) throws IOException {
        CampaignCommand c = command(List.of("--seed", Long.toString(seed)));
        List<TestConfig> configs = c.configurations(seed);
        var runStore = new RunStore(store);
        Instant started = Instant.parse("2026-12-01T20:00:00Z").plusSeconds(shard.index());
        List<CampaignInput.Run> runs = new ArrayList<>();
        Map<Integer, JunitXml.Case> done = new LinkedHashMap<>();
        for (int i : shard.points(configs.size())) {
            Path runDir = runStore.newRun(configs.get(i).testName(), started.plusSeconds(10L * i)).dir();
            Files.writeString(runDir.resolve("report.html"), "<html>run " + i + "</html>");
            String v = verdicts.get(i);
            runs.add(new CampaignInput.Run(CampaignCommand.describe(configs.get(i)), runDir, v,
                    Map.of("lost-write", v.equals("invalid") ? 3L : 0L), 0.9, 0.5, 20, i));
            done.put(i, new JunitXml.Case(CampaignCommand.caseName(i, configs.get(i)), "faultline.campaign.grid", 12, v,
                    v.equals("invalid") ? List.of("lost-write 3") : List.of(), v.equals("unknown") ? List.of("drain cut") : List.of(),
                    runDir.resolve("report.html").toString()));
        }
        List<CampaignShards.Point> matrix = new ArrayList<>();
        for (int i = 0; i < configs.size(); i++) {
            matrix.add(new CampaignShards.Point(i, CampaignCommand.caseName(i, configs.get(i)), CampaignCommand.describe(configs.get(i))));
        }
        String folder = shard.isWhole() ? c.name : CampaignCommand.shardName(c.name, shard);
        Path dir = runStore.newCampaign(folder, started);
        CampaignPage.write(new CampaignInput(c.name, started, runs).withDetails(CampaignShards.section(
                CampaignShards.identity(c.name, seed, configs), seed, shard, matrix, done)), dir);
        return dir;
    }

    static Path onlyCampaign(Path store, String name) throws IOException {
        try (Stream<Path> s = Files.list(store.resolve(RunStore.CAMPAIGNS).resolve(name))) {
            List<Path> dirs = s.filter(Files::isDirectory).toList();
            assertEquals(1, dirs.size(), dirs.toString());
            return dirs.get(0);
        }
    }

    static List<?> runs(Path campaignDir) throws IOException {
        return (List<?>) new ObjectMapper().readValue(campaignDir.resolve("campaign.json").toFile(), Map.class).get("runs");
    }

    /** Each run of a campaign.json as [point, configuration, verdict, anomaly counts]. */
    static List<List<Object>> table(Path campaignDir) throws IOException {
        List<List<Object>> out = new ArrayList<>();
        for (Object o : runs(campaignDir)) {
            Map<?, ?> r = (Map<?, ?>) o;
            out.add(List.of(r.get("point"), r.get("config"), r.get("verdict"), r.get("anomalyCounts")));
        }
        return out;
    }

    private static int count(String s, String needle) {
        return s.split(java.util.regex.Pattern.quote(needle), -1).length - 1;
    }
}
