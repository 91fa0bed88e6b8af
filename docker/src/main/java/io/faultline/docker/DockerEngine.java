package io.faultline.docker;

import com.github.dockerjava.api.DockerClient;
import org.testcontainers.DockerClientFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Docker engine this process talks to. The first use provisions it (installs and starts dockerd when
 * none answers, on Debian as root) and removes leftovers of crashed earlier runs, so a test or the CLI on a
 * brand-new machine needs no manual step.
 */
public final class DockerEngine {
    private static final String SCRIPTS = "/io/faultline/docker/scripts/";
    private static volatile boolean ready;

    private DockerEngine() {}

    /** The Testcontainers-managed docker-java client, after making sure an engine answers. */
    public static DockerClient client() {
        ensureAvailable();
        return DockerClientFactory.instance().client();
    }

    /** Idempotent and cheap after the first call. Throws {@link DockerUnavailableException} with the reason. */
    public static synchronized void ensureAvailable() {
        if (ready) return;
        runScript("provision-engine.sh", List.of(), 600);
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            throw new DockerUnavailableException("a Docker engine answers `docker info` but Testcontainers cannot reach it;"
                    + " check DOCKER_HOST and that TESTCONTAINERS_HOST_OVERRIDE=localhost and"
                    + " TESTCONTAINERS_RYUK_DISABLED=true are set");
        }
        ready = true;
        ResourceJanitor.removeLeftoversOfDeadOwners(DockerClientFactory.instance().client());
    }

    /** Runs one of the project's shell scripts (shipped as resources), with its stderr passed through. */
    static void runScript(String name, List<String> args, int timeoutSeconds) {
        Path script = extractScript(name);
        List<String> cmd = new ArrayList<>(List.of("bash", script.toString()));
        cmd.addAll(args);
        Process process = null;
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            process = p;
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new DockerUnavailableException(name + " did not finish within " + timeoutSeconds + " s");
            }
            if (p.exitValue() != 0) {
                throw new DockerUnavailableException(name + " failed (exit " + p.exitValue() + "); see the lines above");
            }
        } catch (IOException e) {
            throw new DockerUnavailableException("cannot run " + name + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly(); // a 15-minute image build must not outlive us
            throw new DockerUnavailableException("interrupted while running " + name);
        }
    }

    private static Path extractScript(String name) {
        try (InputStream in = DockerEngine.class.getResourceAsStream(SCRIPTS + name)) {
            if (in == null) throw new IllegalStateException("missing resource " + SCRIPTS + name);
            Path tmp = Files.createTempFile("faultline-", "-" + name,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Files.write(tmp, in.readAllBytes());
            tmp.toFile().deleteOnExit();
            return tmp;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** No engine could be had; the message says what is needed. */
    public static final class DockerUnavailableException extends RuntimeException {
        public DockerUnavailableException(String message) {
            super("Docker engine unavailable: " + message);
        }
    }
}
