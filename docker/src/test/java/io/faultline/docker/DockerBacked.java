package io.faultline.docker;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test class that needs a Docker engine: tagged {@code docker}, and skipped as a whole with
 * {@code -Dfaultline.skipDocker=true} (the parent pom passes the flag to surefire). One annotation, so that every
 * Docker-backed class honours the flag the same way. Shared with other modules through docker's test-jar.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Tag("docker")
@DisabledIfSystemProperty(named = "faultline.skipDocker", matches = "true",
        disabledReason = "-Dfaultline.skipDocker=true: no Docker engine for this run")
public @interface DockerBacked {}
