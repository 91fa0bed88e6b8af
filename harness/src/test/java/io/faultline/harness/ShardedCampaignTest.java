package io.faultline.harness;

import io.faultline.docker.DockerBacked;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A campaign of 4 points (acks 1,all x unclean false,true, no faults, 1-node broker-impl, 3 s of workload) run as 2
 * shards side by side, each in a process and a store of its own as on two machines, then merged: the merged table
 * equals the unsharded campaign's with the same seed (the same points, configurations and verdicts; the same run
 * count), and the JUnit XML has the same cases. Merging one shard alone is a one-line error and marks the other
 * shard's points missing.
 *
 * <p>Six short runs, two at once: only with {@code -Pshards} (about three minutes here).
 */
@DockerBacked
@EnabledIfSystemProperty(named = "faultline.shards", matches = "true")
class ShardedCampaignTest {
    private static final List<String> CAMPAIGN = List.of("campaign", "--name", "tiny", "--sut", "broker-impl",
            "--nodes", "1", "--rf", "1", "--min-isr", "1", "--acks", "1,all", "--unclean", "false,true", "--nemesis", "none",
            "--time-limit", "3", "--recovery", "1", "--drain", "10", "--rate", "20", "--concurrency", "2", "--keys", "1",
            "--seed", "7");

    @Test
    void twoShardsMergedGiveTheUnshardedTable(@TempDir Path tmp) throws Exception {
        List<Process> shards = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx512m", "-Dfaultline.projectRoot=" + System.getProperty("faultline.projectRoot", "."),
                    "-cp", System.getProperty("java.class.path"), FaultlineCli.class.getName()));
            cmd.addAll(CAMPAIGN);
            cmd.addAll(List.of("--shard", i + "/2", "--store", tmp.resolve("s" + i).toString()));
            shards.add(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(tmp.resolve("s" + i + ".log").toFile()).start());
        }
        for (int i = 0; i < 2; i++) {
            assertTrue(shards.get(i).waitFor(10, TimeUnit.MINUTES), "shard " + i + " ended");
            assertTrue(List.of(FaultlineCli.EXIT_VALID, FaultlineCli.EXIT_UNKNOWN_OR_ERROR).contains(shards.get(i).exitValue()),
                    Files.readString(tmp.resolve("s" + i + ".log")));
            assertEquals(2, CliTestSupport.runDirs(tmp.resolve("s" + i)).size(), "shard " + i + " ran half the points");
        }

        List<String> whole = new ArrayList<>(CAMPAIGN);
        whole.addAll(List.of("--store", tmp.resolve("whole").toString(), "--junit-xml", tmp.resolve("whole.xml").toString()));
        var unsharded = CliTestSupport.run(whole.toArray(String[]::new));

        var merge = CliTestSupport.run("merge", tmp.resolve("s0").toString(), tmp.resolve("s1").toString(), "--store",
                tmp.resolve("merged").toString(), "--junit-xml", tmp.resolve("merged.xml").toString());
        assertEquals(unsharded.exitCode(), merge.exitCode(), merge.err());
        Path mergedPage = CampaignMergeTest.onlyCampaign(tmp.resolve("merged"), "tiny");
        Path wholePage = CampaignMergeTest.onlyCampaign(tmp.resolve("whole"), "tiny");
        assertEquals(verdictTable(wholePage), verdictTable(mergedPage));
        assertEquals(4, verdictTable(mergedPage).size());
        assertEquals(CliTestSupport.runDirs(tmp.resolve("whole")).size(), CliTestSupport.runDirs(tmp.resolve("merged")).size(),
                "same run count");
        assertEquals(cases(tmp.resolve("whole.xml")), cases(tmp.resolve("merged.xml")));

        var alone = CliTestSupport.run("merge", tmp.resolve("s1").toString(), "--store", tmp.resolve("partial").toString());
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, alone.exitCode());
        assertEquals(List.of("faultline: merge: 2 of 4 points missing, from shard(s) [0/2] (given: [1/2]); the page marks"
                + " them missing"), alone.err().lines().filter(l -> l.contains("missing")).toList());
        assertEquals(List.of("missing", "missing"), CampaignMergeTest.table(CampaignMergeTest.onlyCampaign(tmp.resolve("partial"), "tiny"))
                .stream().filter(r -> r.get(2).equals("missing")).map(r -> r.get(2)).toList());
    }

    /** [point, configuration, verdict] of each row: anomaly counts and figures vary between two runs of a seed. */
    private static List<List<Object>> verdictTable(Path campaignDir) throws IOException {
        return CampaignMergeTest.table(campaignDir).stream().map(r -> r.subList(0, 3)).toList();
    }

    /** Each testcase's name and outcome (failure / error / pass). */
    private static List<String> cases(Path junit) throws IOException {
        List<String> out = new ArrayList<>();
        for (String c : Files.readString(junit).split("<testcase ")) {
            if (!c.startsWith("name=")) continue;
            String name = c.substring(6, c.indexOf('"', 6));
            out.add(name + (c.contains("<failure ") ? " failure" : c.contains("<error ") ? " error" : " pass"));
        }
        return out;
    }
}
