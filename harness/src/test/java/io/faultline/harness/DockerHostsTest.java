package io.faultline.harness;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DockerHostsTest {
    private static final String MAIN = "unix:///var/run/docker.sock";
    private static final String SECOND = "unix:///run/faultline-docker2.sock";
    private static final String REMOTE = "tcp://10.1.2.3:2376";

    @Test
    void runsGoRoundRobinAndEveryRunHasOneEngine() {
        var hosts = new DockerHosts(List.of(MAIN, SECOND, REMOTE));
        assertEquals(List.of(List.of(0, 3, 6), List.of(1, 4), List.of(2, 5)), hosts.shares(7));
        assertEquals(SECOND, hosts.engineOf(4));
        assertEquals(List.of(List.of(), List.of(), List.of()), hosts.shares(0));
    }

    @Test
    void badEngineListsFailBeforeAnythingRuns() {
        for (List<String> bad : List.of(List.<String>of(), List.of("docker.sock"), List.of("http://host:2375"),
                List.of("tcp://host"), List.of("unix://relative.sock"), List.of(MAIN, MAIN))) {
            var e = assertThrows(IllegalArgumentException.class, () -> new DockerHosts(bad), bad::toString);
            assertTrue(e.getMessage().startsWith("--docker-hosts"), e.getMessage());
        }
    }

    @Test
    void labelsAreShortNamesOfTheEngine() {
        assertEquals("docker", DockerHosts.label(MAIN));
        assertEquals("faultline-docker2", DockerHosts.label(SECOND));
        assertEquals("10.1.2.3:2376", DockerHosts.label(REMOTE));
    }

    @Test
    void childEnvironmentTalksToItsEngineWithTlsOnlyForTcp() {
        Map<String, String> env = new HashMap<>(Map.of("DOCKER_HOST", MAIN, "DOCKER_TLS_VERIFY", "1",
                "DOCKER_CERT_PATH", "/certs"));
        DockerHosts.applyTo(env, REMOTE);
        assertEquals(REMOTE, env.get("DOCKER_HOST"));
        assertEquals("1", env.get("DOCKER_TLS_VERIFY"));
        assertEquals("/certs", env.get("DOCKER_CERT_PATH"));
        assertEquals("true", env.get("TESTCONTAINERS_RYUK_DISABLED"));

        DockerHosts.applyTo(env, SECOND);
        assertEquals(SECOND, env.get("DOCKER_HOST"));
        assertFalse(env.containsKey("DOCKER_TLS_VERIFY"), "a local socket never uses TLS");
        assertFalse(env.containsKey("DOCKER_CERT_PATH"));
    }
}
