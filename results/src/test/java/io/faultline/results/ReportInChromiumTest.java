package io.faultline.results;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Opens a real report in headless Chromium: a screenshot (kept as target/report-screenshot.png, a build artifact)
 * must show the page, and the DOM Chromium rendered must hold the verdict and the charts at their size. Fails,
 * rather than skips, when Chromium is missing: the report's rendering is what this module promises.
 */
class ReportInChromiumTest {

    static final Path CHROMIUM = Path.of(System.getProperty("faultline.chromium", "/usr/bin/chromium"));
    static final int WIDTH = 1400, HEIGHT = 2400;

    @TempDir
    Path tmp;

    static Path moduleDir() {
        String basedir = System.getProperty("basedir"); // set by surefire; the working directory otherwise
        return basedir != null ? Path.of(basedir) : Path.of("").toAbsolutePath();
    }

    @Test
    void reportRendersVerdictAndChartsInHeadlessChromium() throws Exception {
        if (!Files.isExecutable(CHROMIUM)) {
            // A brand-new machine: install Debian's Chromium on demand, as the Docker engine is provisioned.
            Path script = moduleDir().resolve("src/test/resources/install-chromium.sh");
            new ProcessBuilder("sh", script.toString()).inheritIO().start().waitFor(600, java.util.concurrent.TimeUnit.SECONDS);
        }
        if (!Files.isExecutable(CHROMIUM)) {
            fail("Chromium not found at " + CHROMIUM + ": install it with `apt-get install -y chromium` "
                    + "(or run results/src/test/resources/install-chromium.sh as root)");
        }
        Path runDir = moduleDir().resolve("target/report-sample");
        Path nodes = runDir.resolve("nodes");
        HtmlReportTest.writeNodeLogs(nodes);
        HtmlReport.write(HtmlReportTest.sampleInput(nodes, 40), runDir);
        String url = runDir.resolve("report.html").toUri().toString();

        Path png = tmp.resolve("shot.png");
        chromium("--screenshot=" + png, url);
        assertTrue(Files.size(png) > 0, "screenshot written");
        Path artifact = moduleDir().resolve("target/report-screenshot.png");
        Files.copy(png, artifact, StandardCopyOption.REPLACE_EXISTING);

        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(WIDTH, image.getWidth());
        assertEquals(HEIGHT, image.getHeight());
        Set<Integer> colours = new HashSet<>();
        long bannerRed = 0;
        for (int y = 0; y < image.getHeight(); y += 2) {
            for (int x = 0; x < image.getWidth(); x += 2) {
                int rgb = image.getRGB(x, y) & 0xffffff;
                colours.add(rgb);
                if (y < 200 && rgb == 0xc92a2a) {
                    bannerRed++;
                }
            }
        }
        assertTrue(colours.size() > 100, "not blank: " + colours.size() + " distinct colours");
        assertTrue(bannerRed > 1000, "the red INVALID banner is drawn at the top: " + bannerRed + " pixels");

        String dom = chromium("--dump-dom", url);
        assertTrue(dom.contains("id=\"verdict\"") && dom.contains("INVALID: forbidden anomalies found"), "verdict");
        Matcher svg = Pattern.compile("<svg\\b[^>]*>").matcher(dom);
        List<String> sizes = new ArrayList<>();
        while (svg.find()) {
            String tag = svg.group();
            sizes.add(Math.round(Double.parseDouble(attr(tag, "width"))) + "x"
                    + Math.round(Double.parseDouble(attr(tag, "height"))));
        }
        String expected = Charts.WIDTH + "x" + Charts.HEIGHT;
        assertEquals(List.of(expected, expected, expected, expected), sizes,
                "four charts rendered at " + Charts.WIDTH + "x" + Charts.HEIGHT);
    }

    private static String attr(String tag, String name) {
        Matcher m = Pattern.compile("\\s" + name + "=\"([0-9.]+)").matcher(tag);
        return m.find() ? m.group(1) : "0";
    }

    /** Runs headless Chromium on the page with a fresh profile; returns stdout. */
    private String chromium(String mode, String url) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory(tmp, "profile");
        Path stdout = tmp.resolve("chromium-" + System.nanoTime() + ".out");
        Path stderr = tmp.resolve("chromium-" + System.nanoTime() + ".err");
        Process p = new ProcessBuilder(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-dev-shm-usage", "--user-data-dir=" + profile,
                "--window-size=" + WIDTH + "," + HEIGHT, "--hide-scrollbars", mode, url)
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            fail("chromium did not finish within 90 s: " + Files.readString(stderr));
        }
        assertEquals(0, p.exitValue(), "chromium exit status; stderr: " + Files.readString(stderr));
        return Files.readString(stdout, StandardCharsets.UTF_8);
    }
}
