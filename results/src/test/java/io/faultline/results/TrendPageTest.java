package io.faultline.results;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The trend page from stored campaign.json fixtures (three nights and one broken file). */
class TrendPageTest {
    private static Path fixtures(Path tmp) throws Exception {
        Path src = Path.of(TrendPageTest.class.getResource("/trend/acks-matrix").toURI());
        Path dst = tmp.resolve("campaigns/acks-matrix");
        try (Stream<Path> files = Files.walk(src)) {
            for (Path p : files.toList()) {
                Path to = dst.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(to);
                else Files.copy(p, to);
            }
        }
        return dst;
    }

    private static String section(String html, String id) {
        int start = html.indexOf("<table id=\"" + id + "\">");
        assertTrue(start >= 0, "table " + id);
        return html.substring(start, html.indexOf("</table>", start));
    }

    @Test
    void readsEveryCampaignOfTheNameOldestFirstAndListsBrokenFiles(@TempDir Path tmp) throws Exception {
        Path dir = fixtures(tmp);
        List<String> unreadable = new ArrayList<>();
        var campaigns = TrendPage.read(dir, unreadable);
        assertEquals(3, campaigns.size());
        assertEquals(List.of("2026-11-01T02:00:00Z", "2026-11-02T02:00:00Z", "2026-11-03T02:00:00Z"),
                campaigns.stream().map(c -> c.createdAt().toString()).toList());
        assertEquals(1, unreadable.size(), unreadable.toString());
        assertTrue(unreadable.get(0).startsWith("20261104T020000.000"), unreadable.toString());
        assertTrue(Double.isNaN(campaigns.get(0).runs().get(1).availability()), "\"NaN\" reads as NaN");
    }

    @Test
    void showsVerdictPerConfigurationPerNightCountsAndFiguresOverTime(@TempDir Path tmp) throws Exception {
        Path page = TrendPage.write(fixtures(tmp));
        assertEquals(tmp.resolve("campaigns/acks-matrix/trend.html"), page);
        String html = Files.readString(page);
        String verdicts = section(html, "verdicts");
        assertEquals(2, verdicts.split("<tr><th>acks=", -1).length - 1, "one row per configuration");
        String unsafe = verdicts.substring(verdicts.indexOf("acks=1 min-isr=1 nemesis=partition unclean=true"));
        unsafe = unsafe.substring(0, unsafe.indexOf("</tr>"));
        assertTrue(unsafe.indexOf("INVALID 3") < unsafe.indexOf("VALID<") && unsafe.indexOf("VALID<") < unsafe.indexOf("INVALID 7"),
                "nights in order with their data-loss counts: " + unsafe);
        assertTrue(unsafe.contains("href=\"20261101T020000.000/../../../apache-kafka-queue-partition-acks1/20261101T020000.000/report.html\""),
                "links resolve from the trend page: " + unsafe);
        String counts = section(html, "counts");
        assertTrue(counts.contains("<td>2026-11-03 02:00</td><td class=\"num\">2</td><td class=\"num\">1</td>"
                + "<td class=\"num\">7</td>"), "runs, invalid runs and lost-write of a night: " + counts);
        assertTrue(counts.contains("<td>2026-11-02 02:00</td><td class=\"num\">2</td><td class=\"num zero\">0</td>"
                + "<td class=\"num zero\">0</td>"), counts);
        String figures = section(html, "figures");
        assertTrue(figures.contains("<td class=\"num\">91.0 %</td><td class=\"num\">39.3</td>"),
                "means skip NaN availability, average throughput: " + figures);
        assertEquals(2, html.split("<polyline", -1).length - 1, "availability and throughput charts");
        assertTrue(html.contains("Left out, unreadable: 20261104T020000.000"), "the broken file is named");
    }

    @Test
    void aNameWithoutCampaignsGetsAPageSayingSo(@TempDir Path tmp) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("campaigns/none-yet"));
        assertTrue(Files.readString(TrendPage.write(dir)).contains("No campaign of this name is stored yet"));
    }
}
