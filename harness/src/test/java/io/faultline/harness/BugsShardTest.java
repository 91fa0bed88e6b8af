package io.faultline.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.faultline.checker.Verdict;
import io.faultline.results.BugsPage;
import io.faultline.results.RunStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * `bugs --shard I/N` and merging its shards, with the stand-in runner the hunt's own tests use (no Docker): every
 * run is "caught" when its bug's name has an even length, so the score is known in advance.
 */
class BugsShardTest {
    private static final BugHunt.Shape SHAPE = BugHunt.Shape.defaults(30);

    @Test
    void shardsSplitThePlanIntoDisjointPartsThatCoverIt() {
        BugHunt.Plan whole = BugHunt.plan(List.of(), 2, 1, SHAPE, 9);
        List<String> points = new ArrayList<>();
        List<TestConfig> configs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            BugHunt.Plan part = whole.shard(new Shard(i, 3));
            points.addAll(part.points());
            configs.addAll(part.allConfigs());
        }
        assertEquals(whole.points().size(), points.size());
        assertEquals(new HashSet<>(whole.points()), new HashSet<>(points));
        assertEquals(new HashSet<>(whole.allConfigs()), new HashSet<>(configs), "the same runs, with the same seeds");
        assertEquals(SeededBugCatalog.ALL.size() + whole.clean().size(), whole.points().size());
    }

    @Test
    void badShardOrNoSeedIsOneLine() {
        var r = CliTestSupport.run("bugs", "--shard", "0/2");
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode());
        assertEquals("faultline: --shard needs --seed: every shard must derive the same runs from the same seed", r.err().strip());
        var bad = CliTestSupport.run("bugs", "--seed", "1", "--shard", "2/2");
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, bad.exitCode());
        assertEquals(1, bad.err().strip().lines().count(), bad.err());
    }

    @Test
    void twoShardsMergeIntoTheWholeScoreAndAMissingOneIsShown(@TempDir Path tmp) throws Exception {
        Map<?, ?> whole = json(hunt(tmp.resolve("whole"), Shard.WHOLE, 9));
        hunt(tmp.resolve("s0"), new Shard(0, 2), 9);
        hunt(tmp.resolve("s1"), new Shard(1, 2), 9);

        var r = CliTestSupport.run("merge", tmp.resolve("s0").toString(), tmp.resolve("s1").toString(), "--store",
                tmp.resolve("merged").toString());
        assertEquals(FaultlineCli.EXIT_INVALID, r.exitCode(), "some bugs go undetected: " + r.err());
        Path mergedDir = onlyBugsDir(tmp.resolve("merged"));
        Map<?, ?> merged = json(mergedDir);
        for (String key : List.of("detected", "bugs", "falseAlarms")) assertEquals(whole.get(key), merged.get(key), key);
        assertEquals(names(whole), names(merged), "bugs in the plan's order");
        assertEquals(((List<?>) whole.get("clean")).size(), ((List<?>) merged.get("clean")).size());
        // every linked run was copied into the merged store
        for (Object b : (List<?>) merged.get("bugTable")) {
            for (Object a : (List<?>) ((Map<?, ?>) b).get("attempts")) {
                Path run = Path.of((String) ((Map<?, ?>) a).get("runDir"));
                assertTrue(run.startsWith(tmp.resolve("merged")) && Files.isRegularFile(run.resolve("report.html")), run.toString());
            }
        }

        var alone = CliTestSupport.run("merge", tmp.resolve("s1").toString(), "--store", tmp.resolve("partial").toString());
        assertEquals(FaultlineCli.EXIT_INVALID, alone.exitCode(), "a missing bug is not detected");
        List<String> missingLines = alone.err().lines().filter(l -> l.contains("missing")).toList();
        assertEquals(1, missingLines.size(), alone.err());
        Path partial = onlyBugsDir(tmp.resolve("partial"));
        List<?> missing = (List<?>) json(partial).get("missing");
        assertEquals(new BugHunt.Plan(9, BugHunt.plan(List.of(), 2, 1, SHAPE, 9).bugs(), BugHunt.plan(List.of(), 2, 1, SHAPE, 9).clean())
                .shard(new Shard(0, 2)).points(), missing);
        String html = Files.readString(partial.resolve(BugsPage.PAGE));
        assertTrue(html.contains("points missing, no shard reported them"), "banner");
        assertTrue(html.contains(">MISSING<"), "a missing bug is marked");
        assertEquals(names(whole), names(json(partial)), "missing bugs keep their rows");

        hunt(tmp.resolve("other"), new Shard(1, 2), 10);
        var mixed = CliTestSupport.run("merge", tmp.resolve("s0").toString(), tmp.resolve("other").toString(), "--store",
                tmp.resolve("never").toString());
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, mixed.exitCode());
        assertEquals(1, mixed.err().strip().lines().count(), mixed.err());
        assertTrue(mixed.err().startsWith("faultline: merge: shards of different bugs hunts: "), mixed.err());
    }

    /** A hunt (or shard of one) as `bugs --seed SEED [--shard]` leaves its store, with the stand-in runner. */
    private static Path hunt(Path store, Shard part, long seed) throws IOException {
        BugHunt.Plan whole = BugHunt.plan(List.of(), 2, 1, SHAPE, seed);
        var runStore = new RunStore(store);
        BugHunt.Runner runner = (c, mix) -> {
            Path dir = runStore.newRun(c.testName(), Instant.now()).dir();
            Files.writeString(dir.resolve("report.html"), "<html/>");
            boolean caught = SeededBugCatalog.switchedOn(c).stream().anyMatch(b -> b.length() % 2 == 0);
            return new TestRunner.Result(caught ? Verdict.INVALID : Verdict.VALID, dir, caught ? 1 : 0,
                    caught ? List.of("lost-write 1") : List.of(), List.of(), 3);
        };
        BugsPage.Input input = BugHunt.run(whole.shard(part), runner, new PrintStream(new ByteArrayOutputStream()), "2026-12-01T20:00:00Z");
        Path dir = store.resolve("bugs").resolve("20261201T200000.000");
        BugsPage.write(input.withDetails(BugsShards.section(CampaignShards.identity("bugs", seed, whole.allConfigs()), seed,
                part, whole.points(), input)), dir);
        return dir;
    }

    private static Path onlyBugsDir(Path store) throws IOException {
        try (Stream<Path> s = Files.list(store.resolve("bugs"))) {
            List<Path> dirs = s.toList();
            assertEquals(1, dirs.size(), dirs.toString());
            return dirs.get(0);
        }
    }

    private static Map<?, ?> json(Path bugsDir) throws IOException {
        return new ObjectMapper().readValue(bugsDir.resolve(BugsPage.JSON).toFile(), Map.class);
    }

    private static List<Object> names(Map<?, ?> json) {
        return ((List<?>) json.get("bugTable")).stream().map(b -> ((Map<?, ?>) b).get("name")).map(Object.class::cast).toList();
    }
}
