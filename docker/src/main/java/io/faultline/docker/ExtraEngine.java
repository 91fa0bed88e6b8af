package io.faultline.docker;

import java.util.List;

/**
 * A further Docker engine on this machine (scripts/extra-engine.sh): its own socket, data-root, exec-root,
 * pidfile and address pool, for campaigns spread over several engines. Starting it copies the base image from the
 * main engine; node images are built on it by the runs that use it.
 *
 * @param name the engine's name, e.g. "docker2": socket /run/faultline-NAME.sock
 */
public record ExtraEngine(String name) {
    public ExtraEngine {
        if (name == null || !name.matches("[a-z0-9][a-z0-9-]{0,30}")) {
            throw new IllegalArgumentException("engine names are lower-case letters, digits and dashes, got " + name);
        }
    }

    /** Its DOCKER_HOST value. */
    public String dockerHost() {
        return "unix:///run/faultline-" + name + ".sock";
    }

    /** Whether it answers `docker info` now. */
    public boolean answers() {
        return QuietCommand.succeeds(java.time.Duration.ofSeconds(15), List.of("docker", "-H", dockerHost(), "info"));
    }

    /** Starts it unless it answers (needs root and dockerd), and makes sure it has the base image. */
    public void start() {
        DockerEngine.runScript("extra-engine.sh", List.of("start", name), 300);
    }

    /** Stops it (SIGTERM to its dockerd, bounded); its data-root stays for the next start. */
    public void stop() {
        DockerEngine.runScript("extra-engine.sh", List.of("stop", name), 120);
    }
}
