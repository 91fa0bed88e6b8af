package io.faultline.harness;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** `faultline image runner`: builds the runner image locally, as the node images are built (no registry needed). */
@Command(name = "image", mixinStandardHelpOptions = true,
        description = {"Build an image locally on the Docker engine in use.",
                "runner: the harness and bin/faultline on the base image (faultline/runner:latest), which runs campaign"
                        + " shards next to the engine it is given (the host's socket mounted, host networking); see"
                        + " docs/sharding.md and deploy/."})
final class ImageCommand implements Callable<Integer> {
    @Parameters(paramLabel = "IMAGE", description = "Which image: runner")
    String image;

    @Override
    public Integer call() throws Exception {
        if (!"runner".equals(image)) throw new IllegalArgumentException("image: unknown image '" + image + "'; known: runner");
        Path root = Path.of(System.getProperty("faultline.projectRoot", ".")).toAbsolutePath().normalize();
        System.err.println("faultline: building the runner image from " + root + " (the first build downloads the"
                + " docker client from Debian) ...");
        String tag = RunnerImage.build(root);
        System.err.println("faultline: runner image " + tag + ", tagged " + RunnerImage.LATEST);
        System.out.println(RunnerImage.LATEST);
        return FaultlineCli.EXIT_VALID;
    }
}
