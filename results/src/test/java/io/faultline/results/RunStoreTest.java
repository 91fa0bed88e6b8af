package io.faultline.results;

import io.faultline.checker.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunStoreTest {

    @TempDir
    Path tmp;

    @Test
    void newRunCreatesTimestampedFolderAndMovesLatest() throws Exception {
        RunStore store = new RunStore(tmp.resolve("store"));
        RunDir a = store.newRun("queue-partition", Instant.parse("2026-11-03T10:00:00.123Z"));
        assertEquals(store.root().resolve("queue-partition/20261103T100000.123"), a.dir());
        assertTrue(Files.isDirectory(a.nodesDir()));
        assertEquals(a.dir(), store.latest().orElseThrow());
        assertTrue(Files.isSymbolicLink(store.root().resolve("latest")));

        RunDir b = store.newRun("queue-kill", Instant.parse("2026-11-03T11:00:00Z"));
        assertEquals(b.dir(), store.latest().orElseThrow());
        assertEquals(b.dir().toRealPath(), store.root().resolve("latest").toRealPath());

        RunDir same = store.newRun("queue-kill", Instant.parse("2026-11-03T11:00:00Z"));
        assertEquals("20261103T110000.000-1", same.timestamp(), "same millisecond: distinct folder");
    }

    @Test
    void listRunsNewestFirstWithVerdicts() throws Exception {
        RunStore store = new RunStore(tmp);
        RunDir old = store.newRun("t", Instant.parse("2026-01-01T00:00:00Z"));
        old.writeTestJson(Map.of("seed", 1, "acks", "all"));
        old.writeResults(new RunResults(Verdict.VALID, true, Map.of(), null));
        RunDir mid = store.newRun("other", Instant.parse("2026-01-02T00:00:00Z"));
        mid.writeResults(Map.of("verdict", "INVALID"));
        RunDir crashed = store.newRun("t", Instant.parse("2026-01-03T00:00:00Z"));
        Files.writeString(crashed.dir().resolve(RunDir.RUNNING_MARKER), "999999999"); // no such process
        store.newRun("t", Instant.parse("2026-01-04T00:00:00Z")); // this JVM: running

        List<RunStore.RunEntry> runs = store.listRuns();
        assertEquals(List.of("20260104T000000.000", "20260103T000000.000", "20260102T000000.000",
                "20260101T000000.000"), runs.stream().map(RunStore.RunEntry::timestamp).toList());
        assertEquals(List.of("running", "incomplete", "invalid", "valid"),
                runs.stream().map(RunStore.RunEntry::verdict).toList());
        assertEquals("other", runs.get(2).testName());

        String testJson = Files.readString(old.testJson());
        assertTrue(testJson.contains("\n") && testJson.contains("\"acks\" : \"all\""), "pretty-printed");
        assertTrue(Files.notExists(old.dir().resolve(RunDir.RUNNING_MARKER)), "results end the running state");
    }

    @Test
    void namesAreSingleSafeSegments() {
        assertEquals("a_b_.._c", RunStore.sanitize("a/b/../c"));
        assertEquals("test-__", RunStore.sanitize(".."));
        assertEquals("test-latest", RunStore.sanitize("latest"));
        assertEquals("test-", RunStore.sanitize(""));
    }

    @Test
    void campaignsAreListedNewestFirst() throws Exception {
        RunStore store = new RunStore(tmp);
        Path c1 = store.newCampaign("acks-grid", Instant.parse("2026-01-01T00:00:00Z"));
        Path c2 = store.newCampaign("acks-grid", Instant.parse("2026-02-01T00:00:00Z"));
        assertEquals(List.of(c2, c1), store.listCampaigns().stream().map(RunStore.CampaignEntry::dir).toList());
        assertTrue(store.listRuns().isEmpty(), "campaign folders are not runs");
    }
}
