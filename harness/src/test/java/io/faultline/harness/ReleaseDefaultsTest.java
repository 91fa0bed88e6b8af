package io.faultline.harness;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A setting the run does not state is the release's own default, and the run says so (issue 24). */
class ReleaseDefaultsTest {
    private static final String UNCLEAN = "unclean.leader.election.enable";

    private static TestConfig config(String sut, Boolean unclean) {
        var o = new TestOptions();
        o.shape.sut = sut;
        o.shape.seed = 5L;
        o.unclean = unclean;
        return o.toConfig();
    }

    @Test
    void anUnstatedUncleanElectionIsTheReleasesOwnAndIsNotWritten() {
        TestConfig old = config("apache-kafka:0.10.2.1", null);
        assertNull(old.unclean());
        assertTrue(old.uncleanInEffect(), "0.10's own default: unclean elections on");
        assertEquals(Map.of(UNCLEAN, "true"), old.systemDefaults());
        assertFalse(TestRunner.kafkaSettings(old).brokerProperties(3).containsKey(UNCLEAN), "left out of server.properties");
        assertFalse(old.asMap().containsKey("unclean"), "test.json states only what the run set");
        assertEquals(Map.of(UNCLEAN, "true"), old.asMap().get(TestConfig.SYSTEM_DEFAULTS));

        TestConfig newer = config("apache-kafka:0.11.0.3", null);
        assertFalse(newer.uncleanInEffect(), "off by default from 0.11 (KIP-106)");
        assertEquals(Map.of(UNCLEAN, "false"), newer.systemDefaults());
        assertFalse(config("apache-kafka", null).uncleanInEffect());
        assertFalse(config("broker-impl", null).uncleanInEffect());
    }

    @Test
    void aStatedUncleanElectionOverridesTheReleaseAndIsWritten() {
        TestConfig off = config("apache-kafka:0.10.2.1", false);
        assertFalse(off.uncleanInEffect());
        assertEquals(Map.of(), off.systemDefaults());
        assertEquals("false", TestRunner.kafkaSettings(off).brokerProperties(3).get(UNCLEAN));
        assertEquals(false, off.asMap().get("unclean"));
        assertFalse(off.asMap().containsKey(TestConfig.SYSTEM_DEFAULTS));
        assertEquals("true", TestRunner.kafkaSettings(config("apache-kafka:0.11.0.3", true)).brokerProperties(3).get(UNCLEAN));
    }

    @Test
    void replayKeepsWhatWasLeftToTheRelease() {
        TestConfig old = config("apache-kafka:0.10.2.1", null);
        assertEquals(old, TestConfig.fromMap(old.asMap()));
        TestConfig off = config("apache-kafka:0.10.2.1", false);
        assertEquals(off, TestConfig.fromMap(off.asMap()));
    }

    @Test
    void aComparePageShowsWhichReleaseDefaultsDiffer(@TempDir Path dir) throws Exception {
        List<String> suts = List.of("apache-kafka:0.10.2.1", "apache-kafka:0.11.0.3");
        for (String sut : suts) {
            Path run = Files.createDirectories(dir.resolve(sut.replace(':', '_')));
            StoredRun.JSON.writeValue(run.resolve("test.json").toFile(),
                    StoredRun.testJson("t", config(sut, null), java.time.Instant.EPOCH, "x"));
        }
        var r = CliTestSupport.run("compare", "--runs", dir.resolve("apache-kafka_0.10.2.1") + ","
                + dir.resolve("apache-kafka_0.11.0.3"), "--store", dir.resolve("store").toString());
        assertEquals(FaultlineCli.EXIT_VALID, r.exitCode(), r.err());
        Path page = Files.list(dir.resolve("store/compare")).findFirst().orElseThrow().resolve("compare.html");
        String html = Files.readString(page);
        assertTrue(html.contains("system-defaults." + UNCLEAN), html);
    }
}
