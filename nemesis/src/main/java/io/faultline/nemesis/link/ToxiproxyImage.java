package io.faultline.nemesis.link;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.faultline.docker.NodeImage;
import io.faultline.nemesis.toxiproxy.ToxiproxyServer;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.resolver.AddressResolver;
import io.netty.util.ReferenceCountUtil;
import org.testcontainers.toxiproxy.ToxiproxyContainer;
import org.testcontainers.utility.DockerImageName;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The image of Faultline's Toxiproxy-compatible server, built locally FROM the project's base image with the
 * server's classes and its jars (Netty, Jackson) taken from this JVM's classpath. {@code FAULTLINE_TOXIPROXY_IMAGE}
 * names another image instead, e.g. {@code ghcr.io/shopify/toxiproxy:2.12.0} where a registry is reachable.
 */
public final class ToxiproxyImage {
    public static final String ENV = "FAULTLINE_TOXIPROXY_IMAGE";
    public static final String UPSTREAM_IMAGE = "ghcr.io/shopify/toxiproxy";
    private static final String RESOURCES = "/io/faultline/nemesis/link/";
    private static final String PACKAGE_DIR = "io/faultline/nemesis/toxiproxy";

    private ToxiproxyImage() {}

    /** The configured image, else our own, built when needed. */
    public static String name() {
        String env = System.getenv(ENV);
        return env == null || env.isBlank() ? build() : env.strip();
    }

    /** Whether the image is the one this project builds (never pulled). */
    public static boolean isLocal(String image) {
        return image.startsWith("faultline/");
    }

    /** A ToxiproxyContainer over the image: ours is declared a compatible substitute for Shopify's. */
    public static ToxiproxyContainer container(String image) {
        DockerImageName name = DockerImageName.parse(image);
        if (isLocal(image)) {
            name = name.asCompatibleSubstituteFor(UPSTREAM_IMAGE);
            return new ToxiproxyContainer(name).withImagePullPolicy(n -> false);
        }
        return new ToxiproxyContainer(name);
    }

    /** Builds faultline/toxiproxy:&lt;content hash&gt; (reused while nothing changed). */
    public static String build() {
        NodeImage image = NodeImage.named("toxiproxy")
                .withClasspathFile("Dockerfile", RESOURCES + "Dockerfile")
                .withBuildArg("BASE_IMAGE", NodeImage.baseImageName());
        Path server = codeSource(ToxiproxyServer.class);
        if (Files.isDirectory(server)) {
            image.withDirectory("classes/" + PACKAGE_DIR, server.resolve(PACKAGE_DIR));
        } else {
            image.withFile("classes/.keep", new byte[0]).withFile("libs/" + server.getFileName(), read(server));
        }
        for (Class<?> c : List.of(Channel.class, ByteBuf.class, ReferenceCountUtil.class, AddressResolver.class,
                ObjectMapper.class, JsonParser.class, JsonProperty.class)) {
            Path jar = codeSource(c);
            image.withFile("libs/" + jar.getFileName(), read(jar));
        }
        return image.build();
    }

    private static Path codeSource(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("cannot locate the classes of " + c.getName(), e);
        }
    }

    private static byte[] read(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
