package io.faultline.harness;

import io.faultline.docker.DockerBacked;
import io.faultline.docker.DockerEngine;
import io.faultline.docker.NodeImage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** `faultline doctor` on this machine, which the suite provisions: everything a run needs is reported present. */
@DockerBacked
class DoctorTest {
    @Test
    void reportsEverythingPresentOnAProvisionedMachine(@TempDir Path store) {
        // The suite's own provisioning: an engine answers and the base image exists (built once per machine).
        DockerEngine.ensureAvailable();
        NodeImage.common().build();

        List<Doctor.Check> checks = new Doctor(System.getenv(), store).run();
        assertEquals(List.of("java", "docker engine", "base image", "fuse", "free disk", "memory", "chromium"),
                checks.stream().map(Doctor.Check::name).toList());
        for (Doctor.Check c : checks) {
            // Chromium serves only the report screenshot test; .ci/run installs it with FUSE before the tests.
            assertEquals(Doctor.Status.OK, c.status(), c.line());
            assertTrue(c.line().startsWith("ok "), c.line());
        }
        assertTrue(checks.get(1).found().startsWith("Docker "), checks.get(1).found());

        CliTestSupport.CliResult r = CliTestSupport.run("doctor", "--store", store.toString());
        assertEquals(FaultlineCli.EXIT_VALID, r.exitCode(), r.out() + r.err());
        assertEquals(checks.size() + 1, r.out().strip().lines().count(), r.out());
        assertTrue(r.out().contains("everything a run needs is present"), r.out());
    }

    @Test
    void anEngineThatDoesNotAnswerIsMissingWithItsFix(@TempDir Path dir) {
        var env = new HashMap<>(System.getenv());
        env.put("DOCKER_HOST", "unix://" + dir.resolve("no-engine.sock"));
        var doctor = new Doctor(Map.copyOf(env), dir);
        Doctor.Engine engine = Doctor.Engine.at(env.get("DOCKER_HOST"));

        Doctor.Check engineCheck = doctor.engine(engine);
        assertEquals(Doctor.Status.MISSING, engineCheck.status());
        assertTrue(engineCheck.line().startsWith("MISSING"), engineCheck.line());
        assertTrue(engineCheck.line().contains("no answer at unix://"), engineCheck.line());
        assertTrue(engineCheck.line().endsWith(" -- fix: start the engine at DOCKER_HOST=" + env.get("DOCKER_HOST")
                + ", or unset DOCKER_HOST for the local one"), engineCheck.line());
        assertEquals(1, engineCheck.line().lines().count());
        assertEquals(Doctor.Status.MISSING, doctor.baseImage(engine).status());
        assertFalse(Doctor.allRequiredPresent(List.of(engineCheck)));
    }

    @Test
    void anImageTheEngineLacksIsMissingWithItsFix(@TempDir Path dir) {
        DockerEngine.ensureAvailable();
        var env = new HashMap<>(System.getenv());
        env.put("FAULTLINE_BASE_IMAGE", "faultline/no-such-image:never-built");
        Doctor.Engine engine = Doctor.Engine.at(env.getOrDefault("DOCKER_HOST", "unix:///var/run/docker.sock"));
        Doctor.Check check = new Doctor(Map.copyOf(env), dir).baseImage(engine);
        assertEquals(Doctor.Status.MISSING, check.status(), check.line());
        assertTrue(check.line().endsWith("-- fix: docker pull faultline/no-such-image:never-built"), check.line());
    }
}
