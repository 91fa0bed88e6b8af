package io.faultline.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.faultline.docker.DockerBacked;
import io.faultline.docker.ExtraEngine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * `campaign --docker-hosts`: a two-run campaign over the main engine and a second dockerd on this machine (its own
 * socket, data-root, exec-root and address pool). Each run's whole cluster lives on one engine, images built there;
 * the campaign page names the engine of each run. The second engine is started here when it does not answer (a
 * fresh CI machine) and stopped again afterwards.
 *
 * <p>Only with {@code -Pengines}: during its first runs here the main engine's docker0 bridge disappeared while the
 * second engine started (with {@code --bridge none}, and once more with a bridge of its own), which fails every
 * later image build on the main engine; until that is understood it stays out of the default suite.
 */
@DockerBacked
@org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "faultline.engines", matches = "true")
class CampaignEnginesTest {
    private static final ExtraEngine SECOND = new ExtraEngine("docker2");
    private static final String MAIN = "unix:///var/run/docker.sock";
    private static boolean startedHere;

    @BeforeAll
    static void secondEngine() {
        io.faultline.docker.DockerEngine.ensureAvailable(); // the main engine, provisioned as for any test
        if (!SECOND.answers()) {
            SECOND.start();
            startedHere = true;
        }
    }

    @AfterAll
    static void stopSecondEngine() {
        if (startedHere) SECOND.stop();
    }

    @Test
    void runsSpreadOverTwoEnginesLandOnOnePage(@TempDir Path store) throws Exception {
        var r = CliTestSupport.run("campaign", "--name", "engines", "--sut", "broker-impl", "--nodes", "1",
                "--rf", "1", "--min-isr", "1", "--acks", "1,all", "--nemesis", "none", "--time-limit", "10",
                "--recovery", "1", "--drain", "10", "--rate", "20", "--concurrency", "2", "--seed", "5",
                "--docker-hosts", MAIN + "," + SECOND.dockerHost(), "--store", store.toString());
        List<Path> runs = CliTestSupport.runDirs(store);
        assertEquals(2, runs.size(), "one run per configuration: " + r.err());
        for (Path run : runs) {
            // No faults: nothing may be lost. On a starved machine a 10 s run may end before its first send is
            // acknowledged (unknown: nothing to judge); what this test is about is where the runs ran.
            Map<?, ?> results = CliTestSupport.results(run);
            assertEquals(true, results.get("complete"), run + "\n" + r.err());
            assertTrue(List.of("VALID", "UNKNOWN").contains(results.get("verdict")), run + ": " + results.get("verdict"));
        }
        assertTrue(r.exitCode() != FaultlineCli.EXIT_INVALID, r.err());

        Path page;
        try (Stream<Path> s = Files.walk(store.resolve("campaigns"))) {
            page = s.filter(p -> p.getFileName().toString().equals("index.html")).findFirst().orElseThrow();
        }
        String html = Files.readString(page);
        assertTrue(html.contains(MAIN) && html.contains(SECOND.dockerHost()), "the page names both engines");
        Map<?, ?> campaign = new ObjectMapper().readValue(page.resolveSibling("campaign.json").toFile(), Map.class);
        Set<Object> engines = new HashSet<>();
        for (Object run : (List<?>) campaign.get("runs")) {
            engines.add(((Map<?, ?>) ((Map<?, ?>) run).get("config")).get("engine"));
        }
        assertEquals(Set.of(MAIN, SECOND.dockerHost()), engines, "one run on each engine");
        // Each engine built its own image and ran its own cluster: the second engine now holds a node image.
        var images = new ProcessBuilder("docker", "-H", SECOND.dockerHost(), "images", "-q", "faultline/broker-impl")
                .redirectErrorStream(true).start();
        String ids = new String(images.getInputStream().readAllBytes()).trim();
        assertTrue(images.waitFor() == 0 && !ids.isEmpty(), "the second engine built the broker-impl image: " + ids);
    }
}
