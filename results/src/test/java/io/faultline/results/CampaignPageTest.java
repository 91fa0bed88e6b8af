package io.faultline.results;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CampaignPageTest {

    @TempDir
    Path tmp;

    static Map<String, String> config(String acks, String unclean, String nemesis) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("acks", acks);
        c.put("min-isr", "2");
        c.put("unclean", unclean);
        c.put("nemesis", nemesis);
        return c;
    }

    @Test
    void matrixLinksToEachRunAndAnswersWhichSettingsLoseData() throws Exception {
        RunStore store = new RunStore(tmp);
        Instant t = Instant.parse("2026-11-03T10:00:00Z");
        RunDir r1 = store.newRun("queue", t);
        RunDir r2 = store.newRun("queue", t.plusSeconds(60));
        RunDir r3 = store.newRun("queue", t.plusSeconds(120));
        List<CampaignInput.Run> runs = List.of(
                new CampaignInput.Run(config("all", "false", "partition"), r1.dir(), "valid",
                        Map.of("lost-write", 0L), 0.97, 0.9, 850.0),
                new CampaignInput.Run(config("1", "true", "partition"), r2.dir(), "invalid",
                        Map.of("lost-write", 12L, "inconsistent-offsets", 3L, "G1a", 1L), 0.99, 0.98, 1200.0),
                new CampaignInput.Run(config("1", "true", "kill"), r3.dir(), "invalid",
                        Map.of("lost-write", 4L), 0.8, Double.NaN, 1100.0));
        Path dir = store.newCampaign("acks-grid", t);
        CampaignPage.write(new CampaignInput("acks-grid", t, runs), dir);

        String html = Files.readString(dir.resolve("index.html"));
        for (RunDir r : List.of(r1, r2, r3)) {
            String rel = "../../../queue/" + r.timestamp() + "/report.html";
            assertTrue(html.contains("href=\"" + rel + "\""), "link to " + rel);
            assertTrue(Files.exists(dir.resolve(rel).getParent()), "the link resolves to the run folder");
        }
        for (String column : List.of("acks", "min-isr", "unclean", "nemesis", "verdict", "lost-write",
                "inconsistent-offsets", "duplicate", "unseen", "G1a", "availability", "ok ops/s")) {
            assertTrue(html.contains("<th>" + column + "</th>"), column);
        }
        // the grid: acks=1 unclean=true loses 15 under partition and 4 under kill
        assertTrue(html.contains("<th>acks=1 min-isr=2 unclean=true</th>"));
        assertTrue(html.contains("v-invalid\">15</span>"));
        assertTrue(html.contains("v-invalid\">4</span>"));
        assertTrue(html.contains("v-valid\">0</span>"));

        JsonNode json = Json.MAPPER.readTree(dir.resolve("campaign.json").toFile());
        assertEquals(3, json.get("runs").size());
        assertEquals("invalid", json.get("runs").get(1).get("verdict").asText());
        assertEquals(12, json.get("runs").get(1).get("anomalyCounts").get("lost-write").asInt());
        assertTrue(json.get("runs").get(0).get("report").asText().endsWith(r1.timestamp() + "/report.html"));
    }

    @Test
    void aMissingPointIsARowOfItsOwnUnderABannerAndDetailsReachTheJson() throws Exception {
        RunStore store = new RunStore(tmp);
        Instant t = Instant.parse("2026-12-01T20:00:00Z");
        RunDir r1 = store.newRun("queue", t);
        List<CampaignInput.Run> runs = List.of(
                new CampaignInput.Run(config("1", "false", "kill"), r1.dir(), "valid", Map.of(), 1, 1, 10, 0),
                CampaignInput.Run.missing(config("all", "false", "kill"), 1));
        Path dir = store.newCampaign("merged", t);
        CampaignPage.write(new CampaignInput("merged", t, runs).withDetails(Map.of("campaign", Map.of("identity", "abc"))), dir);

        String html = Files.readString(dir.resolve("index.html"));
        assertTrue(html.contains("1 of 2 points of the matrix missing"), "banner");
        assertTrue(html.contains("1 runs</p>"), "a missing point is not a run");
        assertTrue(html.contains("v-missing\">MISSING</span>"), "its row says so");
        JsonNode json = Json.MAPPER.readTree(dir.resolve("campaign.json").toFile());
        assertEquals("missing", json.get("runs").get(1).get("verdict").asText());
        assertEquals(1, json.get("runs").get(1).get("point").asInt());
        assertTrue(json.get("runs").get(1).get("report").isNull());
        assertEquals("abc", json.get("campaign").get("identity").asText());
    }
}
