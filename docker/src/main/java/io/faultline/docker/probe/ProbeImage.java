package io.faultline.docker.probe;

import io.faultline.docker.NodeImage;
import io.faultline.docker.NodeSpec;

import java.util.List;

/** The node image and node spec of {@link ProbeNode}. */
public final class ProbeImage {
    private static final String CLASS_FILE = "io/faultline/docker/probe/ProbeNode.class";

    private ProbeImage() {}

    public static NodeImage image() {
        return NodeImage.named("probe")
                .withBuildArg("NODE_IMAGE", NodeImage.common().build())
                .withFile("Dockerfile", """
                        ARG NODE_IMAGE
                        FROM ${NODE_IMAGE}
                        COPY classes /opt/probe/classes
                        """)
                .withClasspathFile("classes/" + CLASS_FILE, "/" + CLASS_FILE);
    }

    /** Every node runs the probe; -Xmx keeps each idle node small. */
    public static NodeSpec spec() {
        return NodeSpec.of(image().build(), List.of("java", "-Xmx32m", "-XX:+UseSerialGC", "-Xshare:auto",
                "-cp", "/opt/probe/classes", ProbeNode.class.getName()));
    }
}
