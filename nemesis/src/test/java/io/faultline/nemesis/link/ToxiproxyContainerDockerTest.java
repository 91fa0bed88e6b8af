package io.faultline.nemesis.link;

import eu.rekawek.toxiproxy.Proxy;
import eu.rekawek.toxiproxy.ToxiproxyClient;
import eu.rekawek.toxiproxy.model.ToxicDirection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.testcontainers.toxiproxy.ToxiproxyContainer;

import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Testcontainers' ToxiproxyContainer runs our image as a compatible substitute for Shopify's. */
@DisabledIfSystemProperty(named = "faultline.skipDocker", matches = "true")
class ToxiproxyContainerDockerTest {

    @Test
    void toxiproxyContainerAcceptsOurImageAndProxiesThroughIt() throws Exception {
        String image = ToxiproxyImage.name();
        try (ToxiproxyContainer toxiproxy = ToxiproxyImage.container(image)) {
            toxiproxy.start(); // waits for GET /version on 8474
            var client = new ToxiproxyClient(toxiproxy.getHost(), toxiproxy.getControlPort());
            assertTrue(client.version().contains("version"), client.version());
            // a proxy on the first port ToxiproxyContainer publishes, to the API itself inside the container
            Proxy proxy = client.createProxy("api", "0.0.0.0:8666", "127.0.0.1:8474");
            String url = "http://" + toxiproxy.getHost() + ":" + toxiproxy.getMappedPort(8666) + "/version";
            assertEquals(getVersion(url), client.version(), "the proxy passes the API's answer");
            proxy.toxics().latency("slow", ToxicDirection.DOWNSTREAM, 400);
            long t0 = System.nanoTime();
            getVersion(url);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms >= 400, "latency toxic inside the container: " + ms + " ms");
        }
    }

    private static String getVersion(String url) throws Exception {
        var c = (HttpURLConnection) new URL(url).openConnection();
        c.setConnectTimeout(10_000);
        c.setReadTimeout(30_000);
        assertEquals(200, c.getResponseCode());
        return new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    }
}
