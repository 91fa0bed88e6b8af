package io.faultline.harness;

import io.faultline.docker.DockerBacked;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An unsafe configuration (acks=1, RF 2, min.insync.replicas 1, unclean elections) under leader isolation
 * and kills, as a short campaign. Whether Kafka loses writes in a given run is up to the faults; what must
 * hold is the machinery: every run completes with a verdict and the campaign page links to each report. Since
 * nothing here depends on what the faults did, the runs are short (10 s of workload, 3 s of recovery, and a final
 * drain of at most 10 s: when an unsafe run lost a log's tail the drain cannot reach it, and its caveat says so).
 */
@DockerBacked
class CampaignEndToEndTest {
    @Test
    void unsafeCampaignCompletesAndLinksEveryRun(@TempDir Path store) throws Exception {
        var r = CliTestSupport.run("campaign", "--name", "unsafe", "--acks", "1", "--min-isr", "1", "--rf", "2",
                "--unclean", "true", "--nemesis", "partition+kill,kill", "--nodes", "3", "--time-limit", "10",
                "--nemesis-interval", "4", "--recovery", "3", "--drain", "10", "--seed", "11", "--store", store.toString(),
                "--junit-xml", store.resolve("junit.xml").toString());
        List<Path> runs = CliTestSupport.runDirs(store);
        assertEquals(2, runs.size(), "one run per configuration");
        for (Path run : runs) {
            Map<String, Object> results = CliTestSupport.results(run);
            assertEquals(true, results.get("complete"), run + " completed");
            // unsafe settings may cut a log's tail, which the final drain then cannot reach: unknown, with its reason
            boolean explainedUnknown = "UNKNOWN".equals(results.get("verdict"))
                    && results.get("caveats") instanceof List<?> caveats && !caveats.isEmpty();
            assertTrue(List.of("VALID", "INVALID").contains(results.get("verdict")) || explainedUnknown,
                    run + ": " + results.get("verdict") + " " + results.get("caveats"));
            System.out.printf("campaign run %s: %s %s%n", run.getParent().getFileName(), results.get("verdict"),
                    ((Map<?, ?>) results.get("summary")).get("anomalyCounts"));
        }
        String junit = Files.readString(store.resolve("junit.xml"));
        assertEquals(2, junit.split("<testcase ", -1).length - 1, "one testcase per run: " + junit);
        long invalid = 0;
        for (Path run : runs) if ("INVALID".equals(CliTestSupport.results(run).get("verdict"))) invalid++;
        assertEquals(invalid, junit.split("<failure ", -1).length - 1, "a failure per invalid run: " + junit);
        assertTrue(List.of(FaultlineCli.EXIT_VALID, FaultlineCli.EXIT_INVALID, FaultlineCli.EXIT_UNKNOWN_OR_ERROR)
                .contains(r.exitCode()), "exit " + r.exitCode());
        Path page;
        try (Stream<Path> s = Files.walk(store.resolve("campaigns"))) {
            page = s.filter(p -> p.getFileName().toString().equals("index.html")).findFirst().orElseThrow();
        }
        assertTrue(Files.isRegularFile(page.resolveSibling("campaign.json")));
        assertTrue(Files.readString(page.getParent().resolveSibling("trend.html")).contains("Trend of campaign unsafe"));
        String html = Files.readString(page);
        for (Path run : runs) {
            String link = page.getParent().relativize(run.resolve("report.html")).toString();
            assertTrue(html.contains(link), "the campaign page links to " + link);
            assertTrue(Files.isRegularFile(page.getParent().resolve(link).normalize()), "the link resolves: " + link);
        }
    }
}
