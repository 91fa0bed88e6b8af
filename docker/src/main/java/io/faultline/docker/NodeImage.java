package io.faultline.docker;

import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.images.builder.Transferable;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A node image built locally from a Dockerfile, never pulled. The tag is a hash of the build context, so an
 * unchanged image is reused across runs and a changed one is rebuilt. Every system under test builds on
 * {@link #common()}, which sits on the base image (debootstrap-built here, or any public JRE 17 image named
 * by FAULTLINE_BASE_IMAGE where a registry is reachable).
 */
public final class NodeImage {
    public static final String DEFAULT_BASE = "faultline/base:bookworm-jre17-fuse";
    private static final String NODE_RESOURCES = "/io/faultline/docker/images/node/";

    private final String repository;
    private final Map<String, byte[]> files = new TreeMap<>();
    private final Map<String, Path> directories = new TreeMap<>();
    private final Map<String, String> buildArgs = new LinkedHashMap<>();
    private volatile String builtTag;

    private NodeImage(String repository) {
        this.repository = repository;
    }

    /** An image named faultline/&lt;name&gt;:&lt;content hash&gt;; add a "Dockerfile" and its context files. */
    public static NodeImage named(String name) {
        return new NodeImage("faultline/" + name);
    }

    /** The common node layer (fault tools, the clock file, the node-run entry point), on the base image. */
    public static NodeImage common() {
        return named("node")
                .withClasspathFile("Dockerfile", NODE_RESOURCES + "Dockerfile")
                .withClasspathFile("node-run", NODE_RESOURCES + "node-run")
                .withDirectory("lazyfs", LazyFsMount.libsDirectory())
                .withBuildArg("BASE_IMAGE", baseImageName());
    }

    public static String baseImageName() {
        String env = System.getenv("FAULTLINE_BASE_IMAGE");
        return env == null || env.isBlank() ? DEFAULT_BASE : env;
    }

    public NodeImage withFile(String pathInContext, byte[] content) {
        files.put(pathInContext, content.clone());
        return this;
    }

    public NodeImage withFile(String pathInContext, String content) {
        return withFile(pathInContext, content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    public NodeImage withClasspathFile(String pathInContext, String resource) {
        try (InputStream in = NodeImage.class.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalArgumentException("no classpath resource " + resource);
            return withFile(pathInContext, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A host directory copied into the build context (for example a folder of jars). */
    public NodeImage withDirectory(String pathInContext, Path hostDirectory) {
        directories.put(pathInContext, hostDirectory);
        return this;
    }

    public NodeImage withBuildArg(String name, String value) {
        buildArgs.put(name, value);
        return this;
    }

    /** Builds the image when this exact content was never built; returns its tag. */
    public synchronized String build() {
        if (builtTag != null) return builtTag;
        var client = DockerEngine.client();
        if (buildArgs.containsKey("BASE_IMAGE") && buildArgs.get("BASE_IMAGE").startsWith("faultline/")) {
            ensureLocalBase(buildArgs.get("BASE_IMAGE"));
        }
        String tag = repository + ":" + contentHash();
        boolean present;
        try {
            client.inspectImageCmd(tag).exec();
            present = true;
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            present = false;
        }
        if (!present) {
            var image = new ImageFromDockerfile(tag, false);
            files.forEach((path, bytes) -> image.withFileFromTransferable(path, Transferable.of(bytes, 0755)));
            directories.forEach(image::withFileFromPath);
            buildArgs.forEach(image::withBuildArg);
            image.get();
        }
        builtTag = tag;
        return tag;
    }

    /** A {@code FROM faultline/...} parent that must exist locally: the base is debootstrapped on demand. */
    private static void ensureLocalBase(String name) {
        if (name.startsWith("faultline/base")) {
            DockerEngine.runScript("build-base-image.sh", java.util.List.of(name), 900);
        }
    }

    private String contentHash() {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            files.forEach((path, bytes) -> {
                md.update(path.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                md.update(bytes);
            });
            buildArgs.forEach((k, v) -> md.update((k + "=" + v).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            for (var entry : directories.entrySet()) {
                md.update(entry.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                try (Stream<Path> walk = Files.walk(entry.getValue())) {
                    for (Path p : walk.filter(Files::isRegularFile).sorted().toList()) {
                        md.update(entry.getValue().relativize(p).toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                        md.update(Files.readAllBytes(p));
                    }
                }
            }
            return HexFormat.of().formatHex(md.digest(), 0, 6);
        } catch (NoSuchAlgorithmException | IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
