package io.faultline.harness;

import io.faultline.docker.DockerEngine;
import io.faultline.docker.NodeImage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The runner image: this build of the harness with bin/faultline, on the project's base image, to run shards where
 * a CI system, Kubernetes or Slurm starts them (see docs/sharding.md). Built locally like the node images, and
 * tagged both by content (faultline/runner:HASH) and as faultline/runner:latest for the manifests in deploy/.
 */
final class RunnerImage {
    static final String LATEST = "faultline/runner:latest";
    private static final String SCRIPTS = "docker/src/main/resources/io/faultline/docker/scripts";
    private static final List<String> NODE_LIBS = List.of("docker/target/apache-kafka-libs",
            "docker/target/broker-impl-libs", "docker/target/lazyfs-libs");

    private RunnerImage() {}

    /** Builds (or reuses) the image from the built project at {@code root}; returns its content tag. */
    static String build(Path root) throws IOException {
        Path staged = Files.createTempDirectory("faultline-runner-");
        try {
            stage(root, staged.resolve("faultline"));
            String tag = NodeImage.named("runner")
                    .withClasspathFile("Dockerfile", "/io/faultline/harness/runner/Dockerfile")
                    .withDirectory("faultline", staged.resolve("faultline"))
                    .withBuildArg("BASE_IMAGE", NodeImage.baseImageName())
                    .build();
            int colon = LATEST.indexOf(':');
            DockerEngine.client().tagImageCmd(tag, LATEST.substring(0, colon), LATEST.substring(colon + 1))
                    .withForce().exec();
            return tag;
        } finally {
            deleteTree(staged);
        }
    }

    /**
     * The runner's /opt/faultline: the source tree's layout where bin/faultline and the node images look (launcher,
     * harness classes, node jars, engine scripts), and every jar of the harness classpath in lib/.
     */
    static void stage(Path root, Path into) throws IOException {
        Path classpathFile = root.resolve("harness/target/faultline.classpath");
        Path classes = root.resolve("harness/target/classes");
        if (!Files.isRegularFile(classpathFile) || !Files.isDirectory(classes)) {
            throw new IllegalArgumentException("the harness is not built at " + root + " (./mvnw install -DskipTests)");
        }
        copyTree(root.resolve("bin"), into.resolve("bin"));
        copyTree(classes, into.resolve("harness/target/classes"));
        copyTree(root.resolve(SCRIPTS), into.resolve(SCRIPTS));
        for (String libs : NODE_LIBS) {
            if (!Files.isDirectory(root.resolve(libs))) {
                throw new IllegalArgumentException(root.resolve(libs) + " is missing: build the project first (./mvnw install -DskipTests)");
            }
            copyTree(root.resolve(libs), into.resolve(libs));
        }
        List<String> inImage = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (String entry : Files.readString(classpathFile).strip().split(java.io.File.pathSeparator)) {
            if (entry.isBlank()) continue;
            Path src = Path.of(entry);
            String name = src.getFileName().toString();
            // two jars of one name from different groups must both survive
            for (int i = 1; !names.add(name); i++) name = i + "-" + src.getFileName();
            Path dest = into.resolve("lib").resolve(name);
            if (Files.isDirectory(src)) copyTree(src, dest);
            else {
                Files.createDirectories(dest.getParent());
                Files.copy(src, dest, StandardCopyOption.REPLACE_EXISTING);
            }
            inImage.add("/opt/faultline/lib/" + name);
        }
        Files.writeString(into.resolve("harness/target/faultline.classpath"), String.join(":", inImage));
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (var files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path dest = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) Files.createDirectories(dest);
                else Files.copy(f, dest, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
    }

    private static void deleteTree(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // a temporary build context: not worth failing the build for
        }
    }
}
