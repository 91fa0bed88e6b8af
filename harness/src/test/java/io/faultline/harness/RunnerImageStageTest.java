package io.faultline.harness;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The runner image's build context, without building the image: what `image runner` copies to /opt/faultline is the
 * launcher, the harness classes, every jar of the harness classpath (the classpath file rewritten to point at them),
 * the node images' jars and the engine scripts. Needs the packaged project (the classpath file and the node jars
 * exist after package), so it runs at integration-test with ReleaseTarballTest and skips itself in the test phase.
 */
class RunnerImageStageTest {
    @Test
    void theStagedTreeHoldsTheLauncherClassesEveryClasspathJarAndTheNodeJars(@TempDir Path tmp) throws IOException {
        Path root = DocsCheckTest.projectRoot();
        assumeTrue(Files.isRegularFile(root.resolve("harness/target/faultline.classpath")), "runs after package");
        Path into = tmp.resolve("faultline");
        RunnerImage.stage(root, into);

        assertTrue(Files.isRegularFile(into.resolve("bin/faultline")), "the launcher");
        assertTrue(Files.isRegularFile(into.resolve("harness/target/classes/io/faultline/harness/FaultlineCli.class")));
        for (String libs : List.of("apache-kafka-libs", "broker-impl-libs", "lazyfs-libs")) {
            try (Stream<Path> s = Files.list(into.resolve("docker/target").resolve(libs))) {
                assertTrue(s.anyMatch(p -> p.toString().endsWith(".jar")), libs + " has jars");
            }
        }
        assertTrue(Files.isDirectory(into.resolve("docker/src/main/resources/io/faultline/docker/scripts")));

        String original = Files.readString(root.resolve("harness/target/faultline.classpath")).strip();
        List<String> entries = List.of(Files.readString(into.resolve("harness/target/faultline.classpath")).strip().split(":"));
        assertEquals(original.split(java.io.File.pathSeparator).length, entries.size(), "one entry per classpath entry");
        assertEquals(entries.size(), entries.stream().distinct().count(), "no two entries share a name in lib/");
        for (String entry : entries) {
            assertTrue(entry.startsWith("/opt/faultline/lib/"), entry);
            assertTrue(Files.exists(into.resolve(entry.substring("/opt/faultline/".length()))), entry + " is staged");
        }
        assertTrue(entries.stream().anyMatch(e -> e.contains("picocli")), "the CLI's own dependencies");
        assertNotNull(RunnerImage.class.getResource("/io/faultline/harness/runner/Dockerfile"), "the image's Dockerfile");
    }

    @Test
    void anUnbuiltProjectIsAOneLineErrorNotAHalfStagedImage(@TempDir Path tmp) {
        var e = assertThrows(IllegalArgumentException.class, () -> RunnerImage.stage(tmp, tmp.resolve("out")));
        assertTrue(e.getMessage().startsWith("the harness is not built at "), e.getMessage());
        assertEquals(1, e.getMessage().lines().count());
        assertFalse(Files.exists(tmp.resolve("out/lib")));
    }
}
